import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CcsdsError, decodeCcsds } from '../../../src/weather/grib/ccsds.js';
import { GribError, readGrib } from '../../../src/weather/grib/grib2.js';
import { tempDir } from '../../scratch.js';
import { assertValues, example, firstMessage, keys, referenceValues, requireReference, run, set, type ReferenceField } from '../eccodes.js';

let dir = '';
before(() => {
  // Every file here is a python-grib-doc sample repacked by ecCodes, which also gives the expected values.
  requireReference();
  dir = tempDir();
});
after(() => rmSync(dir, { recursive: true, force: true }));

const read = (file: string) => readGrib(new Uint8Array(readFileSync(file)));

/**
 * Repacks the first field of `input` as template 5.42 with `assignments`, and checks that ecCodes kept the
 * field: its encoder (2.28) writes garbage for some option changes, which would be no reference at all.
 * bitsPerValue can only change once the field is CCSDS-packed, so that takes a second step.
 */
function ccsds(name: string, input: string, assignments: string, bits?: number): string {
  let file = set(dir, `${name}-ccsds.grib2`, input, ['packingType=grid_ccsds', assignments].filter(Boolean).join(','), true);
  if (bits !== undefined) file = set(dir, `${name}.grib2`, file, `bitsPerValue=${bits}`, true);
  const [before] = referenceValues(input, dir, [1]);
  const [after] = referenceValues(file, dir, [1]);
  const precision = (field: ReferenceField) => 2 ** field.binaryScale * 10 ** -field.decimalScale;
  const tolerance = precision(before) + precision(after);
  before.values.forEach((v, k) => {
    if (!(Math.abs(after.values[k] - v) <= tolerance) && !(Number.isNaN(v) && Number.isNaN(after.values[k]))) {
      assert.fail(`ecCodes' repack with ${assignments} bitsPerValue=${bits} changed value ${k} from ${v} to ${after.values[k]}`);
    }
  });
  return file;
}

/** The CCSDS options of every message, as ecCodes reads them. */
const options = (file: string) => keys(file, ['bitsPerValue', 'ccsdsFlags', 'ccsdsBlockSize', 'ccsdsRsi']).map((row) => row.map(Number));

