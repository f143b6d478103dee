/**
 * @oneDatabase the database only checks the key; what is tested is static images: the URL grammar, rendering and encoding.
 */

import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import sharp from 'sharp';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { defaultConfig } from '../../../src/config.js';

/** A small map: a blue sea, one green square of land around 0,0 and a red line. */
const style = {
  version: 8,
  sources: {
    land: {
      type: 'geojson',
      attribution: '© Test Data',
      data: {
        type: 'FeatureCollection',
        features: [
          { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-20, -20], [20, -20], [20, 20], [-20, 20], [-20, -20]]] } },
          { type: 'Feature', properties: {}, geometry: { type: 'LineString', coordinates: [[-60, 40], [60, 40]] } },
        ],
      },
    },
  },
  layers: [
    { id: 'sea', type: 'background', paint: { 'background-color': '#0000ff' } },
    { id: 'land', type: 'fill', source: 'land', filter: ['==', ['geometry-type'], 'Polygon'], paint: { 'fill-color': '#00ff00', 'fill-antialias': false } },
    { id: 'line', type: 'line', source: 'land', filter: ['==', ['geometry-type'], 'LineString'], paint: { 'line-color': '#ff0000', 'line-width': 4 } },
  ],
};

let server: TestServer;
let key: string;
let icons: HttpServer;
let iconBase: string;

before(async () => {
  const pin = await sharp({ create: { width: 10, height: 20, channels: 4, background: '#ff00ff' } }).png().toBuffer();
  icons = createHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(pin));
  await new Promise<void>((resolve) => icons.listen(0, '127.0.0.1', resolve));
  iconBase = `http://127.0.0.1:${(icons.address() as AddressInfo).port}`;
  server = await startTestServer(
    testConfig({
      maps: {
        definitions: {
          test: { style: style as never, maxzoom: 12 },
          pngonly: { style: style as never, formats: ['png'], attribution: '' },
        },
        icons: { ...defaultConfig.maps.icons, maxBytes: 1 << 20, timeoutMs: 2000, cacheEntries: 8, allowPrivateAddresses: true },
      },
    }),
  );
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
});

after(async () => {
  await server.close();
  icons.close();
});

