/**
 * @oneDatabase the database only checks the key; what is tested is vector tiles read from archives.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { acceptsGzip } from '../../../src/maps/serve/tiles-routes.js';
import type { TestServer } from '../../helpers.js';
import { startFixtureServer, type FixtureMap, type FixtureServer } from './interactive-fixture.js';

let served: FixtureServer;
let fixture: FixtureMap;
let server: TestServer;

before(async () => {
  served = await startFixtureServer();
  ({ fixture, server } = served);
});

after(() => served.close());

const get = (url: string, headers: Record<string, string> = {}) => served.get(url, headers);
/** Byte equality whatever the views' types. */
const sameBytes = (actual: Uint8Array, expected: Uint8Array, message?: string) => assert.ok(Buffer.from(actual).equals(Buffer.from(expected)), message);
const stored = (tiles: FixtureMap['gzipped'], z: number, x: number, y: number) => tiles.find((tile) => tile.z === z && tile.x === x && tile.y === y)!.data;

describe('GET /maps/{mapId}/tiles/{source}/{z}/{x}/{y}.{format}', () => {
  test('a gzipped vector tile goes out as stored, with Content-Encoding: gzip, to a client that accepts gzip', async () => {
    for (const [z, x, y] of [[0, 0, 0], [1, 0, 0], [3, 1, 3]] as const) {
      const response = await get(`/maps/test/tiles/places/${z}/${x}/${y}.pbf`, { 'accept-encoding': 'gzip, deflate, br' });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['content-type'], 'application/x-protobuf');
      assert.equal(response.headers['content-encoding'], 'gzip');
      assert.equal(response.headers.vary, 'Accept-Encoding');
      sameBytes(response.rawPayload, stored(fixture.gzipped, z, x, y), `${z}/${x}/${y} byte-identical`);
    }
  });

  test('without gzip in Accept-Encoding the same tile goes out gunzipped', async () => {
    for (const headers of [{}, { 'accept-encoding': 'identity' }, { 'accept-encoding': 'gzip;q=0, br' }] as Record<string, string>[]) {
      const response = await get('/maps/test/tiles/places/1/0/0.pbf', headers);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-encoding'], undefined, JSON.stringify(headers));
      sameBytes(response.rawPayload, gunzipSync(stored(fixture.gzipped, 1, 0, 0)));
    }
  });

  test('a tile stored uncompressed goes out as stored, without Content-Encoding', async () => {
    const response = await get('/maps/test/tiles/plain/1/1/1.pbf', { 'accept-encoding': 'gzip' });
    assert.equal(response.headers['content-encoding'], undefined);
    assert.equal(response.headers.vary, undefined);
    sameBytes(response.rawPayload, stored(fixture.plain, 1, 1, 1));
  });

  test('raster tiles from MBTiles and a folder are their image bytes, with their content type', async () => {
    const raster = await get('/maps/test/tiles/raster/1/1/0.png');
    assert.equal(raster.headers['content-type'], 'image/png');
    sameBytes(raster.rawPayload, stored(fixture.raster, 1, 1, 0));
    const dem = await get('/maps/test/tiles/dem/0/0/0.png');
    sameBytes(dem.rawPayload, fixture.dem);
  });

  test('a GeoJSON source’s tile is MVT with its features in the layer _geojson', async () => {
    for (const source of ['labels', 'inline']) {
      const response = await get(`/maps/test/tiles/${source}/0/0/0.pbf`, { 'accept-encoding': 'gzip' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-encoding'], undefined);
      const layer = new VectorTile(new PbfReader(response.rawPayload)).layers._geojson!;
      assert.equal(layer.extent, 8192);
      assert.deepEqual([layer.length, layer.feature(0).properties.name], [1, 'ten']);
    }
  });

  test('tiles have a Cache-Control and an ETag per representation; If-None-Match gets 304', async () => {
    const gzipped = await get('/maps/test/tiles/places/0/0/0.pbf', { 'accept-encoding': 'gzip' });
    const plain = await get('/maps/test/tiles/places/0/0/0.pbf');
    assert.equal(gzipped.headers['cache-control'], 'public, max-age=86400');
    assert.notEqual(gzipped.headers.etag, plain.headers.etag);
    const again = await get('/maps/test/tiles/places/0/0/0.pbf', { 'accept-encoding': 'gzip', 'if-none-match': String(gzipped.headers.etag) });
    assert.equal(again.statusCode, 304);
    assert.equal(again.rawPayload.length, 0);
  });

  test('a vector tile the source lacks within its zooms and bounds is 204 (empty), so MapLibre shows no error', async () => {
    for (const url of ['/maps/test/tiles/places/1/1/0.pbf', '/maps/test/tiles/plain/3/7/7.pbf', '/maps/test/tiles/bounded/3/0/5.pbf']) {
      const response = await get(url, { 'accept-encoding': 'gzip' });
      assert.equal(response.statusCode, 204, url);
      assert.equal(response.rawPayload.length, 0);
      assert.equal(response.headers['content-encoding'], undefined);
      assert.equal(response.headers['cache-control'], 'public, max-age=86400');
    }
    assert.equal((await get('/maps/test/tiles/bounded/3/1/3.pbf')).statusCode, 200, 'the stored tile inside the bounds');
  });

  test('a tile the source lacks outside its bounds, a raster tile it lacks, or a zoom outside its range, is 404 with the error body', async () => {
    for (const url of ['/maps/test/tiles/bounded/3/5/5.pbf', '/maps/test/tiles/bounded/3/0/0.pbf', '/maps/test/tiles/bounded/3/6/2.pbf', '/maps/test/tiles/places/4/0/0.pbf', '/maps/test/tiles/raster/1/0/0.png', '/maps/test/tiles/nope/0/0/0.pbf', '/maps/nope/tiles/places/0/0/0.pbf', '/maps/test/tiles/labels/19/0/0.pbf']) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), { errors: [{ message: 'The item does not exist' }] });
    }
  });

  test('bad z/x/y and a format that is not the source’s are 400', async () => {
    const cases: [string, string | RegExp][] = [
      ['/maps/test/tiles/places/1/2/0.pbf', 'Out of bounds: x 2 is outside 0..1 at zoom 1'],
      ['/maps/test/tiles/places/1/0/2.pbf', 'Out of bounds: y 2 is outside 0..1 at zoom 1'],
      ['/maps/test/tiles/places/31/0/0.pbf', /z/],
      ['/maps/test/tiles/places/a/0/0.pbf', /z/],
      ['/maps/test/tiles/places/0/-1/0.pbf', /x/],
      ['/maps/test/tiles/places/0/0/0.gif', /format/],
      ['/maps/test/tiles/places/0/0/0.png', 'Invalid format: "png" is not one of pbf'],
      ['/maps/test/tiles/raster/0/0/0.pbf', /^Invalid format: "pbf" is not one of (png|jpg|webp)$/],
    ];
    for (const [url, message] of cases) {
      const response = await get(url);
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      const text = response.json().errors[0].message;
      if (typeof message === 'string') assert.equal(text, message, url);
      else assert.match(text, message, url);
    }
  });

  test('without a valid key a tile is refused with 403', async () => {
    const response = await server.server.public.inject({ method: 'GET', url: '/maps/test/tiles/places/0/0/0.pbf?key=wrong' });
    assert.equal(response.statusCode, 403);
  });
});

test('acceptsGzip reads Accept-Encoding with its weights', () => {
  assert.equal(acceptsGzip(undefined), false);
  assert.equal(acceptsGzip('gzip'), true);
  assert.equal(acceptsGzip('deflate, GZIP;q=0.5'), true);
  assert.equal(acceptsGzip('gzip;q=0'), false);
  assert.equal(acceptsGzip('br, *'), true);
  assert.equal(acceptsGzip('*;q=0'), false);
  assert.equal(acceptsGzip('identity'), false);
});
