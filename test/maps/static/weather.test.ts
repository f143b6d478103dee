import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { colorLookup, rampOf } from '../../../src/platform/weather-ramps.js';
import { buildKeyframe } from '../../../src/weather/tileset.js';
import { defaultVariables } from '../../../src/weather/variables.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { globalField } from '../../weather/fields.js';

/**
 * Weather on static maps against the console's decoding of the same tiles: the test fetches the
 * keyframes' tiles through the API, decodes each pixel as the console does
 * (`min + channel / 255 × (max − min)`, the two keyframes interpolated linearly), takes for each
 * image pixel the tile pixel under its centre at the view's zoom, colours it with the console's own
 * ramp lookup (src/platform/weather-ramps.ts, which the console imports) and lays it, at the
 * console's default opacity 0.8, over the same map drawn without weather. Tolerance: 1 in each
 * channel (the PNG round trip is lossless; 1 leaves room for the ramp's rounding), on every pixel.
 */

/** A map without labels: a blue sea and a green square around 0,0. */
const style = {
  version: 8,
  sources: {
    land: {
      type: 'geojson',
      data: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-20, -20], [20, -20], [20, 20], [-20, 20], [-20, -20]]] } },
    },
  },
  layers: [
    { id: 'sea', type: 'background', paint: { 'background-color': '#0000ff' } },
    { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#00ff00', 'fill-antialias': false } },
  ],
};

const temperature = defaultVariables.find((v) => v.id === 'temperature-2m')!;
const precipitation = defaultVariables.find((v) => v.id === 'precipitation-1h' && v.time === 'rate')!;
const reference = new Date('2026-11-22T00:00:00Z');
let server: TestServer;
let key: string;
const keyframes = new Map<string, string[]>();

before(async () => {
  server = await startTestServer(testConfig({ maps: { definitions: { plain: { style: style as never, maxzoom: 12, attribution: '' } } } }));
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
});
after(() => server.close());

