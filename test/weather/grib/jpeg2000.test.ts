/**
 * The JPEG 2000 decoder against OpenJPEG's own tools (Debian libopenjp2-tools): images written by
 * opj_compress with the coding options GRIB2 producers do not use but the standard allows (the 9/7
 * wavelet, quality layers, every progression order, tiles, precincts, SOP/EPH markers, the
 * code-block mode switches, JP2 files), each decoded by ours and by opj_decompress. The GRIB2 tests
 * cover what ecCodes writes (5/3, one layer, one tile).
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { decodeJpeg2000 } from '../../../src/weather/grib/jpeg2000.js';
import { seededRandom } from '../../scratch.js';

const dir = mkdtempSync(path.join(tmpdir(), 'meridian-jpeg2000-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const WIDTH = 203;
const HEIGHT = 137;

/** A smooth field with waves and noise, as weather fields are, at `bits` per sample. */
function field(bits: number): Uint16Array {
  const max = 2 ** bits - 1;
  const samples = new Uint16Array(WIDTH * HEIGHT);
  const random = seededRandom(12345);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const smooth = 0.5 + 0.3 * Math.sin(x / 17) * Math.cos(y / 11) + 0.15 * (x / WIDTH - y / HEIGHT);
      const noise = (random() - 0.5) * 0.04;
      samples[y * WIDTH + x] = Math.max(0, Math.min(max, Math.round((smooth + noise) * max)));
    }
  }
  return samples;
}

function writePgm(file: string, samples: Uint16Array, bits: number): void {
  const header = Buffer.from(`P5\n${WIDTH} ${HEIGHT}\n${2 ** bits - 1}\n`, 'latin1');
  const wide = bits > 8;
  const body = Buffer.alloc(samples.length * (wide ? 2 : 1));
  samples.forEach((v, i) => (wide ? body.writeUInt16BE(v, i * 2) : body.writeUInt8(v, i)));
  writeFileSync(file, Buffer.concat([header, body]));
}

function readPgm(file: string): Uint16Array {
  const bytes = readFileSync(file);
  // "P5", width, height, maxval, each after white space or a comment line, then one white space character.
  const fields: string[] = [];
  let at = 0;
  while (fields.length < 4) {
    while (/\s/.test(String.fromCharCode(bytes[at]!))) at++;
    if (bytes[at] === 0x23) {
      while (bytes[at] !== 0x0a) at++;
      continue;
    }
    const start = at;
    while (!/\s/.test(String.fromCharCode(bytes[at]!))) at++;
    fields.push(bytes.toString('latin1', start, at));
  }
  at++;
  const [magic, width, height, maxval] = fields;
  assert.equal(magic, 'P5');
  assert.deepEqual([Number(width), Number(height)], [WIDTH, HEIGHT]);
  const wide = Number(maxval) > 255;
  return Uint16Array.from({ length: WIDTH * HEIGHT }, (_, i) => (wide ? bytes.readUInt16BE(at + i * 2) : bytes[at + i]!));
}

/** The image written by opj_compress with `options`, and what opj_decompress reads from it. */
function openjpeg(name: string, bits: number, options: string[], extension = 'j2k'): { codestream: Uint8Array; source: Uint16Array; reference: Uint16Array } {
  const source = field(bits);
  const input = path.join(dir, `${name}.pgm`);
  const encoded = path.join(dir, `${name}.${extension}`);
  const decoded = path.join(dir, `${name}-decoded.pgm`);
  writePgm(input, source, bits);
  execFileSync('opj_compress', ['-i', input, '-o', encoded, ...options], { stdio: 'pipe' });
  execFileSync('opj_decompress', ['-i', encoded, '-o', decoded], { stdio: 'pipe' });
  return { codestream: readFileSync(encoded), source, reference: readPgm(decoded) };
}

const cases: { name: string; bits: number; options: string[]; extension?: string; lossless: boolean }[] = [
  { name: 'reversible 5/3, OpenJPEG defaults', bits: 12, options: [], lossless: true },
  { name: 'reversible 5/3 truncated to a rate', bits: 16, options: ['-r', '6'], lossless: false },
  { name: 'irreversible 9/7', bits: 12, options: ['-I', '-r', '8'], lossless: false },
  { name: '9/7 in three quality layers, resolution-major', bits: 16, options: ['-I', '-r', '40,10,3', '-p', 'RLCP'], lossless: false },
  { name: 'every code-block mode switch, 16x16 blocks', bits: 12, options: ['-M', '63', '-b', '16,16'], lossless: true },
  { name: 'every mode switch with 9/7 and layers', bits: 8, options: ['-M', '63', '-I', '-r', '20,4'], lossless: false },
  { name: 'tiles, an image offset, three resolutions, position-major', bits: 12, options: ['-t', '96,64', '-d', '7,3', '-n', '3', '-p', 'RPCL'], lossless: true },
  { name: 'precincts, small blocks, SOP and EPH markers', bits: 16, options: ['-c', '[32,32],[16,16]', '-b', '8,8', '-p', 'PCRL', '-SOP', '-EPH'], lossless: true },
  { name: 'tile-parts by resolution, packet lengths (PLT), component-major', bits: 8, options: ['-t', '64,64', '-TP', 'R', '-PLT', '-p', 'CPRL', '-n', '4'], lossless: true },
  { name: 'a JP2 file', bits: 12, options: ['-I', '-r', '4'], extension: 'jp2', lossless: false },
];

for (const { name, bits, options, extension, lossless } of cases) {
  test(`${name} (${bits} bits): ours decodes as OpenJPEG does`, () => {
    const { codestream, source, reference } = openjpeg(name.replace(/[^a-z0-9]+/gi, '-'), bits, options, extension);
    const ours = decodeJpeg2000(codestream, WIDTH * HEIGHT);
    if (lossless) {
      assert.deepEqual(reference, source, 'OpenJPEG gives the image back');
      assert.deepEqual(Uint16Array.from(ours), source);
      return;
    }
    // OpenJPEG runs the 9/7 wavelet in single precision and ours in double: a sample may round the
    // other way (at 16 bits a tenth of them do), never further, and ours is as near the image.
    // The truncated 5/3 is integer arithmetic, the same both ways.
    let differing = 0;
    let largest = 0;
    let ourError = 0;
    let theirError = 0;
    ours.forEach((v, i) => {
      const difference = Math.abs(v - reference[i]!);
      if (difference > 0) differing++;
      largest = Math.max(largest, difference);
      ourError += (v - source[i]!) ** 2;
      theirError += (reference[i]! - source[i]!) ** 2;
    });
    assert.ok(largest <= 1, `largest difference ${largest}`);
    if (options.includes('-I')) assert.ok(differing <= ours.length * 0.15, `${differing} samples of ${ours.length} differ`);
    else assert.equal(differing, 0);
    assert.ok(ourError <= theirError * 1.01, `squared error ${ourError} against OpenJPEG's ${theirError}`);
    assert.ok(ours.some((v, i) => v !== source[i]), 'the image is lossy');
  });
}

test('an image of another size than the GRIB2 grid is refused before decoding', () => {
  const { codestream } = openjpeg('size', 8, []);
  assert.throws(() => decodeJpeg2000(codestream, WIDTH * HEIGHT + 1), /image of 203 x 137 samples where 27812 are expected/);
});
