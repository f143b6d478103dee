/**
 * Operations this PROJ build cannot instantiate are passed over, as native PROJ passes them over
 * (issue 29, part 2). In the WebAssembly build PROJ's own catch of "Unimplemented" does not run, so
 * one such operation among a pair's candidates (EPSG:9223, a time-specific Helmert PROJ does not
 * implement) used to end the whole search: 4326 to ETRS89-DNK answered `Unimplemented WGS 84 to
 * ETRS89 (2)`. Expected results come from the operations PROJ 9.5 names for each pair, computed
 * from their parameters in the registry or by Debian's native cs2cs, never from Meridian.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { defaultTransformationOf } from '../../../src/coordinates/derive.js';
import { crsToCrs, queryRegistry } from '../../../src/coordinates/proj/proj.js';
import { passedOver } from '../../../src/coordinates/proj/proj-wasm.js';
import { requirePeers } from '../../peers.js';

requirePeers('proj');

/** Transforms one point with PROJ's own choice between the CRSs: the result and the operation's name. */
function transformOne(source: number, target: number, [x, y, z]: [number, number, number]) {
  const transformer = crsToCrs(source, target);
  const xs = Float64Array.of(x);
  const ys = Float64Array.of(y);
  const zs = Float64Array.of(z);
  assert.equal(transformer.transform(xs, ys, zs), 0, `EPSG:${source} to EPSG:${target}: ${transformer.failure}`);
  return { point: [xs[0]!, ys[0]!, zs[0]!], name: transformer.used[0]?.name };
}

/** The geocentric translation of a registry operation, in metres (the parameters PROJ applies). */
function translation(auth: string, name: string): number[] {
  const [row] = queryRegistry('SELECT tx, ty, tz, method_code FROM helmert_transformation WHERE auth_name = ? AND name = ?', [auth, name]);
  assert.ok(row, `${auth} ${name} is in the registry`);
  assert.equal(String(row[3]), '9603', `${name} is a geocentric translation`);
  return row.slice(0, 3).map(Number);
}

test('WGS 84 to ETRS89-DNK goes through ETRS89, as native PROJ does, and the result is that chain of null translations', () => {
  // PROJ 9.5's answer for the pair, from issue 29.
  const chain = 'Inverse of ETRS89 to WGS 84 (1) + ETRS89 to ETRS89-DNK';
  // Both steps are geocentric translations of zero in the registry: the chain leaves a point as it is.
  assert.deepEqual([...translation('EPSG', 'ETRS89 to WGS 84 (1)'), ...translation('PROJ', 'ETRS89 to ETRS89-DNK')], [0, 0, 0, 0, 0, 0]);
  for (const target of [10892, 10891]) {
    const { point, name } = transformOne(4326, target, [10.5, 56.1, 0]);
    assert.equal(name, chain, `EPSG:${target}`);
    assert.deepEqual(point, [10.5, 56.1, 0], `EPSG:${target}`);
  }
  assert.ok(passedOver().includes('EPSG:9223'), 'WGS 84 to ETRS89 (2), which PROJ does not implement, is passed over');
});

test('WGS 84 to the geocentric ETRS89-DEU 2025 is the null chain then the GRS80 geocentric conversion, as cct computes it', () => {
  assert.deepEqual(translation('PROJ', 'ETRS89 to ETRS89-DEU [ETRS89/DREF91/2025]'), [0, 0, 0]);
  const { point, name } = transformOne(4326, 11197, [9.5, 51.2, 120]);
  assert.match(name ?? '', /^Inverse of ETRS89 to WGS 84 \(1\) \+ ETRS89 to ETRS89-DEU \[ETRS89\/DREF91\/2025\]/);
  const cct = spawnSync('cct', ['-d', '6', '+proj=cart', '+ellps=GRS80'], { input: '9.5 51.2 120 0\n', encoding: 'utf8' });
  const expected = cct.stdout.trim().split(/\s+/).slice(0, 3).map(Number);
  assert.equal(expected.length, 3, cct.stderr);
  point.forEach((value, i) => assert.ok(Math.abs(value - expected[i]!) < 1e-5, `axis ${i}: ${value} against cct's ${expected[i]}`));
});

test('DB_REF2003 zone 2 to ETRS89 + LAT-NLD depth: the horizontal part agrees with native cs2cs, the height becomes a depth', () => {
  // Issue 29's stalling pair, refused with `Unimplemented ETRS89-NLD [AGRS2010] to LAT-NLD depth (1)`.
  const { point, name } = transformOne(9928, 9289, [2557311.5, 5856531.5, 68.3]);
  assert.match(name ?? '', /DB_REF to ETRS89 \(1\)/);
  // Debian's PROJ 9.1.1 with its own registry, horizontal CRS to horizontal CRS (DB_REF to ETRS89 (1) there too).
  const cs2cs = spawnSync('cs2cs', ['-f', '%.12f', 'EPSG:5682', 'EPSG:4258'], { input: '2557311.5 5856531.5 68.3\n', encoding: 'utf8' });
  const [lat, lon] = cs2cs.stdout.trim().split(/\s+/).map(Number);
  assert.ok(Math.abs(point[0]! - lon!) < 5e-8 && Math.abs(point[1]! - lat!) < 5e-8, `${point} against cs2cs's ${lon}, ${lat}`);
  assert.equal(point[2], -68.3);
});

test('CRSs whose only way to WGS 84 met an operation PROJ cannot instantiate have their default transformation', () => {
  // ETRF2014 and NKG_ETRF14 go through ETRS89, as PROJ goes (issue 29: 12 ITRF/ETRF CRSs had none).
  for (const code of [9069, 10807, 10892]) {
    const found = defaultTransformationOf(code);
    assert.ok(found, `EPSG:${code} has a default transformation`);
    assert.deepEqual(found.steps, [1149], `EPSG:${code}: ${found.name}`);
    assert.match(found.name, /ETRS89 to WGS 84 \(1\)$/);
  }
});
