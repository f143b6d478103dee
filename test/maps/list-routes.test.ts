/**
 * @oneDatabase the database only checks the key; what is tested is the list of maps, read from the map definitions.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

const style = { version: 8, sources: {}, layers: [{ id: 'sea', type: 'background', paint: { 'background-color': '#00f' } }] };
let server: TestServer;
let key: string;

before(async () => {
  server = await startTestServer(
    testConfig({
      maps: {
        definitions: {
          zeta: { style: style as never },
          alpha: { style: { ...style, name: 'Alpha style' } as never, formats: ['png'], attribution: '© Alpha', minzoom: 2, maxzoom: 9 },
          boxed: { style: style as never, formats: ['webp', 'png'], name: 'Boxed', bounds: [5, 45, 11, 48], center: [8.2, 46.8, 7], schema: 'raster' },
        },
      },
    }),
  );
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
});
after(() => server.close());

test('GET /maps lists the configured maps in id order with their names, formats, zooms, attribution, bounds, centre, schema and thumbnail', async () => {
  const response = await server.server.public.inject({ url: `/maps?key=${key}`, headers: { host: 'maps.test' } });
  assert.equal(response.statusCode, 200);
  const { maps } = response.json() as { maps: { id: string; center: number[] }[] };
  // A map without sources shows the world, its middle at the deepest whole zoom that fits a
  // 1024x768 view (the square world is 512 px at zoom 0: zoom 0), within the map's zooms (2 for alpha).
  const centres = maps.map((map) => map.center);
  for (const [i, zoom] of [[0, 2], [2, 0]] as const) {
    assert.ok(Math.abs(centres[i]![0]!) < 1e-9 && Math.abs(centres[i]![1]!) < 1e-9 && centres[i]![2] === zoom, `${maps[i]!.id}: ${centres[i]}`);
  }
  const world = [-180, -85.051129, 180, 85.051129];
  const thumbnail = (id: string, box: number[], format: string) => `http://maps.test/api/maps/${id}/static/${box.join(',')}/256x192.${format}?key=${key}`;
  assert.deepEqual(
    maps.map(({ center: _, ...rest }) => rest),
    [
      { id: 'alpha', name: 'Alpha style', attribution: '© Alpha', minzoom: 2, maxzoom: 9, formats: ['png'], bounds: world, schema: null, thumbnail: thumbnail('alpha', world, 'png') },
      { id: 'boxed', name: 'Boxed', attribution: '', minzoom: 0, maxzoom: 22, formats: ['webp', 'png'], bounds: [5, 45, 11, 48], schema: 'raster', thumbnail: thumbnail('boxed', [5, 45, 11, 48], 'webp') },
      { id: 'zeta', name: 'zeta', attribution: '', minzoom: 0, maxzoom: 22, formats: ['png', 'jpg', 'webp'], bounds: world, schema: null, thumbnail: thumbnail('zeta', world, 'png') },
    ],
  );
  assert.deepEqual(centres[1], [8.2, 46.8, 7], 'the definition’s centre');
});

test('the thumbnail is a static image of the map', async () => {
  const response = await server.server.public.inject({ url: `/maps?key=${key}`, headers: { host: 'maps.test' } });
  const { maps } = response.json() as { maps: { thumbnail: string }[] };
  const url = new URL(maps[1]!.thumbnail);
  const image = await server.server.public.inject({ url: url.pathname + url.search, headers: { host: 'maps.test' } });
  assert.equal(image.statusCode, 200, image.body);
  assert.equal(image.headers['content-type'], 'image/webp');
});

test('GET /maps is behind the key gate', async () => {
  const response = await server.server.public.inject('/maps?key=nope');
  assert.equal(response.statusCode, 403);
  assert.equal(response.json().errors[0].message, 'Key is missing, invalid or restricted');
});

test('a thumbnail is drawn once per map revision and format and then served from memory; other images of the map are not kept', async () => {
  const { maps } = (await server.server.public.inject({ url: `/maps?key=${key}`, headers: { host: 'maps.test' } })).json() as { maps: { id: string; thumbnail: string }[] };
  const url = new URL(maps.find((m) => m.id === 'zeta')!.thumbnail);
  const first = await server.server.public.inject({ url: url.pathname + url.search });
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.headers['x-cache'], 'miss');
  const again = await server.server.public.inject({ url: url.pathname + url.search });
  assert.equal(again.headers['x-cache'], 'hit');
  assert.deepEqual(again.rawPayload, first.rawPayload);
  // The same image as the static API draws it when it is not a thumbnail (another query: drawn anew).
  const drawn = await server.server.public.inject({ url: `${url.pathname}${url.search}&padding=0.1` });
  assert.equal(drawn.headers['x-cache'], undefined);
  assert.deepEqual(drawn.rawPayload, first.rawPayload);
  // Another format is another thumbnail; another size, or @2x, no thumbnail at all.
  const webp = await server.server.public.inject({ url: url.pathname.replace(/\.png$/, '.webp') + url.search });
  assert.equal(webp.headers['x-cache'], 'miss');
  for (const other of [url.pathname.replace('256x192', '256x193'), url.pathname.replace('256x192.png', '256x192@2x.png')]) {
    const response = await server.server.public.inject({ url: other + url.search });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['x-cache'], undefined, other);
  }
});
