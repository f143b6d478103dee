/**
 * @oneDatabase the database only checks the key; what is tested is style.json and TileJSON.
 */

import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { writeFixtureMap, type FixtureMap } from './interactive-fixture.js';

let fixture: FixtureMap;
let server: TestServer;
let proxied: TestServer;
let key: string;
let proxiedKey: string;

before(async () => {
  fixture = await writeFixtureMap();
  server = await startTestServer(testConfig({ maps: { definitions: fixture.definitions as never } }));
  proxied = await startTestServer(testConfig({ trustProxy: true, maps: { definitions: fixture.definitions as never } }));
  key = (await server.meridian.keys.create((await newAccount(server.meridian)).accountId, {})).token;
  proxiedKey = (await proxied.meridian.keys.create((await newAccount(proxied.meridian)).accountId, {})).token;
});

after(async () => {
  await server.close();
  await proxied.close();
  rmSync(fixture.dir, { recursive: true, force: true });
});

const forwarded = { host: 'meridian.test:8080', 'x-forwarded-host': 'maps.example.com', 'x-forwarded-proto': 'https' };
const get = (url: string, headers: Record<string, string> = {}, on = server, token = key) =>
  on.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${encodeURIComponent(token)}`, headers });

describe('GET /maps/{mapId}/style.json', () => {
  test('every source, the glyphs and the sprite point at Meridian, absolute, with the same key', async () => {
    const response = await get('/maps/test/style.json', { host: 'meridian.test:8080' });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    const style = response.json();
    const base = 'http://meridian.test:8080';
    const q = `?key=${encodeURIComponent(key)}`;
    assert.deepEqual(style.sources.places, { type: 'vector', url: `${base}/maps/test/sources/places.json${q}` });
    assert.deepEqual(style.sources.plain, { type: 'vector', attribution: 'Plain', url: `${base}/maps/test/sources/plain.json${q}` });
    assert.deepEqual(style.sources.raster, { type: 'raster', tileSize: 256, url: `${base}/maps/test/sources/raster.json${q}` }, 'scheme goes');
    assert.deepEqual(style.sources.dem, { type: 'raster-dem', encoding: 'terrarium', tileSize: 256, maxzoom: 0, url: `${base}/maps/test/sources/dem.json${q}` }, 'tiles go');
    assert.deepEqual(style.sources.labels, { type: 'geojson', data: `${base}/maps/test/data/labels.geojson${q}` }, 'file data is served by Meridian');
    assert.deepEqual(style.sources.inline.data, JSON.parse(fixture.labels), 'inline data stays');
    assert.equal(style.glyphs, `${base}/fonts/{fontstack}/{range}.pbf${q}`);
    assert.equal(style.sprite, `${base}/maps/test/sprite${q}`);
    assert.deepEqual(style.layers.map((layer: { id: string }) => layer.id), ['background', 'places', 'labels']);
  });

  test('the array form of sprite stays an array, one Meridian URL per entry', async () => {
    const style = (await get('/maps/arrays/style.json', { host: 'h' })).json();
    const q = `?key=${encodeURIComponent(key)}`;
    assert.deepEqual(style.sprite, [
      { id: 'default', url: `http://h/maps/arrays/sprite/default${q}` },
      { id: 'icons', url: `http://h/maps/arrays/sprite/icons${q}` },
    ]);
  });

  test('X-Forwarded-Host and -Proto are honoured only with trustProxy', async () => {
    const direct = (await get('/maps/test/style.json', forwarded)).json();
    assert.match(direct.glyphs, /^http:\/\/meridian\.test:8080\/fonts\//);
    const behindProxy = (await get('/maps/test/style.json', forwarded, proxied, proxiedKey)).json();
    assert.match(behindProxy.glyphs, /^https:\/\/maps\.example\.com\/fonts\//);
    assert.match(behindProxy.sources.places.url, /^https:\/\/maps\.example\.com\/maps\/test\/sources\/places\.json\?key=/);
  });

  test('the style has Cache-Control and an ETag; If-None-Match gets 304', async () => {
    const first = await get('/maps/test/style.json');
    assert.equal(first.headers['cache-control'], 'public, max-age=86400');
    assert.match(String(first.headers.etag), /^"[\w-]{32}"$/);
    const again = await get('/maps/test/style.json', { 'if-none-match': String(first.headers.etag) });
    assert.equal(again.statusCode, 304);
    const elsewhere = await get('/maps/test/style.json', { host: 'other.test', 'if-none-match': String(first.headers.etag) });
    assert.equal(elsewhere.statusCode, 200, 'another host is another document');
  });

  test('an unknown map is 404 and a missing key 403', async () => {
    const unknown = await get('/maps/nope/style.json');
    assert.equal(unknown.statusCode, 404);
    assert.deepEqual(unknown.json(), { errors: [{ message: 'The item does not exist' }] });
    const keyless = await server.server.public.inject({ method: 'GET', url: '/maps/test/style.json' });
    assert.equal(keyless.statusCode, 403);
    assert.equal(keyless.headers['access-control-allow-origin'], '*');
  });
});

