/**
 * @oneDatabase the database only checks the key; what is tested is response compression.
 */

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { encode } from 'fast-png';
import { consoleRoutes } from '../../src/platform/http/console.js';
import { createHttpApp } from '../../src/platform/http/server.js';
import { collection, mvtPyramid, point, writePmtiles } from '../render/source/fixtures.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { defaultConfig } from '../../src/config.js';
import { tempDir } from '../scratch.js';

let server: TestServer;
let dir: string;
let key: string;
/** A vector tile over 1 KB (the compression threshold) as stored, and a PNG of noise. */
let vectorTile: Uint8Array;
let noise: Uint8Array;

before(async () => {
  dir = tempDir();
  const places = collection(...Array.from({ length: 400 }, (_, i) => point(-170 + (i % 40) * 8.5, -70 + Math.floor(i / 40) * 14, { name: `place ${i}` })));
  const tiles = mvtPyramid(places, 0);
  vectorTile = tiles[0]!.data;
  await writePmtiles(path.join(dir, 'plain.pmtiles'), tiles, 'mvt');
  await writePmtiles(path.join(dir, 'gzipped.pmtiles'), tiles.map((tile) => ({ ...tile, data: gzipSync(tile.data) })), 'mvt', {}, 'gzip');
  noise = encode({ width: 64, height: 64, data: randomBytes(64 * 64 * 4), channels: 4 });
  mkdirSync(path.join(dir, 'noise/0/0'), { recursive: true });
  writeFileSync(path.join(dir, 'noise/0/0/0.png'), noise);
  const style = {
    version: 8,
    sources: {
      plain: { type: 'vector', url: 'pmtiles://plain.pmtiles' },
      gzipped: { type: 'vector', url: 'pmtiles://gzipped.pmtiles' },
      noise: { type: 'raster', tiles: ['noise/{z}/{x}/{y}.png'], tileSize: 256, maxzoom: 0 },
    },
    // Enough layers for a style.json over the threshold.
    layers: Array.from({ length: 30 }, (_, i) => ({ id: `places-${i}`, type: 'circle', source: 'plain', 'source-layer': 'places', paint: { 'circle-radius': i + 1 } })),
  };
  writeFileSync(path.join(dir, 'style.json'), JSON.stringify(style));
  server = await startTestServer(testConfig({ maps: { definitions: { c: { style: path.join(dir, 'style.json') } } as never } }));
  key = (await server.meridian.keys.create((await newAccount(server.meridian)).accountId, {})).token;
});

