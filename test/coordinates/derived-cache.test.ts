/**
 * The default transformations and exports computed at setup (derived-cache.ts): computed on the
 * coordinates pool, written and read back, they give search results equal to those computed on
 * demand, with no PROJ work left for a search (exports read on the first search asking for them); a file for another registry, engine or grid set, or a damaged one,
 * is refused with the reason; the server loads the file at start-up from the caches' folder
 * (`coordinates.cacheDir`, or under the data directory) or says why not, and answers cold searches
 * from it; `meridian coordinates build-cache` leaves a current file alone and saves the registry
 * index beside it.
 *
 * @oneDatabase the database only checks the key; what is tested is the coordinates cache and PROJ's work.
 */

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultConfig } from '../../src/config.js';
import {
  computeDefaults,
  currentKey,
  derivedCachePath,
  exportsCachePath,
  readDerivedCache,
  readExportsCache,
  writeDerivedCache,
  writeExportsCache,
  type DefaultTransformations,
  type PresetExports,
} from '../../src/coordinates/derived-cache.js';
import { crsExportsOf, type DeriveTask } from '../../src/coordinates/derive.js';
import { indexCachePath, readIndexCache } from '../../src/coordinates/index-cache.js';
import { CoordinatesPool } from '../../src/coordinates/pool.js';
import { loadRegistry } from '../../src/coordinates/search/registry.js';
import { inlineDeriver, search, SearchCache, searchWith, type Deriver } from '../../src/coordinates/search/search.js';
import { progressOn } from '../../src/platform/progress.js';
import { LogCapture, newAccount, startTestServer, testConfig } from '../helpers.js';
import { tempDir } from '../scratch.js';

const registry = loadRegistry();
/** A registry of its own: `search` on it computes every PROJ field on demand, in-line (and keeps it). */
const onDemand = loadRegistry();
/** Pages of CRSs whose operation search takes long (DHDN, NZGD49, NTF (Paris): grids and chains) and some that take none. */
const QUERIES = ['dhdn', 'nzgd49', 'ntf paris lambert', 'swit', 'utm 33n', 'navd88', 'wgs 84', 'kind:CRS-COMPOUNDCRS rd'];
const options = (query: string) => ({ query, limit: 10, offset: 0, transformations: false, exports: false });
const silent = progressOn({ write: () => true });
/** CH1903+ / LV95 → WGS 84: EPSG's CH1903+ to WGS 84 (1), 1 m. */
const LV95 = { code: 1676, steps: [1676], name: 'CH1903+ to WGS 84 (1)', accuracy: 1 };
const bin = fileURLToPath(new URL('../../../bin/meridian.js', import.meta.url));

/** The CRS codes on the first pages of QUERIES. */
function pageCodes(): number[] {
  const codes = new Set<number>();
  for (const query of QUERIES) for (const item of search(onDemand, options(query)).results) codes.add(item.id.code);
  return [...codes];
}

let computed: { defaults: DefaultTransformations; exports: PresetExports } | undefined;
/** The defaults and exports of the page codes, computed as the build does: on the coordinates pool. */
async function computedForPages(): Promise<{ defaults: DefaultTransformations; exports: PresetExports }> {
  if (computed) return computed;
  const pool = new CoordinatesPool({ ...defaultConfig.coordinates, workers: 2, queue: 2, timeoutMs: 60_000 });
  try {
    const { defaults, exports, leftOut } = await computeDefaults(pageCodes(), (task) => pool.derive(task), 2, silent);
    assert.deepEqual(leftOut, []);
    computed = { defaults, exports };
    return computed;
  } finally {
    await pool.close();
  }
}
const defaultsOfPages = async () => (await computedForPages()).defaults;