describe('GET /maps/{mapId}/sources/{source}.json', () => {
  const q = () => `?key=${encodeURIComponent(key)}`;

  test('a vector archive: tiles, zoom range, bounds, centre, attribution and its vector_layers', async () => {
    const response = await get('/maps/test/sources/places.json', { host: 'h' });
    assert.equal(response.statusCode, 200, response.body);
    const tilejson = response.json();
    // Where the map opens, as style.json says it (inside the archive's bounds and zooms here).
    const style = (await get('/maps/test/style.json')).json() as { center: number[]; zoom: number };
    assert.deepEqual(tilejson, {
      tilejson: '3.0.0',
      name: 'places',
      tiles: [`http://h/maps/test/tiles/places/{z}/{x}/{y}.pbf${q()}`],
      scheme: 'xyz',
      minzoom: 0,
      maxzoom: 3,
      bounds: [-170, -80, 170, 80],
      center: [...style.center, style.zoom],
      attribution: '© Places',
      vector_layers: [{ id: 'places', fields: { name: 'String' } }],
    });
    assert.match(String(response.headers.etag), /^"[\w-]{32}"$/);
  });

  test('an archive without vector_layers has none; the style’s attribution wins', async () => {
    const tilejson = (await get('/maps/test/sources/plain.json')).json();
    assert.equal(tilejson.vector_layers, undefined);
    assert.equal(tilejson.attribution, 'Plain');
  });

  test('raster sources give their image format and tileSize; raster-dem its encoding', async () => {
    const raster = (await get('/maps/test/sources/raster.json', { host: 'h' })).json();
    assert.deepEqual([raster.tiles, raster.tileSize, raster.minzoom, raster.maxzoom, raster.attribution], [[`http://h/maps/test/tiles/raster/{z}/{x}/{y}.png${q()}`], 256, 0, 1, '© Raster']);
    const dem = (await get('/maps/test/sources/dem.json')).json();
    assert.deepEqual([dem.encoding, dem.tileSize, dem.maxzoom], ['terrarium', 256, 0]);
    assert.match(dem.tiles[0], /\/tiles\/dem\/\{z\}\/\{x\}\/\{y\}\.png\?key=/);
  });

  test('a GeoJSON source has Meridian’s vector tiles with one layer, _geojson', async () => {
    const inline = (await get('/maps/test/sources/inline.json')).json();
    assert.deepEqual(inline.vector_layers, [{ id: '_geojson', fields: {}, minzoom: 0, maxzoom: 10 }]);
    assert.equal(inline.maxzoom, 10);
    assert.match(inline.tiles[0], /\/tiles\/inline\/\{z\}\/\{x\}\/\{y\}\.pbf\?key=/);
  });

  test('an unknown source is 404', async () => {
    assert.equal((await get('/maps/test/sources/nope.json')).statusCode, 404);
    assert.equal((await get('/maps/nope/sources/places.json')).statusCode, 404);
  });
});

describe('GET /maps/{mapId}/data/{source}.geojson', () => {
  test('the file of a GeoJSON source, byte for byte, with caching headers', async () => {
    const response = await get('/maps/test/data/labels.geojson');
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/geo+json');
    assert.equal(response.body, readFileSync(path.join(fixture.dir, 'labels.geojson'), 'utf8'));
    const again = await get('/maps/test/data/labels.geojson', { 'if-none-match': String(response.headers.etag) });
    assert.equal(again.statusCode, 304);
  });

  test('inline data and other sources have no file: 404', async () => {
    assert.equal((await get('/maps/test/data/inline.geojson')).statusCode, 404);
    assert.equal((await get('/maps/test/data/places.geojson')).statusCode, 404);
  });
});

test('the OpenAPI document lists every interactive-map route as gated', async () => {
  const response = await server.server.public.inject({ method: 'GET', url: '/openapi.json' });
  assert.equal(response.statusCode, 200);
  const paths = response.json().paths as Record<string, { get: { security: unknown; tags: string[] } }>;
  const routes = [
    '/maps/{mapId}/style.json',
    '/maps/{mapId}/sources/{source}.json',
    '/maps/{mapId}/data/{source}.geojson',
    '/maps/{mapId}/tiles/{source}/{z}/{x}/{y}.{format}',
    '/fonts/{fontstack}/{range}.pbf',
    '/maps/{mapId}/sprite.json',
    '/maps/{mapId}/sprite@2x.png',
    '/maps/{mapId}/sprite/{file}',
  ];
  for (const route of routes) {
    assert.ok(paths[route], `${route} in ${Object.keys(paths).filter((p) => p.includes('maps') || p.includes('fonts')).join(' ')}`);
    assert.deepEqual(paths[route]!.get.security, [{ apiKey: [] }], route);
    assert.deepEqual(paths[route]!.get.tags, ['interactive maps'], route);
  }
});