const get = (url: string, headers: Record<string, string> = {}) =>
  server.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${key}`, headers });

async function pixels(body: Buffer) {
  const { data, info } = await sharp(body).raw().toBuffer({ resolveWithObject: true });
  return { info, at: (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)] };
}

describe('GET /api/maps/{mapId}/static/...', () => {
  test('a centre image is the map at that view, at the asked size and format', async () => {
    const response = await get('/api/maps/test/static/0,0,2/300x200.png?attribution=false');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'image/png');
    const image = await pixels(response.rawPayload);
    assert.deepEqual([image.info.width, image.info.height], [300, 200]);
    assert.deepEqual(image.at(150, 100), [0, 255, 0], 'land in the middle');
    assert.deepEqual(image.at(5, 5), [0, 0, 255], 'sea in the corner');
  });

  test('@2x doubles the pixels of the same view', async () => {
    const response = await get('/api/maps/test/static/0,0,2/300x200@2x.png?attribution=false');
    const image = await pixels(response.rawPayload);
    assert.deepEqual([image.info.width, image.info.height], [600, 400]);
    assert.deepEqual(image.at(300, 200), [0, 255, 0]);
  });

  test('jpg and webp have their content types; equal requests give identical bytes with an ETag', async () => {
    for (const [format, type] of [['jpg', 'image/jpeg'], ['webp', 'image/webp'], ['png', 'image/png']]) {
      const url = `/api/maps/test/static/0,0,1/64x64.${format}`;
      const [a, b] = [await get(url), await get(url)];
      assert.equal(a.headers['content-type'], type);
      assert.deepEqual(a.rawPayload, b.rawPayload);
      assert.match(String(a.headers.etag), /^"[\w-]{32}"$/);
      assert.equal(a.headers['cache-control'], 'public, max-age=86400');
      const again = await get(url, { 'if-none-match': String(a.headers.etag) });
      assert.equal(again.statusCode, 304);
      assert.equal(again.rawPayload.length, 0);
    }
  });

  test('a jpg has no alpha: what the map leaves transparent (beyond the world) is white, translucent paths over white', async () => {
    // At zoom 0 a 512 px world leaves 100 px above and below a 712 px tall image.
    const url = '/api/maps/test/static/0,0,0/512x712.jpg?attribution=false&path=stroke:rgba(255,0,0,0.5)|width:20|-170,0|170,0';
    const image = await pixels((await get(url)).rawPayload);
    const near = (actual: number[], expected: number[]) => actual.every((value, i) => Math.abs(value - expected[i]!) <= 6);
    assert.ok(near(image.at(256, 20), [255, 255, 255]), `white above the world, not ${image.at(256, 20)}`);
    assert.ok(near(image.at(20, 356), [128, 0, 128]), `half-red over the blue sea, not ${image.at(20, 356)}`);
    const png = await pixels((await get(url.replace('.jpg', '.png'))).rawPayload);
    assert.equal(png.info.channels, 4);
  });

  test('bounds and auto views fit what they are given; the attribution box is drawn by default', async () => {
    const bounds = await get('/api/maps/test/static/-20,-20,20,20/200x200.png?padding=0');
    const image = await pixels(bounds.rawPayload);
    assert.deepEqual(image.at(100, 100), [0, 255, 0]);
    assert.deepEqual(image.at(3, 3), [0, 255, 0], 'the square fills the image without padding');
    assert.notDeepEqual(image.at(198, 196), [0, 255, 0], 'the attribution box in the bottom-right corner');
    const auto = await get(`/api/maps/test/static/auto/200x200.png?attribution=false&path=stroke:red|-20,-20|20,20&markers=icon:${encodeURIComponent(`${iconBase}/pin.png`)}|anchor:center|0,0`);
    assert.equal(auto.statusCode, 200, auto.body);
    const fitted = await pixels(auto.rawPayload);
    assert.deepEqual(fitted.at(100, 100), [255, 0, 255], 'the icon marker is drawn centred on its position');
  });

  test('MapTiler Cloud\'s path, without /api, is the same image behind the same gate', async () => {
    // Before, /maps/test/static/… fell to the raster tile route: 400 `params "z" must be integer`.
    const ours = await get('/api/maps/test/static/0,0,1/100x100.png?attribution=false');
    const maptilers = await get('/maps/test/static/0,0,1/100x100.png?attribution=false');
    assert.equal(maptilers.statusCode, 200, maptilers.body);
    assert.equal(maptilers.headers['content-type'], 'image/png');
    assert.ok(maptilers.rawPayload.equals(ours.rawPayload), 'the same image');
    const refused = await get('/maps/test/static/0,0,30/100x100.png');
    assert.equal(refused.json().errors[0].message, 'Out of bounds: zoom 30 is above 22');
    const anonymous = await server.server.public.inject({ method: 'GET', url: '/maps/test/static/0,0,1/100x100.png' });
    assert.equal(anonymous.statusCode, 403);
  });

  test('bad requests get the documented errors', async () => {
    const cases: [string, number, string | RegExp][] = [
      ['/api/maps/nope/static/0,0,1/100x100.png', 404, 'The item does not exist'],
      ['/api/maps/test/static/0,0,1/100x100.gif', 400, 'Invalid format: "gif" is not one of png, jpg, webp'],
      ['/api/maps/pngonly/static/0,0,1/100x100.jpg', 400, 'Invalid format: "jpg" is not one of png'],
      ['/api/maps/test/static/0,0,1/0x100.png', 400, 'Invalid image size'],
      ['/api/maps/test/static/0,0,1/2049x100.png', 400, 'Invalid image size'],
      ['/api/maps/test/static/0,86,1/100x100.png', 400, 'Out of bounds: latitude 86 is outside -85.0511..85.0511'],
      ['/api/maps/test/static/181,0,1/100x100.png', 400, 'Out of bounds: longitude 181 is outside -180..180'],
      ['/api/maps/test/static/0,0,13/100x100.png', 400, /^Out of bounds: zoom 13 is above \d+ \(map "test" has zooms \d+ to \d+\)$/],
      ['/api/maps/test/static/0,0,30/100x100.png', 400, 'Out of bounds: zoom 30 is above 22'],
      ['/api/maps/test/static/auto/100x100.png', 400, /Nothing to fit/],
      ['/api/maps/test/static/0,0,1/100x100.png?path=1,2', 400, 'Invalid path: a path needs at least two points'],
      ['/api/maps/test/static/10,50/800x600.png', 400, /^Missing zoom in the area/],
      ['/api/maps/test/static/10,50,3/800.png', 400, /^Missing image height/],
      ['/api/maps/test/static/10,50,3', 400, /^Missing image size and format/],
      ['/api/maps/test/static/0,0,1/100x100.png?markers=icon:file:///etc/passwd|0,0', 400, /markers/],
    ];
    for (const [url, status, message] of cases) {
      const response = await get(url);
      assert.equal(response.statusCode, status, `${url}: ${response.body}`);
      const text = response.json().errors[0].message;
      if (typeof message === 'string') assert.equal(text, message, url);
      else assert.match(text, message, url);
    }
  });

  test('a URI over 8192 bytes is 414, before the key is looked at', async () => {
    const url = `/api/maps/test/static/0,0,1/100x100.png?path=${'1,1|'.repeat(2100)}1,1`;
    const response = await server.server.public.inject({ method: 'GET', url });
    assert.equal(response.statusCode, 414);
    assert.equal(response.json().errors[0].message, 'URI Too Long. Maximum allowed length is 8192 bytes.');
  });

  test('without a valid key the image is refused with 403', async () => {
    for (const url of ['/api/maps/test/static/0,0,1/100x100.png', '/api/maps/test/static/0,0,1']) {
      const response = await server.server.public.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 403, url);
    }
  });

  test('hostile path and marker values never cause a server error', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 60 }), fc.string({ maxLength: 60 }), async (path, markers) => {
        const response = await get(`/api/maps/test/static/0,0,1/32x32.png?path=${encodeURIComponent(path)}&markers=${encodeURIComponent(markers)}`);
        assert.ok([200, 400].includes(response.statusCode), `${response.statusCode} ${response.body}`);
      }),
      { numRuns: 60 },
    );
  });
});

describe('render pool limits', () => {
  test('a render that runs past the time limit is stopped and answered 503', async () => {
    // The map's only tile source never answers: the render waits for it until the time limit. The
    // map opens outside the source's bounds, so that the threads' warm-up draws none of its tiles.
    const asked: string[] = [];
    // Reached by the slow map whatever the load (its tiles never come), and out of the warm-up's
    // reach: at load 13-17 a cold render thread took over 3 s to start.
    const limit = 10_000;
    const hanging = createHttpServer((request) => void asked.push(request.url ?? ''));
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const tiles = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/{z}/{x}/{y}.png`;
    const slow = await startTestServer(
      testConfig({
        maps: {
          definitions: {
            slow: {
              style: { version: 8, sources: { r: { type: 'raster', tiles: [tiles], tileSize: 256, bounds: [0, 0, 10, 10] } }, layers: [{ id: 'r', type: 'raster', source: 'r' }] } as never,
              center: [-100, -40, 5],
            },
            quick: { style: { version: 8, sources: {}, layers: [{ id: 'b', type: 'background', paint: { 'background-color': '#fff' } }] } as never },
          },
          timeoutMs: limit,
        },
      }),
    );
    try {
      const { accountId } = await newAccount(slow.meridian);
      const slowKey = (await slow.meridian.keys.create(accountId, {})).token;
      // A render on a cold pool spends its first second or so starting the thread: warm it with a
      // map that needs no tiles, so that the slow map's render is the one the time limit stops.
      const warm = await slow.server.public.inject({ method: 'GET', url: `/api/maps/quick/static/0,0,1/64x64.png?key=${slowKey}` });
      assert.equal(warm.statusCode, 200, `the warm-up render (its thread starting within ${limit} ms): ${warm.body}`);
      assert.deepEqual(asked, [], 'the warm-up drew no tile of the slow map');
      const response = await slow.server.public.inject({ method: 'GET', url: `/api/maps/slow/static/5,5,5/64x64.png?key=${slowKey}` });
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.json().errors[0].message, `The image was not rendered within ${limit} ms`);
      assert.ok(response.headers['retry-after']);
      // The render had asked for its tiles, which never come: it was stopped waiting for them.
      assert.ok(asked.length > 0, 'the render had asked for tiles when the answer came');
    } finally {
      await slow.close();
      hanging.closeAllConnections();
      hanging.close();
    }
  });

  test('Server-Timing tells a render\'s wait for a thread from its time on one', async () => {
    const one = await startTestServer(testConfig({ maps: { definitions: { test: { style: style as never } }, workers: 1, queue: 4 } }));
    try {
      const { accountId } = await newAccount(one.meridian);
      const oneKey = (await one.meridian.keys.create(accountId, {})).token;
      const url = (zoom: number) => `/api/maps/test/static/0,0,${zoom}/1024x1024@2x.png?key=${oneKey}`;
      // Two renders at once on one thread: the one admitted second waits for the other's render.
      const responses = await Promise.all([3, 4].map((zoom) => one.server.public.inject({ method: 'GET', url: url(zoom) })));
      const [first, second] = responses.map((response) => {
        assert.equal(response.statusCode, 200, response.body);
        const header = String(response.headers['server-timing']);
        const dur = (name: string) => Number(new RegExp(`(?:^|, )${name};dur=([\\d.]+)`).exec(header)?.[1]);
        const timing = { queue: dur('queue'), render: dur('render'), total: dur('total') };
        assert.ok(timing.render > 0 && timing.queue >= 0 && timing.total >= timing.queue + timing.render, header);
        return timing;
      }).sort((a, b) => a.queue - b.queue);
      assert.ok(second!.queue >= first!.render / 2, `the second waited ${second!.queue} ms while the first rendered for ${first!.render} ms`);
    } finally {
      await one.close();
    }
  });

  test('renders beyond the queue are refused at once with 503', async () => {
    const busy = await startTestServer(testConfig({ maps: { definitions: { test: { style: style as never } }, workers: 1, queue: 0 } }));
    try {
      const { accountId } = await newAccount(busy.meridian);
      const busyKey = (await busy.meridian.keys.create(accountId, {})).token;
      const url = `/api/maps/test/static/0,0,3/1024x1024@2x.png?key=${busyKey}`;
      const responses = await Promise.all(Array.from({ length: 4 }, () => busy.server.public.inject({ method: 'GET', url })));
      const statuses = responses.map((response) => response.statusCode).sort();
      assert.ok(statuses.includes(200), statuses.join());
      assert.ok(statuses.includes(503), statuses.join());
      const refused = responses.find((response) => response.statusCode === 503)!;
      assert.match(refused.json().errors[0].message, /Too many renders waiting/);
    } finally {
      await busy.close();
    }
  });
});