test('defaults computed for the cache, written and read back, answer searches as computing them on demand does, with no PROJ work', { timeout: 300_000 }, async () => {
  const defaults = await defaultsOfPages();
  assert.equal(defaults.size, pageCodes().length);
  assert.deepEqual(defaults.get(2056), LV95);
  const file = derivedCachePath(tempDir());
  writeDerivedCache(file, defaults);
  const read = readDerivedCache(file);
  assert.ok('defaults' in read, JSON.stringify(read));
  assert.deepEqual(read.defaults, defaults);

  const tasks: DeriveTask[] = [];
  const watching: Deriver = { timeoutMs: Infinity, derive: (task) => (tasks.push(task), inlineDeriver.derive(task)) };
  const cache = new SearchCache(read.defaults);
  for (const query of QUERIES) {
    assert.deepEqual(await searchWith(registry, cache, watching, options(query)), search(onDemand, options(query)), query);
  }
  assert.deepEqual(tasks, [], 'no PROJ work for fields the cache holds');
});

test('exports computed for the cache, written and read back, are what PROJ gives on demand, and answer exports=true searches with no PROJ work', { timeout: 300_000 }, async () => {
  const { defaults, exports } = await computedForPages();
  assert.equal(exports.size, pageCodes().length);
  for (const code of [2056, 27572, 31467, 4326]) if (exports.has(code)) assert.deepEqual(exports.get(code), crsExportsOf(code), `EPSG:${code}`);
  const file = exportsCachePath(tempDir());
  writeExportsCache(file, exports);
  const read = readExportsCache(file);
  assert.ok('exports' in read, JSON.stringify(read).slice(0, 200));
  assert.deepEqual(read.exports, exports);

  const tasks: DeriveTask[] = [];
  const watching: Deriver = { timeoutMs: Infinity, derive: (task) => (tasks.push(task), inlineDeriver.derive(task)) };
  let asked = 0;
  const cache = new SearchCache(defaults, () => (asked++, read.exports));
  const withExports = (query: string) => ({ ...options(query), exports: true });
  for (const query of QUERIES) {
    assert.deepEqual(await searchWith(registry, cache, watching, withExports(query)), search(onDemand, withExports(query)), query);
  }
  assert.deepEqual(tasks, [], 'no PROJ work for exports the cache holds');
  assert.ok(asked > 0);
  // Searches without exports do not read the file.
  asked = 0;
  await searchWith(registry, new SearchCache(defaults, () => (asked++, read.exports)), watching, options('swit'));
  assert.equal(asked, 0);
});

test('a task that fails is sent again one CRS at a time; a CRS that fails alone twice is left out, named, and the rest is computed', { timeout: 300_000 }, async () => {
  const codes = pageCodes();
  const stuck = codes[3]!;
  const pool = new CoordinatesPool({ ...defaultConfig.coordinates, workers: 2, queue: 2, timeoutMs: 60_000 });
  const notes: string[] = [];
  const updates: number[] = [];
  const progress = { ...silent, note: (message: string) => void notes.push(message), update: (done: number) => void updates.push(done) };
  const sent: number[][] = [];
  try {
    // The real pool, with the thread stopped (as a stuck PROJ call stops it) on every task naming `stuck`.
    const derive = (task: DeriveTask) => {
      sent.push(task.crs.map(({ code }) => code));
      return task.crs.some(({ code }) => code === stuck) ? Promise.reject(new Error('PROJ did not answer')) : pool.derive(task);
    };
    const { defaults, exports, leftOut } = await computeDefaults(codes, derive, 2, progress);
    assert.deepEqual(leftOut, [stuck]);
    assert.equal(defaults.size, codes.length - 1);
    assert.ok(!defaults.has(stuck));
    assert.deepEqual(defaults, new Map([...(await defaultsOfPages())].filter(([code]) => code !== stuck)));
    assert.deepEqual(exports, new Map([...(await computedForPages()).exports].filter(([code]) => code !== stuck)));
    assert.equal(sent.filter((task) => task.length === 1 && task[0] === stuck).length, 2, 'sent alone twice');
    assert.deepEqual(notes, [`EPSG:${stuck} left to compute on first use: PROJ did not answer`]);
    // Progress counts each CRS once, retried or left out, and ends at all of them.
    assert.deepEqual(updates, [...updates].sort((a, b) => a - b), 'progress never goes back');
    assert.equal(updates.at(-1), codes.length);
  } finally {
    await pool.close();
  }
});

