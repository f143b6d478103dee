import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { crsInfo, crsToCrs, operationInfo, ProjError, projInfo } from '../../../src/coordinates/proj/proj.js';
import { tempDir } from '../../scratch.js';
import { requirePeers } from '../../peers.js';
import { sameRegistry } from '../peer-registry.js';

test('PROJ reports its version and the EPSG dataset of proj.db', () => {
  const info = projInfo();
  assert.match(info.projVersion, /^\d+\.\d+\.\d+$/);
  assert.match(info.epsgVersion ?? '', /^v\d+\.\d+$/);
  assert.ok(info.databasePath?.endsWith('proj.db'));
});

test('an operator can drop in another registry through PROJ_DATA', () => {
  const directory = tempDir();
  const copy = path.join(directory, 'proj.db');
  copyFileSync(projInfo().databasePath!, copy);
  execFileSync('python3', ['-c', `import sqlite3; c = sqlite3.connect(${JSON.stringify(copy)}); c.execute("UPDATE metadata SET value = 'v99.001' WHERE key = 'EPSG.VERSION'"); c.commit()`]);
  const module = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/coordinates/proj/proj.js');
  const version = execFileSync(process.execPath, ['--input-type=module', '-e', `import { projInfo } from ${JSON.stringify(module)}; console.log(projInfo().epsgVersion)`], {
    env: { ...process.env, PROJ_DATA: directory },
    encoding: 'utf8',
  });
  assert.equal(version.trim(), 'v99.001');
});

test('CRS and operation lookups match projinfo on the same registry', () => {
  requirePeers('proj');
  const crs = JSON.parse(execFileSync('projinfo', ['EPSG:2056', '-o', 'PROJJSON', '--single-line', '-q'], { encoding: 'utf8', env: sameRegistry }));
  const ours = crsInfo(2056);
  assert.equal(ours.name, crs.name);
  assert.equal(ours.areaName, crs.area);
  assert.deepEqual(ours.bbox, [crs.bbox.west_longitude, crs.bbox.south_latitude, crs.bbox.east_longitude, crs.bbox.north_latitude]);
  assert.equal(ours.geodeticCrs, 4150);
  assert.equal(ours.unit, 'metre');
  assert.match(ours.exports.proj4 ?? '', /\+proj=somerc .*\+type=crs/);
  assert.match(ours.exports.wkt ?? '', /^PROJCS\["CH1903\+ \/ LV95"/);
  const op = JSON.parse(execFileSync('projinfo', ['-k', 'operation', 'EPSG:1676', '-o', 'PROJJSON', '--single-line', '-q'], { encoding: 'utf8', env: sameRegistry }));
  const opInfo = operationInfo(1676);
  assert.equal(opInfo.name, op.name);
  assert.equal(opInfo.accuracy, Number(op.accuracy));
  assert.deepEqual(opInfo.towgs84, [674.374, 15.056, 405.346, 0, 0, 0, 0]);
  assert.equal(opInfo.sourceCrs, 4150);
  assert.equal(opInfo.targetCrs, 4326);
  // A grid is named as PROJ names it (projinfo -k operation EPSG:15949: hgridshift +grids=de_adv_BETA2007.tif), found
  // on this machine (Debian's proj-data) under its old name.
  assert.deepEqual(operationInfo(15949).grids, [{ name: 'de_adv_BETA2007.tif', path: '/usr/share/proj/BETA2007.gsb', available: true }]);
  assert.throws(() => crsInfo(999999), /Unknown CRS EPSG:999999/);
  assert.throws(() => operationInfo(999999), /Unknown operation EPSG:999999/);
});

test("PROJ's own cause of a failure reaches the caller", () => {
  assert.throws(() => crsToCrs(4326, 2299), /Unsupported conversion method: Lambert Conic Conformal \(West Orientated\)/);
  assert.throws(() => crsToCrs(5773, 4326), (error: Error) => error instanceof ProjError && error.message === 'PROJ found no operation from EPSG:5773 to EPSG:4326');
  assert.throws(() => crsInfo(999999), ProjError);
  // The engine still answers after PROJ threw.
  assert.equal(crsInfo(2056).name, 'CH1903+ / LV95');
});

test('codes EPSG added after v10.076 are known', () => {
  requirePeers('proj');
  const crs = JSON.parse(execFileSync('projinfo', ['EPSG:10773', '-o', 'PROJJSON', '--single-line', '-q'], { encoding: 'utf8', env: sameRegistry }));
  assert.equal(crsInfo(10773).name, crs.name);
  const transformer = crsToCrs(10773, 4326);
  const [x, y, z] = [new Float64Array([15000]), new Float64Array([25000]), new Float64Array([0])];
  assert.equal(transformer.transform(x, y, z), 0);
  // cs2cs reads EPSG:10773 east first and writes EPSG:4326 latitude first.
  const [lat, lon] = execFileSync('cs2cs', ['-f', '%.12f', 'EPSG:10773', 'EPSG:4326'], { input: '15000 25000 0', encoding: 'utf8', env: sameRegistry }).trim().split(/\s+/).map(Number);
  assert.ok(Math.abs(x[0]! - lon!) <= 1e-9 && Math.abs(y[0]! - lat!) <= 1e-9, `${x[0]} ${y[0]} vs ${lon} ${lat}`);
});

test('a proj.db of another layout is refused at start-up, naming the cause', () => {
  const module = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/coordinates/proj/proj.js');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', `import ${JSON.stringify(module)}`], {
    env: { ...process.env, PROJ_DATA: '/usr/share/proj' },
    encoding: 'utf8',
  });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /DATABASE\.LAYOUT\.VERSION|layout version/);
});