describe('template 5.42 (CCSDS) against ecCodes', () => {

  // Flags 14 (preprocessing) is what ecCodes and ECMWF write; 6 leaves the samples unpredicted; 30 adds
  // the restricted code options of small samples. PAD_RSI (32) is left out: ecCodes 2.28 with libaec
  // 1.0.6 does not read back what it writes with it once there is more than one interval.
  const surface = () => example('regular_latlon_surface.grib2');
  const depths: [string, number][] = [
    ['', 1],
    ['ccsdsFlags=30,ccsdsBlockSize=8', 3],
    ['', 8],
    ['', 12],
    ['ccsdsBlockSize=8,ccsdsRsi=3', 12],
    ['', 20],
    ['', 24],
    ['', 32],
  ];
  for (const [assignments, bits] of depths) {
    test(`a surface field of ${bits} bits per value ${assignments} decodes to ecCodes' values`, () => {
      const file = ccsds(`surface-${bits}-${assignments.replace(/\W/g, '_')}`, surface(), assignments, bits);
      checkOptions(file, assignments, bits);
    });
  }

  // The first GFS field: 10512 points, a few reference sample intervals with ecCodes' defaults.
  const first = () => firstMessage(dir, 'gfs1.grib2', example('gfs.t12z.pgrbf120.2p5deg.grib2'));
  const layouts = ['ccsdsBlockSize=8,ccsdsRsi=3', 'ccsdsBlockSize=16,ccsdsRsi=1', 'ccsdsBlockSize=64,ccsdsRsi=4096', 'ccsdsFlags=6', 'ccsdsFlags=6,ccsdsBlockSize=16,ccsdsRsi=7'];
  for (const assignments of layouts) {
    test(`a GFS field repacked with ${assignments} decodes to ecCodes' values`, () => {
      checkOptions(ccsds(`gfs-${assignments.replace(/\W/g, '_')}`, first(), assignments), assignments);
    });
  }

  /** The file holds the options asked for, and its first field decodes to ecCodes' values. */
  function checkOptions(file: string, assignments: string, bits?: number): void {
    const [message] = read(file).messages;
    assert.equal(message.dataTemplate, 42);
    const [[bitsPerValue, ccsdsFlags, ccsdsBlockSize, ccsdsRsi]] = options(file);
    const actual: Record<string, number> = { bitsPerValue, ccsdsFlags, ccsdsBlockSize, ccsdsRsi };
    const asked = assignments ? assignments.split(',').map((a) => a.split('=')) : [];
    if (bits !== undefined) asked.push(['bitsPerValue', String(bits)]);
    for (const [key, value] of asked) assert.equal(actual[key], Number(value), `ecCodes wrote ${key}`);
    assertValues(message.values(), referenceValues(file, dir, [1])[0], `${assignments} ${bits ?? ''}`);
  }

  test("every seventh field of the GFS sample, and two with long runs of zero blocks, repacked (ecCodes' default options) decodes to ecCodes' values", () => {
    const file = set(dir, 'gfs.grib2', example('gfs.t12z.pgrbf120.2p5deg.grib2'), 'packingType=grid_ccsds', true);
    const { messages } = read(file);
    assert.equal(messages.length, 343);
    // Fields 42 and 231 hold runs of zero blocks that end at a segment of 64 blocks inside an interval.
    const only = messages.map((_, m) => m + 1).filter((count) => count % 7 === 1 || count === 42 || count === 231);
    const reference = referenceValues(file, dir, only);
    assert.equal(reference.length, only.length);
    reference.forEach((field) => {
      const message = messages[field.count - 1];
      assert.equal(message.dataTemplate, 42);
      assertValues(message.values(), field, `GFS #${field.count}`);
    });
  });

  test('a field with a bitmap spreads its CCSDS values over the points present, NaN elsewhere', () => {
    const file = ccsds('bitmap', example('reduced_latlon_surface.grib2'), 'ccsdsBlockSize=16', 13);
    const [message] = read(file).messages;
    assert.equal(message.dataTemplate, 42);
    assert.ok(message.hasBitmap);
    const [missing] = keys(file, ['numberOfMissing'])[0].map(Number);
    const values = message.values();
    assert.equal(values.filter(Number.isNaN).length, missing);
    assert.ok(missing > 0);
    assertValues(values, referenceValues(file, dir)[0], 'bitmap');
  });

  test('a constant field (0 bits per value, no stream) decodes to its reference value', () => {
    // The third field of safrica (precipitation rate at the analysis) is 0 everywhere.
    const third = path.join(dir, 'safrica3.grib2');
    run('grib_copy', ['-w', 'count=3', example('safrica.grib2'), third]);
    const file = set(dir, 'constant.grib2', third, 'packingType=grid_ccsds', true);
    const [message] = read(file).messages;
    assert.equal(message.dataTemplate, 42);
    assert.equal(message.packing.bitsPerValue, 0);
    const [reference] = referenceValues(file, dir);
    assert.ok(reference.values.every((v) => v === message.packing.reference));
    assertValues(message.values(), reference, 'constant');
  });

  test('a truncated stream fails with a GribError naming CCSDS, not with made-up values', () => {
    const file = ccsds('truncated', example('regular_latlon_surface.grib2'), '', 12);
    const data = new Uint8Array(readFileSync(file));
    const [message] = readGrib(data).messages;
    // Zero the last 296 bytes of the data section (about a third of its stream), keeping the 7777 marker.
    data.fill(0, data.length - 300, data.length - 4);
    assert.throws(() => message.values(), (error: unknown) => error instanceof GribError && /CCSDS/.test(error.message));
  });

  test('options outside the standard are refused', () => {
    const stream = new Uint8Array(64);
    const base = { bitsPerSample: 8, flags: 8, blockSize: 32, referenceSampleInterval: 128 };
    assert.throws(() => decodeCcsds(stream, 10, { ...base, blockSize: 12 }), CcsdsError);
    assert.throws(() => decodeCcsds(stream, 10, { ...base, bitsPerSample: 33 }), CcsdsError);
    assert.throws(() => decodeCcsds(stream, 10, { ...base, flags: 8 | 16 }), CcsdsError);
    assert.throws(() => decodeCcsds(stream, 10, { ...base, flags: 9 }), CcsdsError);
  });
});