test('a cache file for another registry, engine or grid set, or a damaged one, is refused with the reason', () => {
  const file = derivedCachePath(tempDir());
  assert.deepEqual(readDerivedCache(file), { problem: 'no cache file' });
  const key = currentKey();
  const defaults = new Map([[2056, LV95], [4326, null]]);
  for (const other of [{ epsg: 'v12.005' }, { engine: 'proj-wasm@0.1.0-alpha9' }, { proj: '9.8.1' }, { format: 0 }, { grids: '0'.repeat(64) }]) {
    writeDerivedCache(file, defaults, { ...key, ...other });
    const read = readDerivedCache(file);
    assert.ok('problem' in read && /^built for EPSG/.test(read.problem), `${JSON.stringify(other)}: ${JSON.stringify(read)}`);
  }
  writeDerivedCache(file, defaults);
  assert.ok('defaults' in readDerivedCache(file));
  const damaged: [string, RegExp][] = [
    ['{"key":', /^unreadable/],
    ['[]', /^malformed \(no key\)/],
    [JSON.stringify({ key }), /^malformed \(no defaults\)/],
    [JSON.stringify({ key, defaults: [[2056, 1676]] }), /^malformed row/],
    [JSON.stringify({ key, defaults: [[2056, 1676, [1676], 'CH1903+ to WGS 84 (1)', -1]] }), /^malformed row/],
    [JSON.stringify({ key, defaults: [[2056, 1676, [], 'CH1903+ to WGS 84 (1)', 1]] }), /^malformed row/],
    [JSON.stringify({ key, defaults: [[2056, 1676, 1]] }), /^malformed row/],
    [JSON.stringify({ key, defaults: [['2056']] }), /^malformed row/],
  ];
  for (const [text, problem] of damaged) {
    writeFileSync(file, text);
    const read = readDerivedCache(file);
    assert.ok('problem' in read && problem.test(read.problem), `${text}: ${JSON.stringify(read)}`);
  }

  const exportsFile = exportsCachePath(tempDir());
  assert.deepEqual(readExportsCache(exportsFile), { problem: 'no cache file' });
  const exports = new Map([[2056, { proj4: '+proj=somerc +type=crs', wkt: 'PROJCS["CH1903+ / LV95"]' }], [4979, { proj4: null, wkt: null }]]);
  writeExportsCache(exportsFile, exports, { ...key, epsg: 'v12.005' });
  const other = readExportsCache(exportsFile);
  assert.ok('problem' in other && /^built for EPSG v12\.005/.test(other.problem), JSON.stringify(other));
  writeExportsCache(exportsFile, exports);
  assert.deepEqual(readExportsCache(exportsFile), { exports });
  for (const [text, problem] of [
    [JSON.stringify({ key }), /^malformed \(no exports\)/],
    [JSON.stringify({ key, exports: [[2056, '+proj=somerc']] }), /^malformed row/],
    [JSON.stringify({ key, exports: [[2056, 1, null]] }), /^malformed row/],
    [JSON.stringify({ key, exports: [['2056', null, null]] }), /^malformed row/],
  ] as [string, RegExp][]) {
    writeFileSync(exportsFile, text);
    const read = readExportsCache(exportsFile);
    assert.ok('problem' in read && problem.test(read.problem), `${text}: ${JSON.stringify(read)}`);
  }
});

