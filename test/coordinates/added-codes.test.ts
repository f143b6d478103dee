/**
 * Codes EPSG added after v10.076 (the registry Debian's PROJ 9.1.1 ships, read here as the
 * independent list of what was there before) work end to end: search finds them, exports come
 * with them, and transforming a point into them equals cs2cs reading the same registry.
 */

import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { crsInfo, queryRegistry } from '../../src/coordinates/proj/proj.js';
import { loadRegistry } from '../../src/coordinates/search/registry.js';
import { search } from '../../src/coordinates/search/search.js';
import { PlanCache, transformPoints, type XYZ } from '../../src/coordinates/transform.js';
import { requirePeers } from '../peers.js';
import { FULL_MATRIX_ROTATION, NEW_SINCE_PROJ_9_1 } from './peer-differences.js';
import { sameRegistry } from './peer-registry.js';

const DEBIAN_REGISTRY = '/usr/share/proj/proj.db';

const cs2cs = (code: number, point: XYZ) =>
  execFileSync('cs2cs', ['-f', '%.12f', 'EPSG:4326', `EPSG:${code}`], { input: `${point.y} ${point.x} 0`, encoding: 'utf8', env: sameRegistry });

/** projinfo's pipeline from EPSG:4326 with its Helmert step made exact, run by cct (input and output in the CRSs' axis order). */
function exactPipeline(code: number, point: XYZ): string {
  const pipeline = execFileSync('projinfo', ['-s', 'EPSG:4326', '-t', `EPSG:${code}`, '-o', 'PROJ', '-q', '--single-line'], { encoding: 'utf8', env: sameRegistry });
  return execFileSync('cct', ['-d', '12', ...pipeline.trim().replace('+proj=helmert ', '+proj=helmert +exact ').split(' ')], { input: `${point.y} ${point.x} 0 0\n`, encoding: 'utf8' });
}
const SAMPLE = 24;

test('a sample of the projected and geographic CRSs added since v10.076: search, exports, transform', () => {
  requirePeers('proj');
  const before = new Database(DEBIAN_REGISTRY, { readonly: true, fileMustExist: true });
  const old = new Set((before.prepare(`SELECT code FROM crs_view WHERE auth_name = 'EPSG'`).raw(true).all() as string[][]).map(([code]) => Number(code)));
  before.close();
  const added = queryRegistry(
    `SELECT code FROM crs_view WHERE auth_name = 'EPSG' AND deprecated = 0 AND type IN ('projected', 'geographic 2D') ORDER BY CAST(code AS INTEGER)`,
  )
    .map(([code]) => Number(code))
    .filter((code) => !old.has(code));
  assert.ok(added.length > 300, `${added.length} added`);
  const sample = Array.from({ length: SAMPLE }, (_, i) => added[Math.floor((i * added.length) / SAMPLE)]!);
  const registry = loadRegistry();
  const cache = new PlanCache();
  for (const code of sample) {
    const [item] = search(registry, { query: `code:${code}`, limit: 1, offset: 0, transformations: false, exports: true }).results;
    assert.equal(item?.id.code, code, `search code:${code}`);
    assert.equal(item.name, crsInfo(code).name);
    assert.match(item.exports?.proj4 ?? '', /\+type=crs/, `EPSG:${code} proj4`);
    // WKT1 cannot express every method: null where projinfo cannot write it either, or writes a name WKT1 does not have.
    const wkt1 = spawnSync('projinfo', [`EPSG:${code}`, '-o', 'WKT1:GDAL', '--single-line', '-q'], { encoding: 'utf8', env: sameRegistry });
    const projection = /PROJECTION\["([^"]+)"\]/.exec(wkt1.stdout)?.[1];
    if (wkt1.status === 0 && !NEW_SINCE_PROJ_9_1.has(projection ?? '')) assert.match(item.exports?.wkt ?? '', /^(PROJCS|GEOGCS)\[/, `EPSG:${code} WKT`);
    else assert.equal(item.exports?.wkt, null, `EPSG:${code} WKT`);

    const [west, south, east, north] = crsInfo(code).bbox!;
    const point = { x: east < west ? west : (west + east) / 2, y: (south + north) / 2, z: 0 };
    const [ours] = transformPoints(cache, [point], 4326, code, []).results;
    const [a, b] = (FULL_MATRIX_ROTATION.has(code) ? exactPipeline(code, point) : cs2cs(code, point)).trim().split(/\s+/).map(Number);
    const northFirst = /^(north|south)$/.test(crsInfo(code).axes[0]?.direction ?? '') && !/^(easting|westing)$/i.test(crsInfo(code).axes[0]?.name ?? '');
    const [x, y] = northFirst ? [b!, a!] : [a!, b!];
    if (NEW_SINCE_PROJ_9_1.has(projection ?? '')) {
      assert.ok(Number.isNaN(x) && Number.isFinite(ours!.x) && Number.isFinite(ours!.y), `EPSG:${code}: PROJ 9.1.1 cannot, Meridian can`);
      continue;
    }
    const tolerance = crsInfo(code).unit === 'degree' ? 1e-9 : 1e-6;
    assert.ok(Math.abs(ours!.x - x) <= tolerance && Math.abs(ours!.y - y) <= tolerance, `EPSG:${code}: ${ours!.x} ${ours!.y} vs ${x} ${y}`);
  }
});
