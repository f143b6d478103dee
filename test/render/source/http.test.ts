import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveSource } from '../../../src/render/source/resolve.js';
import type { RasterTile, VectorTile } from '../../../src/render/source/source.js';
import { tempDir } from '../../scratch.js';
import { bigCache, collection, httpServer, MemoryLog, mvtPyramid, point, solidImage } from './fixtures.js';

const options = (log = new MemoryLog(), http = { timeoutMs: 2000, concurrency: 4 }) => ({ baseDir: '/nowhere', cache: bigCache(), log, mapName: 'map "test"', http });
const red = solidImage('red');

test('http tiles: 200 is a tile, 404 and 204 are none, other failures are none with one warning', async () => {
  const server = await httpServer((request, response) => {
    const status = { '/0/0/0.png': 200, '/1/0/0.png': 404, '/1/1/0.png': 204 }[(request.url ?? '').split('?')[0]!] ?? 500;
    response.statusCode = status;
    response.end(status === 200 ? red : undefined);
  });
  const log = new MemoryLog();
  try {
    const source = await resolveSource('osm', { type: 'raster', tiles: [`${server.url}/{z}/{x}/{y}.png?key=secret`], tileSize: 256 }, options(log));
    assert.equal(((await source.getTile(0, 0, 0)) as RasterTile).width, 256);
    assert.equal(await source.getTile(1, 0, 0), null);
    assert.equal(await source.getTile(1, 1, 0), null);
    assert.deepEqual(log.warnings, []);
    assert.equal(await source.getTile(1, 0, 1), null);
    assert.equal(await source.getTile(1, 1, 1), null);
    assert.equal(log.warnings.length, 1, 'one warning per source');
    assert.match(log.warnings[0]!, /source "osm": tile 1\/0\/1 failed .*HTTP 500/);
    assert.doesNotMatch(log.warnings[0]!, /secret/, 'credentials in URLs are redacted');
    await source.getTile(1, 0, 1);
    assert.equal(server.requests.filter((url) => url.startsWith('/1/0/1')).length, 2, 'a failure is not cached');
    await source.getTile(1, 0, 0);
    assert.equal(server.requests.filter((url) => url.startsWith('/1/0/0')).length, 1, 'a missing tile is cached');
  } finally {
    await server.close();
  }
});

test('a tile server that does not answer in time gives no tile, each source keeping to its own timeout', { timeout: 30_000 }, async () => {
  // Never answers; closing the server drops the connections.
  const server = await httpServer(() => {});
  const log = new MemoryLog();
  const patientLog = new MemoryLog();
  let patientAnswered = false;
  let patient: Promise<unknown> = Promise.resolve();
  try {
    // No clock is read: a source with a timeout of a minute asks first, one of 100 ms second. The
    // second gives up while the first still waits, so each keeps to its own timeout (with one
    // timeout for both, the first would give up first).
    const first = await resolveSource('patient', { type: 'raster', tiles: [`${server.url}/patient/{z}/{x}/{y}.png`] }, options(patientLog, { timeoutMs: 60_000, concurrency: 4 }));
    const second = await resolveSource('slow', { type: 'raster', tiles: [`${server.url}/slow/{z}/{x}/{y}.png`] }, options(log, { timeoutMs: 100, concurrency: 4 }));
    patient = first.getTile(0, 0, 0).then((tile) => {
      patientAnswered = true;
      return tile;
    });
    while (!server.requests.includes('/patient/0/0/0.png')) await sleep(5);
    assert.equal(await second.getTile(0, 0, 0), null);
    assert.match(log.warnings[0]!, /timed out/);
    assert.equal(patientAnswered, false, 'the source with a timeout of a minute is still waiting');
    assert.deepEqual([...server.requests].sort(), ['/patient/0/0/0.png', '/slow/0/0/0.png']);
  } finally {
    await server.close();
  }
  // The dropped connection ends the patient request too: no tile, and not a time-out.
  assert.equal(await patient, null);
  assert.doesNotMatch(patientLog.warnings.join('\n'), /timed out/);
});

test('a source keeps at most `concurrency` requests in flight', async () => {
  let inFlight = 0;
  let most = 0;
  const server = await httpServer(async (_request, response) => {
    most = Math.max(most, ++inFlight);
    await sleep(20);
    inFlight--;
    response.end(red);
  });
  try {
    const source = await resolveSource('busy', { type: 'raster', tiles: [`${server.url}/{z}/{x}/{y}.png`] }, options(new MemoryLog(), { timeoutMs: 2000, concurrency: 3 }));
    const tiles = await Promise.all(Array.from({ length: 16 }, (_, i) => source.getTile(2, i % 4, Math.floor(i / 4))));
    assert.ok(tiles.every((tile) => tile?.kind === 'raster'));
    assert.equal(most, 3);
  } finally {
    await server.close();
  }
});

