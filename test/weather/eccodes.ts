/**
 * ecCodes (Debian's libeccodes-tools) as the reference decoder for the GRIB2 tests, and the example
 * files of Debian's python-grib-doc. Both are test peers that setup installs: a test that uses them
 * calls `requireReference()` first (in a `before` hook), which fails naming the missing package.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { GRIB_EXAMPLES, requirePeers } from '../peers.js';

export const examples = GRIB_EXAMPLES;

/** Throws, naming the Debian package to install, unless ecCodes and the example files are there. */
export const requireReference = (): void => requirePeers('ecCodes', 'gribExamples');

/** The example files holding GRIB2 messages (some of them also hold other bytes). */
export const grib2Examples = [
  'ds.maxt.bin',
  'ds.waveh.bin',
  'dspr.temp.bin',
  'ecmwf_tigge.grb',
  'eta.grb',
  'flux.grb',
  'gfs.grb',
  'gfs.t12z.pgrbf120.2p5deg.grib2',
  'ngm.grb',
  'no-radius-shapeOfEarth-7.grb2',
  'rap.wrfnat.grib2',
  'reduced_latlon_surface.grib2',
  'regular_latlon_surface.grib2',
  'safrica.grib2',
];

export const example = (name: string) => path.join(examples, name);

export function run(tool: string, args: string[]): string {
  return execFileSync(tool, args, { maxBuffer: 2 ** 31 - 1, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
}

/** Keys of every message of a file, one array per message; absent keys read `not_found`. */
export function keys(file: string, names: string[]): string[][] {
  return run('grib_get', ['-f', '-p', names.join(','), file])
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/));
}

export interface ReferenceField {
  count: number;
  binaryScale: number;
  decimalScale: number;
  /** Values in the order of the file (ecCodes' `values` key), NaN where ecCodes reports missing. */
  values: Float64Array;
}

/** Decoded values of the selected messages (1-based counts; all when omitted), through grib_filter. */
export function referenceValues(file: string, dir: string, only?: number[]): ReferenceField[] {
  const rules = path.join(dir, 'values.rules');
  const body = 'print "MSG [count] [binaryScaleFactor] [decimalScaleFactor] [missingValue] [numberOfMissing]"; print "[values!1%.12g]";';
  const condition = only ? `if (${only.map((n) => `count == ${n}`).join(' || ')}) { ${body} }` : body;
  writeFileSync(rules, condition + '\n');
  const fields: ReferenceField[] = [];
  let header: number[] = [];
  let values: number[] = [];
  const finish = () => {
    if (header.length === 0) return;
    // ecCodes prints missing points as its missing value, which a field without any may hold for real.
    const [count, binaryScale, decimalScale, missing, missingCount] = header;
    const isMissing = (v: number) => missingCount > 0 && v === missing;
    fields.push({ count, binaryScale, decimalScale, values: Float64Array.from(values, (v) => (isMissing(v) ? NaN : v)) });
  };
  for (const line of run('grib_filter', [rules, file]).split('\n')) {
    if (line.startsWith('MSG ')) {
      finish();
      header = line.slice(4).trim().split(/\s+/).map(Number);
      values = [];
    } else if (line.trim() !== '') {
      values.push(Number(line));
    }
  }
  finish();
  return fields;
}

/** Values agree within half the packing precision 2^E 10^-D, plus the rounding of a float32. */
export function assertValues(actual: Float32Array, reference: ReferenceField, label: string): void {
  assert.equal(actual.length, reference.values.length, `${label}: number of values`);
  const half = (2 ** reference.binaryScale * 10 ** -reference.decimalScale) / 2;
  for (let k = 0; k < actual.length; k++) {
    const expected = reference.values[k];
    const value = actual[k];
    if (Number.isNaN(expected) || Number.isNaN(value)) {
      assert.ok(Number.isNaN(expected) && Number.isNaN(value), `${label}: value ${k} is ${value}, ecCodes ${expected}`);
      continue;
    }
    const tolerance = half + Math.abs(expected) * 2 ** -23;
    if (Math.abs(value - expected) > tolerance) {
      assert.fail(`${label}: value ${k} is ${value}, ecCodes ${expected} (tolerance ${tolerance})`);
    }
  }
}

export interface ReferencePoint {
  lat: number;
  lon: number;
  value: number;
}

/** grib_get_data's points of one message (1-based count): latitude, longitude and value, NaN when missing. */
export function referencePoints(file: string, count: number, every = 1): ReferencePoint[] {
  const out = run('grib_get_data', ['-w', `count=${count}`, '-m', 'nan', '-F', '%.12g', '-L', '%.10f %.10f', file]);
  const points: ReferencePoint[] = [];
  const lines = out.split('\n');
  for (let r = 1; r < lines.length; r += every) {
    const parts = lines[r].trim().split(/\s+/);
    if (parts.length < 3) continue;
    points.push({ lat: Number(parts[0]), lon: Number(parts[1]), value: Number(parts[2]) });
  }
  return points;
}

/** Writes a GRIB file from `input` through grib_filter rules that end with `write "<output>"`. */
export function filter(dir: string, name: string, input: string, rules: string): string {
  const output = path.join(dir, name);
  const file = path.join(dir, `${name}.rules`);
  writeFileSync(file, `${rules}\nwrite "${output}";\n`);
  run('grib_filter', [file, input]);
  return output;
}

export function set(dir: string, name: string, input: string, assignments: string, repack = false): string {
  const output = path.join(dir, name);
  run('grib_set', [...(repack ? ['-r'] : []), '-s', assignments, input, output]);
  return output;
}

/** The first message of a file, alone. */
export function firstMessage(dir: string, name: string, input: string): string {
  const output = path.join(dir, name);
  run('grib_copy', ['-w', 'count=1', input, output]);
  return output;
}
