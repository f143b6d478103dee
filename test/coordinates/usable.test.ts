/**
 * `usable: true` in a CRS's `transformations` list means a transform from that CRS through it
 * (`ops=`) answers, and every failure of the transform endpoint is a 400 naming the reason, never
 * a 500 (issue 18): a sweep over CRSs drawn from the registry with a fixed seed, and the cases
 * a check against PROJ's tools found.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crsInfo } from '../../src/coordinates/proj/proj.js';
import { loadRegistry } from '../../src/coordinates/search/registry.js';
import { search, type TransformationItem } from '../../src/coordinates/search/search.js';
import { PlanCache, TransformError, transformPoints, type XYZ } from '../../src/coordinates/transform.js';

const registry = loadRegistry();
const plans = new PlanCache();

const transformationsOf = (code: number): TransformationItem[] =>
  search(registry, { query: `code:${code}`, limit: 1, offset: 0, transformations: true, exports: false }).results[0]!.transformations as TransformationItem[];

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A point drawn inside both boxes (neither across the antimeridian), or null when they do not meet. */
function pointIn(a: readonly number[], b: readonly number[], next: () => number): XYZ | null {
  const [west, south, east, north] = [Math.max(a[0]!, b[0]!), Math.max(a[1]!, b[1]!), Math.min(a[2]!, b[2]!), Math.min(a[3]!, b[3]!)];
  if (west > east || south > north) return null;
  return { x: west + (east - west) * (0.25 + 0.5 * next()), y: south + (north - south) * (0.25 + 0.5 * next()), z: 0 };
}

/** The transform endpoint's answer: 200 with the results, or 400 with its message; anything else thrown is a 500. */
function transform(point: XYZ, source: number, target: number, ops: number[]): { status: 200 | 400; message?: string } {
  try {
    transformPoints(plans, [point], source, target, ops);
    return { status: 200 };
  } catch (error) {
    if (error instanceof TransformError) return { status: 400, message: error.message };
    throw error;
  }
}

/** Every usable transformation of the CRS answers 200 through `ops=`; every other answer is a 400. Returns how many were usable. */
function sweep(code: number, next: () => number, failures: string[]): number {
  const crs = crsInfo(code);
  let usable = 0;
  for (const item of transformationsOf(code)) {
    const crossing = (box: readonly number[] | null) => box === null || box[0]! > box[2]!;
    if (crossing(crs.bbox) || crossing(item.bbox)) continue;
    const where = pointIn(crs.bbox!, item.bbox!, next);
    if (!where) {
      if (item.usable) failures.push(`EPSG:${code} ops=${item.id.code}: usable, but its area misses the CRS's`);
      continue;
    }
    const start = transform(where, 4326, code, []);
    if (start.status !== 200) continue;
    const point = transformPoints(plans, [where], 4326, code, []).results[0]!;
    const answer = transform(point, code, item.target_crs!.code, [item.id.code]);
    if (item.usable) {
      usable++;
      if (answer.status !== 200) failures.push(`EPSG:${code} ops=${item.id.code}: usable, but ${answer.message}`);
    }
  }
  return usable;
}

test('the cases found: concatenated operations work, an operation whose area misses the CRS is not usable and is a 400 naming the reason', () => {
  const failures: string[] = [];
  const next = random(18_0001);
  // NTF (Paris), S-JTSK (Ferro) and MGI (Ferro): concatenations of a prime meridian change and a Helmert.
  assert.ok(sweep(27572, next, failures) >= 1);
  assert.ok(sweep(2065, next, failures) >= 3);
  assert.ok(sweep(31251, next, failures) >= 1);
  assert.deepEqual(failures, []);
  const alaska = transformationsOf(2964).find((item) => item.id.code === 1174)!;
  assert.equal(alaska.usable, false, 'NAD27 to WGS 84 (5) covers the eastern USA, not Alaska');
  const answer = transform({ x: 0, y: 0, z: 0 }, 2964, 4326, [1174]);
  assert.equal(answer.status, 400);
  assert.match(answer.message!, /PROJ found no operation from EPSG:2964 to EPSG:4326/);
  // Kertau (RSO) to WGS 84 (1), a concatenation PROJ cannot carry in a BoundCRS: not usable, and a 400 saying so.
  assert.equal(transformationsOf(3168).find((item) => item.id.code === 8659)!.usable, false);
  assert.match(transform({ x: 400000, y: 300000, z: 0 }, 3168, 4326, [8659]).message!, /EPSG:8659 cannot be built into the CRS/);
});

test('projections PROJ does not implement and a vertical CRS without an operation to WGS 84 are 400s naming the cause', () => {
  for (const code of [2299, 2300, 2307, 3144]) assert.match(transform({ x: 10, y: 50, z: 0 }, 4326, code, []).message ?? '', /Unsupported conversion method: Lambert Conic Conformal \(West Orientated\)/);
  for (const code of [2963, 5017]) assert.match(transform({ x: 20, y: -30, z: 0 }, 4326, code, []).message ?? '', /Unsupported conversion method: Bonne \(South Orientated\)/);
  assert.match(transform({ x: -100, y: 40, z: 0 }, 5773, 4326, []).message ?? '', /PROJ found no operation from EPSG:5773 to EPSG:4326/);
});

const SAMPLE = 20;

test(`sweep: every transformation marked usable of ${SAMPLE} CRSs drawn from the registry transforms through ops=, and nothing is a 500`, { timeout: 120_000 }, () => {
  const codes = [...registry.crs.values()].filter((entry) => !entry.deprecated && entry.baseCrs !== null && (registry.toWgs84.get(entry.baseCrs)?.length ?? 0) > 0).map((entry) => entry.code);
  const next = random(18_0020);
  const drawn = new Set<number>();
  while (drawn.size < SAMPLE) drawn.add(codes[Math.floor(next() * codes.length)]!);
  const failures: string[] = [];
  let usable = 0;
  for (const code of drawn) usable += sweep(code, next, failures);
  assert.deepEqual(failures, []);
  assert.ok(usable >= 20, `usable ${usable}`);
});
