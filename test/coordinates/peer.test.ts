/**
 * Meridian against Debian's cs2cs (PROJ 9.1.1 with its own registry, EPSG v10.076) on systems drawn
 * at random (fixed seed) from the registry across kinds of projection: where the operations PROJ
 * considers are the same in both registries (projinfo's PROJ strings, PROJ 9.1.1 reading each
 * registry), results must equal cs2cs's to 1e-6 m or 1e-9°. Where they are not, the system must be
 * listed in peer-differences.ts with the reason, as must the systems Meridian refuses.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { crsInfo, queryRegistry } from '../../src/coordinates/proj/proj.js';
import { PlanCache, transformPoints, type XYZ } from '../../src/coordinates/transform.js';
import { requirePeers } from '../peers.js';
import { OPERATIONS_CHANGED_SINCE_V10_076 } from './peer-differences.js';
import { sameRegistry } from './peer-registry.js';

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const projected = (where: string) =>
  `SELECT p.code FROM projected_crs p JOIN conversion_table c ON c.auth_name = p.conversion_auth_name AND c.code = p.conversion_code
   WHERE p.auth_name = 'EPSG' AND p.deprecated = 0 AND ${where} ORDER BY CAST(p.code AS INTEGER)`;

/** Kinds of system and the geographic CRS the points start from. */
const kinds: { kind: string; sql: string; source: number }[] = [
  { kind: 'UTM zones', sql: projected(`c.method_code = '9807' AND p.name LIKE '%UTM zone%'`), source: 4326 },
  { kind: 'national Transverse Mercator grids', sql: projected(`c.method_code = '9807' AND p.name NOT LIKE '%UTM%'`), source: 4326 },
  { kind: 'Lambert conic conformal', sql: projected(`c.method_code IN ('9801', '9802')`), source: 4326 },
  { kind: 'polar stereographic', sql: projected(`c.method_code IN ('9810', '9829')`), source: 4326 },
  { kind: 'oblique Mercator', sql: projected(`c.method_code IN ('9812', '9815')`), source: 4326 },
  { kind: 'geographic 3D', sql: `SELECT code FROM geodetic_crs WHERE auth_name = 'EPSG' AND deprecated = 0 AND type = 'geographic 3D' ORDER BY CAST(code AS INTEGER)`, source: 4979 },
  { kind: 'compound', sql: `SELECT code FROM compound_crs WHERE auth_name = 'EPSG' AND deprecated = 0 ORDER BY CAST(code AS INTEGER)`, source: 4979 },
];

const PER_KIND = 10;
const POINTS = 9;

/** cs2cs reads and writes each CRS's own axis order; polar systems name an easting whose direction is "north" (along a meridian). */
const northFirst = (code: number) => {
  const axis = crsInfo(code).axes[0];
  return /^(north|south)$/.test(axis?.direction ?? '') && !/^(easting|westing)$/i.test(axis?.name ?? '');
};

/** PROJ 9.1.1's candidate operations from one system to the other, as PROJ strings, on a registry. */
function operations(source: number, target: number, env: NodeJS.ProcessEnv): string {
  const run = spawnSync('projinfo', ['-s', `EPSG:${source}`, '-t', `EPSG:${target}`, '-o', 'PROJ', '-q', '--single-line'], { encoding: 'utf8', env });
  return run.status === 0 ? run.stdout : `failed: ${run.stderr}`;
}

/** Debian's cs2cs on its own registry; null for a point it cannot transform. */
function cs2cs(source: number, target: number, points: readonly XYZ[]): (number[] | null)[] {
  const input = points.map((p) => (northFirst(source) ? [p.y, p.x, p.z] : [p.x, p.y, p.z]).map((v) => v.toPrecision(17)).join(' ')).join('\n');
  const output = spawnSync('cs2cs', ['-f', '%.12f', `EPSG:${source}`, `EPSG:${target}`], { input, encoding: 'utf8' }).stdout;
  return output
    .trim()
    .split('\n')
    .map((line) => {
      const values = line.trim().split(/\s+/).map(Number);
      if (values.slice(0, 2).some((v) => !Number.isFinite(v))) return null;
      const [a, b, c] = values;
      return northFirst(target) ? [b!, a!, c ?? 0] : [a!, b!, c ?? 0];
    });
}

/** One point at a time, so that a point PROJ cannot transform does not hide the others. */
function ours(cache: PlanCache, source: number, target: number, points: readonly XYZ[]): (XYZ | null)[] {
  return points.map((point) => {
    try {
      return transformPoints(cache, [point], source, target, []).results[0]!;
    } catch {
      return null;
    }
  });
}

test('results equal Debian cs2cs to 1e-6 m or 1e-9° where the operations did not change: 500+ triples drawn from the registry', () => {
  requirePeers('proj');
  const next = random(18_2026);
  const cache = new PlanCache();
  let compared = 0;
  const changed = new Set<number>();
  const disagreements: string[] = [];
  for (const { kind, sql, source } of kinds) {
    const codes = queryRegistry(sql).map(([code]) => Number(code));
    const drawn = new Set<number>();
    while (drawn.size < PER_KIND) drawn.add(codes[Math.floor(next() * codes.length)]!);
    for (const target of drawn) {
      const label = `${kind}: EPSG:${source} -> EPSG:${target}`;
      if (operations(source, target, process.env) !== operations(source, target, sameRegistry)) {
        changed.add(target);
        continue;
      }
      const bbox = crsInfo(target).bbox!;
      const [west, south, east, north] = [bbox[0], Math.max(bbox[1], -80), bbox[2] < bbox[0] ? bbox[2] + 360 : bbox[2], Math.min(bbox[3], 80)];
      const points = Array.from({ length: POINTS }, () => {
        const x = west + (east - west) * (0.1 + 0.8 * next());
        return { x: x > 180 ? x - 360 : x, y: south + (north - south) * (0.1 + 0.8 * next()), z: Math.round(next() * 500) };
      });
      const mine = ours(cache, source, target, points);
      const theirs = cs2cs(source, target, points);
      const degrees = crsInfo(target).unit === 'degree';
      const tolerance = degrees ? 1e-9 : 1e-6;
      mine.forEach((point, i) => {
        const peer = theirs[i]!;
        const where = `${label}, point ${JSON.stringify(points[i])}: ${JSON.stringify(point)} vs ${JSON.stringify(peer)}`;
        if (point === null || peer === null) {
          if ((point === null) !== (peer === null)) disagreements.push(where);
          return;
        }
        const close = Math.abs(point.x - peer[0]!) <= tolerance && Math.abs(point.y - peer[1]!) <= tolerance && Math.abs(point.z - peer[2]!) <= 1e-6;
        if (!close) disagreements.push(where);
        compared++;
      });
    }
  }
  assert.deepEqual(disagreements, []);
  assert.deepEqual([...changed].sort((a, b) => a - b), [...OPERATIONS_CHANGED_SINCE_V10_076.keys()].sort((a, b) => a - b));
  assert.ok(compared >= 500, `compared ${compared}`);
});
