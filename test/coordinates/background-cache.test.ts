/**
 * A serving instance builds its coordinates cache in the background when the data directory has
 * none (background-cache.ts, issue 30: the quick start serves at once instead of after minutes of
 * PROJ work): one small task at a time on the coordinates pool, only while no request waits,
 * searches answering meanwhile, the files written when complete, progress in `/ready`.
 *
 * @oneDatabase the database only checks the key; what is tested is the cache build.
 */

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { defaultConfig } from '../../src/config.js';
import { coordinatesCaches } from '../../src/coordinates/background-cache.js';
import { derivedCachePath, exportsCachePath, readDerivedCache, readExportsCache } from '../../src/coordinates/derived-cache.js';
import { crsExportsOf, defaultTransformationOf } from '../../src/coordinates/derive.js';
import { indexCachePath, readIndexCache } from '../../src/coordinates/index-cache.js';
import { CoordinatesPool } from '../../src/coordinates/pool.js';
import { loadRegistry, type Registry } from '../../src/coordinates/search/registry.js';
import { listenWarm, LogCapture, newAccount, startTestServer, testConfig } from '../helpers.js';
import { tempDir } from '../scratch.js';

const full = loadRegistry();
/** Swiss, British, German and UTM systems, and some that need no PROJ search (WGS 84 itself). */
const SAMPLE = [2056, 21781, 27700, 31467, 25832, 32633, 4326, 3857, 4258, 2180, 5514, 31287];
/** The full index with only the sample's CRSs to build: the build walks `crs`, nothing else. */
const sampleRegistry: Registry = { ...full, crs: new Map(SAMPLE.map((code) => [code, full.crs.get(code)!])) };
const config = { ...defaultConfig.coordinates, workers: 1, queue: 4, timeoutMs: 60_000, buildCache: true };

const silentLog = { info: () => {}, warn: () => {} };

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('without a cache the build runs in the background, reports its progress, and saves what PROJ computes for each CRS', { timeout: 300_000 }, async () => {
  const dataDir = tempDir();
  const pool = new CoordinatesPool(config);
  try {
    const caches = coordinatesCaches(dataDir, sampleRegistry, pool, config, silentLog);
    assert.match(caches.status(), /^building: 0 of 12 CRSs$/);
    const seen = new Set<string>();
    await until(() => (seen.add(caches.status()), caches.status() === 'built' || caches.status().startsWith('failed')));
    assert.equal(caches.status(), 'built', [...seen].join(', '));
    assert.ok([...seen].some((status) => /^building: [1-9]\d* of 12 CRSs$/.test(status)), `progress seen: ${[...seen].join(', ')}`);

    // What the files hold is what PROJ gives each CRS on demand, in-line.
    const saved = readDerivedCache(derivedCachePath(dataDir));
    assert.ok('defaults' in saved, JSON.stringify(saved));
    const exports = readExportsCache(exportsCachePath(dataDir));
    assert.ok('exports' in exports, JSON.stringify(exports));
    for (const code of SAMPLE) {
      assert.deepEqual(saved.defaults.get(code), defaultTransformationOf(code), `EPSG:${code} default`);
      assert.deepEqual(exports.exports.get(code), crsExportsOf(code), `EPSG:${code} exports`);
    }
    // The searches of the running server saw the same, as it came.
    assert.deepEqual(caches.defaults.get(2056), saved.defaults.get(2056));
    assert.ok('registry' in readIndexCache(indexCachePath(dataDir)), 'the registry index is saved beside it');

    // The next start reads it.
    const again = coordinatesCaches(dataDir, sampleRegistry, pool, config, silentLog);
    assert.equal(again.status(), 'current');
    assert.deepEqual(again.defaults.get(27700), saved.defaults.get(27700));
  } finally {
    await pool.close();
  }
});

test('the build starts no task while a request has the pool: nothing waits behind the request', { timeout: 300_000 }, async () => {
  const pool = new CoordinatesPool(config);
  try {
    // A cold pair: seconds of PROJ on the only thread.
    let settled = false;
    const request = pool.transform({ points: [{ x: 2557311.5, y: 5856531.5, z: 68.3 }], source: 9928, target: 9289, ops: [] }, silentLog).finally(() => (settled = true));
    await until(() => pool.load().running === 1);
    const caches = coordinatesCaches(tempDir(), sampleRegistry, pool, config, silentLog);
    let checks = 0;
    while (!settled) {
      assert.deepEqual(pool.load(), { running: 1, waiting: 0 }, 'the build queued a task behind the request');
      checks++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(checks > 5, `${checks} checks while the request ran`);
    await request;
    await until(() => caches.status() === 'built');
  } finally {
    await pool.close();
  }
});

test('a build stopped (the server closes) writes nothing, and with buildCache off none starts', { timeout: 300_000 }, async () => {
  const dataDir = tempDir();
  const pool = new CoordinatesPool(config);
  try {
    const caches = coordinatesCaches(dataDir, sampleRegistry, pool, config, silentLog);
    await caches.stop();
    assert.match(caches.status(), /^building: \d+ of 12 CRSs$/);
    assert.equal(existsSync(derivedCachePath(dataDir)), false);

    const off = coordinatesCaches(dataDir, sampleRegistry, pool, { ...config, buildCache: false }, silentLog);
    assert.equal(off.status(), 'off');
    assert.equal(pool.load().running, 0);
  } finally {
    await pool.close();
  }
});

test('a fresh server answers searches during the build, and /ready and the log say how far it is', { timeout: 300_000 }, async () => {
  const logs = new LogCapture();
  // A time limit no load reaches: a cold page is seconds of PROJ beside the build on a busy machine.
  const server = await startTestServer(testConfig({ logLevel: 'info', coordinates: { buildCache: true, timeoutMs: 300_000 } }), { logStream: logs });
  try {
    const { accountId } = await newAccount(server.meridian);
    const key = (await server.meridian.keys.create(accountId, {})).token;
    await listenWarm(server.server);
    const ready = await server.server.public.inject({ method: 'GET', url: '/ready' });
    assert.equal(ready.statusCode, 200);
    assert.match(ready.json().coordinates_cache, /^building: \d+ of \d{4} CRSs$/);
    assert.match(logs.text, /coordinates cache missing: building it in the background/);
    for (const query of ['United Kingdom', 'swiss', 'utm 33n']) {
      const response = await server.server.public.inject({ method: 'GET', url: `/coordinates/search/${encodeURIComponent(query)}.json?key=${key}` });
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
      const first = response.json().results[0];
      assert.ok(first.default_transformation !== undefined && 'accuracy' in first, `${query}: every field the spec names`);
    }
  } finally {
    await server.close();
  }
});