after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string, acceptEncoding?: string) =>
  server.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${key}`, headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} });

const decoders: Record<string, (bytes: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

test('JSON (the OpenAPI document, style.json) is sent brotli- or gzip-compressed as accepted, and decompresses to the same document', async () => {
  for (const url of ['/openapi.json', '/maps/c/style.json']) {
    const plain = await get(url);
    assert.equal(plain.headers['content-encoding'], undefined, `${url} without Accept-Encoding`);
    for (const [accept, encoding] of [['br', 'br'], ['gzip', 'gzip'], ['gzip, deflate, br', 'br'], ['br;q=0.5, gzip', 'gzip']] as const) {
      const response = await get(url, accept);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-encoding'], encoding, `${url} ${accept}`);
      assert.match(String(response.headers.vary), /accept-encoding/i);
      assert.ok(response.rawPayload.length < plain.rawPayload.length, 'smaller');
      assert.deepEqual(JSON.parse(decoders[encoding]!(response.rawPayload).toString('utf8')), plain.json(), `${url} ${accept}`);
    }
  }
});

test('a vector tile stored uncompressed is compressed for the client', async () => {
  for (const encoding of ['br', 'gzip']) {
    const response = await get('/maps/c/tiles/plain/0/0/0.pbf', encoding);
    assert.equal(response.headers['content-encoding'], encoding);
    assert.ok(Buffer.from(decoders[encoding]!(response.rawPayload)).equals(Buffer.from(vectorTile)));
  }
});

test('a vector tile stored gzipped is sent as stored, never compressed twice', async () => {
  const gzipped = await get('/maps/c/tiles/gzipped/0/0/0.pbf', 'gzip, br');
  assert.equal(gzipped.headers['content-encoding'], 'gzip');
  assert.ok(gunzipSync(gzipped.rawPayload).equals(Buffer.from(vectorTile)), 'one gunzip gives the tile');
  // A client without gzip gets it gunzipped by the route, then brotli-compressed.
  const brotli = await get('/maps/c/tiles/gzipped/0/0/0.pbf', 'br');
  assert.equal(brotli.headers['content-encoding'], 'br');
  assert.ok(brotliDecompressSync(brotli.rawPayload).equals(Buffer.from(vectorTile)));
});

test('a body compressed for the client carries a weak ETag of its uncompressed bytes, which still answers 304; a body sent as stored keeps its strong tag', async () => {
  const plain = await get('/maps/c/style.json');
  const strong = String(plain.headers.etag);
  assert.match(strong, /^"/);
  const compressed = await get('/maps/c/style.json', 'br');
  assert.equal(compressed.headers['content-encoding'], 'br');
  assert.equal(compressed.headers.etag, `W/${strong}`);
  const again = await server.server.public.inject({
    method: 'GET',
    url: `/maps/c/style.json?key=${key}`,
    headers: { 'accept-encoding': 'br', 'if-none-match': String(compressed.headers.etag) },
  });
  assert.equal(again.statusCode, 304);
  const stored = await get('/maps/c/tiles/gzipped/0/0/0.pbf', 'gzip');
  assert.equal(stored.headers['content-encoding'], 'gzip');
  assert.match(String(stored.headers.etag), /^"/, 'the tag of the bytes sent');
});

test('images are sent untouched whatever the client accepts', async () => {
  assert.ok(noise.length > 1024, 'over the threshold');
  const response = await get('/maps/c/tiles/noise/0/0/0.png', 'gzip, deflate, br');
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'image/png');
  assert.equal(response.headers['content-encoding'], undefined);
  assert.ok(response.rawPayload.equals(Buffer.from(noise)));
});

test('identity, q=0 and unknown encodings get the bytes uncompressed', async () => {
  for (const accept of ['identity', 'gzip;q=0, br;q=0', 'compress']) {
    const response = await get('/openapi.json', accept);
    assert.equal(response.statusCode, 200, accept);
    assert.equal(response.headers['content-encoding'], undefined, accept);
    assert.ok(response.json().paths);
  }
});

test('a compressed request body is not inflated: 415 naming identity, so no body can expand past the limit', async () => {
  const { auth } = await newAccount(server.meridian, 'compressed');
  const headers = { 'content-type': 'application/json', authorization: auth };
  const plain = await server.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers, payload: JSON.stringify({ name: 'x' }) });
  assert.equal(plain.statusCode, 200);
  const gzipped = await server.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { ...headers, 'content-encoding': 'gzip' }, payload: gzipSync(JSON.stringify({ name: 'x' })) });
  assert.equal(gzipped.statusCode, 415, gzipped.body);
  assert.equal(gzipped.headers['accept-encoding'], 'identity');
  assert.ok(gzipped.json().errors[0].message);
});

test("the console's page and assets are compressed as they stream from disk", async () => {
  const root = tempDir();
  mkdirSync(path.join(root, 'assets'));
  const script = `export const places = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `place ${i}`))};\n`;
  writeFileSync(path.join(root, 'index.html'), `<!doctype html><title>console</title>${'<p>padding</p>'.repeat(100)}`);
  writeFileSync(path.join(root, 'assets/index-abc.js'), script);
  const app = await createHttpApp({ logLevel: 'silent', trustProxy: false, title: 'test', sharedSchemas: [], http: defaultConfig.http });
  await app.register(consoleRoutes, { root });
  try {
    for (const [url, encoding] of [['/console/assets/index-abc.js', 'br'], ['/console/', 'gzip']] as const) {
      const response = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': encoding } });
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['content-encoding'], encoding, url);
      const plain = await app.inject({ method: 'GET', url });
      assert.equal(decoders[encoding]!(response.rawPayload).toString('utf8'), plain.body, url);
    }
  } finally {
    await app.close();
    rmSync(root, { recursive: true, force: true });
  }
});