test('the server loads the cache at start-up from coordinates.cacheDir and answers cold searches from it, exports from the exports file on the first search asking; without one it says so and computes', { timeout: 300_000 }, async () => {
  const { defaults, exports } = await computedForPages();
  // One thread, no queue and 100 ms of PROJ a search: a cold page of DHDN's systems needs more.
  // The caches lie in a folder outside the data directory, as a volume instances share would.
  const shared = tempDir();
  const coordinates = { workers: 1, queue: 0, timeoutMs: 100, cacheDir: shared };
  const withCache = testConfig({ coordinates });
  writeDerivedCache(path.join(shared, 'derived-cache.json'), defaults);
  writeExportsCache(path.join(shared, 'exports-cache.json'), exports);
  const logs = new LogCapture();
  const server = await startTestServer({ ...withCache, logLevel: 'info' }, { logStream: logs });
  try {
    const { accountId } = await newAccount(server.meridian);
    const key = (await server.meridian.keys.create(accountId, {})).token;
    const loaded = logs.lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'coordinates cache loaded');
    assert.equal(loaded?.crs, defaults.size, logs.text);
    assert.equal(loaded?.file, path.join(shared, 'derived-cache.json'));
    for (const query of ['dhdn', 'nzgd49']) {
      const response = await server.server.public.inject({ method: 'GET', url: `/coordinates/search/${query}.json?key=${key}` });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), JSON.parse(JSON.stringify(search(onDemand, options(query)))));
    }
    const exportsLoaded = () => logs.lines.map((line) => JSON.parse(line)).find((line) => line.msg === 'coordinates exports cache loaded');
    assert.equal(exportsLoaded(), undefined, 'read on the first search asking for exports, not at start-up');
    for (const query of ['dhdn', 'nzgd49']) {
      const response = await server.server.public.inject({ method: 'GET', url: `/coordinates/search/${query}.json?exports=true&key=${key}` });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), JSON.parse(JSON.stringify(search(onDemand, { ...options(query), exports: true }))));
    }
    assert.equal(exportsLoaded()?.crs, exports.size, logs.text);
  } finally {
    await server.close();
  }

  const stale = testConfig();
  const staleFile = path.join(stale.dataDir, 'coordinates', 'derived-cache.json');
  mkdirSync(path.dirname(staleFile), { recursive: true });
  writeDerivedCache(staleFile, defaults, { ...currentKey(), epsg: 'v10.076' });
  const staleLogs = new LogCapture();
  const second = await startTestServer({ ...stale, logLevel: 'info' }, { logStream: staleLogs });
  try {
    const refused = staleLogs.lines.map((line) => JSON.parse(line)).find((line) => line.msg.startsWith('coordinates cache not used'));
    assert.match(refused?.problem ?? '', /^built for EPSG v10\.076/, staleLogs.text);
    const { accountId } = await newAccount(second.meridian);
    const key = (await second.meridian.keys.create(accountId, {})).token;
    const response = await second.server.public.inject({ method: 'GET', url: `/coordinates/search/swit.json?key=${key}` });
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().results[0].default_transformation.code, 1676);
  } finally {
    await second.close();
  }
});

test('meridian coordinates build-cache leaves a current cache alone and saves the registry index, in <data>/coordinates or MERIDIAN_COORDINATES_CACHE_DIR', () => {
  const dataDir = tempDir();
  const shared = tempDir();
  for (const [folder, env] of [
    [path.join(dataDir, 'coordinates'), {}],
    [shared, { MERIDIAN_COORDINATES_CACHE_DIR: shared }],
  ] as const) {
    writeDerivedCache(derivedCachePath(folder), new Map([[2056, LV95]]));
    writeExportsCache(exportsCachePath(folder), new Map([[2056, crsExportsOf(2056)]]));
    // Had it rebuilt (minutes of work), the report would say built: true.
    const run = spawnSync(process.execPath, [bin, 'coordinates', 'build-cache', '--data', dataDir], { encoding: 'utf8', env: { ...process.env, ...env } });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /are current \(EPSG v\d+\.\d+/);
    const report = JSON.parse(run.stdout);
    assert.deepEqual([report.file, report.built, report.crs, report.withDefault, report.withExports], [path.join(folder, 'derived-cache.json'), false, 1, 1, 1]);
    // The registry index was not saved yet: it is now.
    assert.equal(report.indexBuilt, true);
    assert.ok('registry' in readIndexCache(indexCachePath(folder)));
  }
});