test('a TileJSON url gives tiles (relative to it), zoom range, bounds, attribution; the style wins', async () => {
  const tiles = mvtPyramid(collection(point(10, 10, { name: 'a' })), 2);
  const server = await httpServer((request, response) => {
    if (request.url === '/v/tiles.json') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ tilejson: '3.0.0', tiles: ['{z}/{x}/{y}.pbf'], minzoom: 0, maxzoom: 2, bounds: [0, 0, 20, 20], attribution: 'TJ' }));
      return;
    }
    const [, z, x, y] = (/^\/v\/(\d+)\/(\d+)\/(\d+)\.pbf$/.exec(request.url ?? '') ?? []).map(Number);
    const tile = tiles.find((t) => t.z === z && t.x === x && t.y === y);
    response.statusCode = tile ? 200 : 404;
    response.end(tile ? Buffer.from(tile.data) : undefined);
  });
  try {
    const source = await resolveSource('v', { type: 'vector', url: `${server.url}/v/tiles.json` }, options());
    assert.deepEqual([source.minzoom, source.maxzoom, source.bounds, source.attribution], [0, 2, [0, 0, 20, 20], 'TJ']);
    const tile = (await source.getTile(2, 2, 1)) as VectorTile;
    assert.equal(tile.layers.get('places')!.features[0]!.properties.name, 'a');
    await source.close();
    const styled = await resolveSource('v', { type: 'vector', url: `${server.url}/v/tiles.json`, maxzoom: 1, attribution: 'S' }, options());
    assert.deepEqual([styled.maxzoom, styled.attribution], [1, 'S']);
    await assert.rejects(resolveSource('v', { type: 'vector', url: `${server.url}/missing.json` }, options()), /missing\.json: HTTP 500|missing\.json: not found/);
  } finally {
    await server.close();
  }
});

test('a local TileJSON file points at tiles relative to itself; raster-dem encoding comes from it', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'dem', '0', '0'), { recursive: true });
  writeFileSync(path.join(dir, 'dem', '0', '0', '0.png'), solidImage('rgb(1, 134, 160)'));
  writeFileSync(path.join(dir, 'dem', 'tiles.json'), JSON.stringify({ tiles: ['{z}/{x}/{y}.png'], maxzoom: 0, encoding: 'terrarium', tileSize: 256 }));
  const source = await resolveSource('dem', { type: 'raster-dem', url: 'dem/tiles.json' }, { ...options(), baseDir: dir });
  assert.deepEqual([source.kind, source.encoding, source.tileSize, source.maxzoom], ['raster-dem', 'terrarium', 256, 0]);
  const tile = (await source.getTile(0, 0, 0)) as RasterTile;
  assert.deepEqual([...tile.pixels().subarray(0, 4)], [1, 134, 160, 255]);
  const mapbox = await resolveSource('dem', { type: 'raster-dem', tiles: ['dem/{z}/{x}/{y}.png'] }, { ...options(), baseDir: dir });
  assert.equal(mapbox.encoding, 'mapbox', 'the default encoding');
  await assert.rejects(resolveSource('dem', { type: 'raster-dem', url: 'dem/tiles.json', encoding: 'custom' }, { ...options(), baseDir: dir }), /encoding "custom" is not supported/);
  await assert.rejects(resolveSource('dem', { type: 'raster-dem', url: 'dem/none.json' }, { ...options(), baseDir: dir }), /cannot read TileJSON/);
});

test('getTileData hands on a remote tile’s bytes as the server sent them, and throws when the server fails', async () => {
  const webp = solidImage('red', 'webp');
  const server = await httpServer((request, response) => {
    const status = { '/0/0/0.webp': 200, '/1/0/0.webp': 404 }[request.url ?? ''] ?? 500;
    response.statusCode = status;
    response.end(status === 200 ? webp : undefined);
  });
  try {
    const source = await resolveSource('osm', { type: 'raster', tiles: [`${server.url}/{z}/{x}/{y}.webp`] }, options());
    assert.equal(source.format, 'webp', 'the templates’ extension');
    const tile = await source.getTileData(0, 0, 0);
    assert.equal(tile?.contentType, 'image/webp');
    assert.ok(Buffer.from(tile!.data).equals(Buffer.from(webp)));
    assert.equal(await source.getTileData(1, 0, 0), null);
    await assert.rejects(source.getTileData(1, 1, 1), /HTTP 500/);
  } finally {
    await server.close();
  }
});