const get = (url: string) => server.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${key}` });

async function pixels(url: string): Promise<{ data: Buffer; width: number; height: number }> {
  const response = await get(url);
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  const { data, info } = await sharp(response.rawPayload).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

test('weather before any run is published is 404', async () => {
  const response = await get('/api/maps/plain/static/0,0,1/100x100.png?weather=temperature-2m:gfs');
  assert.equal(response.statusCode, 404);
  assert.deepEqual(response.json(), { errors: [{ message: 'The item does not exist' }] });
});

describe('with two keyframes of temperature and precipitation', () => {
  before(async () => {
    const published = [];
    for (const [variable, value] of [
      [temperature, (hours: number) => (lon: number, lat: number) => lat / 2 + hours * 4 + Math.sin(lon / 20) * 10],
      [precipitation, (hours: number) => (lon: number, lat: number) => Math.max(0, Math.sin(lon / 15) * Math.cos(lat / 10) * 20 + hours)],
    ] as const) {
      const ids = [];
      for (const hours of [0, 3]) {
        const keyframe = await buildKeyframe(server.meridian.weatherDirectory, globalField(1, value(hours)), {
          variable,
          model: 'gfs',
          attribution: 'GFS',
          referenceTime: reference,
          validTime: new Date(reference.getTime() + hours * 3_600_000),
          maxZoom: 1,
          format: 'png',
        });
        published.push(keyframe);
        ids.push(keyframe.id);
      }
      keyframes.set(`${variable.id}:gfs`, ids);
    }
    await server.meridian.weather.publish('gfs', reference, published, 1);
  });

  /** What the console shows at each image pixel, over the map without weather. */
  async function expected(variableId: string, t: number, center: [number, number], zoom: number, width: number, height: number, ratio: number) {
    const { min, max } = variableId.startsWith('temperature') ? temperature : precipitation;
    const z = Math.min(1, Math.round(zoom));
    const base = await pixels(`/api/maps/plain/static/${center.join(',')},${zoom}/${width}x${height}${ratio === 2 ? '@2x' : ''}.png`);
    const tiles = new Map<string, Buffer[]>();
    const tile = async (x: number, y: number) => {
      const name = `${x}/${y}`;
      if (!tiles.has(name)) {
        tiles.set(name, await Promise.all(keyframes.get(variableId)!.map(async (id) => (await pixels(`/tiles/${id}/${z}/${x}/${y}.png`)).data)));
      }
      return tiles.get(name)!;
    };
    const color = colorLookup(rampOf(variableId, min, max));
    const out = Buffer.from(base.data);
    // The view's centre in world pixels of zoom z (512-px tiles); one image pixel is 2^(z - zoom) / ratio of them.
    const worldZ = 512 * 2 ** z;
    const cx = ((center[0] + 180) / 360) * worldZ;
    const sin = Math.sin((center[1] * Math.PI) / 180);
    const cy = (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * worldZ;
    const step = 2 ** (z - zoom) / ratio;
    const rgba = new Uint8ClampedArray(4);
    for (let j = 0; j < base.height; j++) {
      const y = Math.floor(cy + (j + 0.5 - (height * ratio) / 2) * step);
      if (y < 0 || y >= worldZ) continue;
      for (let i = 0; i < base.width; i++) {
        const x = (((Math.floor(cx + (i + 0.5 - (width * ratio) / 2) * step)) % worldZ) + worldZ) % worldZ;
        const [a, b] = await tile(Math.floor(x / 512), Math.floor(y / 512));
        const offset = ((y % 512) * 512 + (x % 512)) * 4;
        if (a![offset + 3] === 0 || b![offset + 3] === 0) continue;
        const decode = (pixel: Buffer) => min + (pixel[offset]! / 255) * (max - min);
        color(decode(a!) + (decode(b!) - decode(a!)) * t, rgba, 0);
        // The console's layer opacity: 0.8 (its default `raster-opacity`), on the ramp's own alpha.
        const alpha = Math.round(rgba[3]! * 0.8) / 255;
        const at = (j * base.width + i) * 4;
        for (let c = 0; c < 3; c++) out[at + c] = Math.round(rgba[c]! * alpha + base.data[at + c]! * (1 - alpha));
      }
    }
    return { data: out, width: base.width, height: base.height };
  }

  function assertClose(actual: { data: Buffer }, wanted: { data: Buffer }, label: string): void {
    let worst = 0;
    for (let k = 0; k < wanted.data.length; k++) worst = Math.max(worst, Math.abs(actual.data[k]! - wanted.data[k]!));
    assert.ok(worst <= 1, `${label}: a channel differs by ${worst}`);
  }

  for (const [variableId, time, t, center, zoom, ratio] of [
    ['temperature-2m:gfs', '2026-11-22T01:00:00Z', 1 / 3, [0, 0], 1, 1],
    ['temperature-2m:gfs', '2026-11-22T03:00:00Z', 1, [150, 40], 1.6, 2],
    ['precipitation-1h:gfs', '2026-11-22T02:15:00+00:00', 0.75, [10, -10], 0.7, 1],
  ] as const) {
    test(`${variableId} at ${time}, zoom ${zoom}${ratio === 2 ? ' @2x' : ''}: the console's colours of the interpolated tiles over the map`, async () => {
      const image = await pixels(`/api/maps/plain/static/${center.join(',')},${zoom}/240x160${ratio === 2 ? '@2x' : ''}.png?weather=${variableId}&time=${encodeURIComponent(time)}`);
      assertClose(image, await expected(variableId, t, [...center], zoom, 240, 160, ratio), `${variableId} ${time}`);
    });
  }

  test('without time, the run\'s first keyframe; a time on a keyframe is that keyframe', async () => {
    const url = '/api/maps/plain/static/0,0,1/120x80.png?weather=temperature-2m:gfs';
    assertClose(await pixels(url), await expected('temperature-2m:gfs', 0, [0, 0], 1, 120, 80, 1), 'no time');
    const first = await pixels(`${url}&time=2026-11-22T00:00:00Z`);
    assertClose(await pixels(url), first, 'the first keyframe');
    assert.notDeepEqual((await pixels(`${url}&time=2026-11-22T03:00:00Z`)).data, first.data);
  });

  test('a legend is drawn in its corner only', async () => {
    const url = '/api/maps/plain/static/0,0,1/300x200.png?weather=temperature-2m:gfs&time=2026-11-22T01:00:00Z';
    const plain = await pixels(url);
    const legend = await pixels(`${url}&legend=bottomleft`);
    let inside = 0;
    for (let j = 0; j < plain.height; j++) {
      for (let i = 0; i < plain.width; i++) {
        const at = (j * plain.width + i) * 4;
        const differs = [0, 1, 2].some((c) => plain.data[at + c] !== legend.data[at + c]);
        if (!differs) continue;
        assert.ok(i < 200 && j > 120, `pixel ${i},${j} changed outside the bottom-left corner`);
        inside++;
      }
    }
    assert.ok(inside > 2000, `the legend covers ${inside} pixels`);
  });

  test('bad weather requests are 400 with the error body', async () => {
    for (const [query, message] of [
      ['weather=snow-depth', /Unknown weather variable "snow-depth"/],
      ['weather=temperature-2m:gfs&time=tomorrow', /Invalid time/],
      ['weather=temperature-2m:gfs&time=2026-11-22T01:00:00', /Invalid time/],
      ['weather=temperature-2m:gfs&time=2026-11-22T04:00:00Z', /outside the keyframes of temperature-2m:gfs/],
      ['weather=temperature-2m:gfs&legend=middle', /legend/],
      ['time=2026-11-22T01:00:00Z', /time needs weather/],
      ['legend=topleft', /legend needs weather/],
    ] as const) {
      const response = await get(`/api/maps/plain/static/0,0,1/100x100.png?${query}`);
      assert.equal(response.statusCode, 400, query);
      assert.match(response.json().errors[0].message, message, query);
    }
  });
});
