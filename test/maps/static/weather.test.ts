import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { colorLookup, rampOf } from '../../../src/weather/ramps.js';
import { attributionText } from '../../../src/maps/static/draw/attribution.js';
import { weatherCredit } from '../../../src/weather/providers/credit.js';
import { buildKeyframe } from '../../../src/weather/tileset.js';
import { defaultVariables } from '../../../src/weather/variables.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { globalField } from '../../weather/fields.js';

/**
 * Weather on static maps against the console's decoding of the same tiles: the test fetches the
 * keyframes' tiles through the API, decodes each pixel as the console does
 * (`min + channel / 255 × (max − min)`, the two keyframes interpolated linearly), takes for each
 * image pixel the tile pixel under its centre at the view's zoom, colours it with the console's own
 * ramp lookup (src/weather/ramps.ts, which the console imports) and lays it, at the
 * console's default opacity 0.8, over the same map drawn without weather. Tolerance: 1 in each
 * channel (the PNG round trip is lossless; 1 leaves room for the ramp's rounding), on every pixel
 * (those images leave the attribution out: with weather it credits the source, tested apart).
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
  const map = (attribution: string) => ({ style: style as never, maxzoom: 12, attribution });
  server = await startTestServer(
    testConfig({
      maps: {
        definitions: {
          plain: map(''),
          credited: map('Test map'),
          // What `credited` with weather should show, written out: the box widths must match.
          'credited-gfs': map('Test map | NOAA GFS'),
          'credited-ifs': map('Test map | © ECMWF IFS, CC BY 4.0'),
        },
      },
    }),
  );
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
      const image = await pixels(`/api/maps/plain/static/${center.join(',')},${zoom}/240x160${ratio === 2 ? '@2x' : ''}.png?weather=${variableId}&time=${encodeURIComponent(time)}&attribution=false`);
      assertClose(image, await expected(variableId, t, [...center], zoom, 240, 160, ratio), `${variableId} ${time}`);
    });
  }

  test('without time, the run\'s first keyframe; a time on a keyframe is that keyframe', async () => {
    const url = '/api/maps/plain/static/0,0,1/120x80.png?weather=temperature-2m:gfs&attribution=false';
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

describe('the attribution credits the weather source beside the map', () => {
  before(async () => {
    // An ECMWF IFS run beside the GFS one, with the attribution `meridian weather fetch --model ifs` records.
    const keyframe = await buildKeyframe(server.meridian.weatherDirectory, globalField(1, (lon: number) => lon / 10), {
      variable: temperature,
      model: 'ifs',
      attribution: 'ECMWF IFS open data, CC-BY-4.0',
      referenceTime: reference,
      validTime: reference,
      maxZoom: 1,
      format: 'png',
    });
    await server.meridian.weather.publish('ifs', reference, [keyframe], 1);
  });

  test('the text: NOAA for GFS, ECMWF and CC BY 4.0 for its open data, other labels as recorded', () => {
    assert.equal(weatherCredit('GFS'), 'NOAA GFS');
    assert.equal(weatherCredit('ECMWF IFS open data, CC-BY-4.0'), '© ECMWF IFS, CC BY 4.0');
    assert.equal(weatherCredit('ECMWF AIFS Single open data, CC-BY-4.0'), '© ECMWF AIFS Single, CC BY 4.0');
    assert.equal(weatherCredit('NCEP'), 'NCEP');
    assert.equal(attributionText('© OpenStreetMap contributors', 'NOAA GFS'), '© OpenStreetMap contributors | NOAA GFS');
    assert.equal(attributionText('', 'NOAA GFS'), 'NOAA GFS');
    assert.equal(attributionText('Data: NOAA GFS', 'NOAA GFS'), 'Data: NOAA GFS');
    assert.equal(attributionText('© Natural Earth', undefined), '© Natural Earth');
  });

  /** The width in CSS px of the attribution box in the bottom-right corner: what differs from the same image without it. */
  async function boxWidth(url: string): Promise<number> {
    const withBox = await pixels(`${url}&attribution=bottomright`);
    const without = await pixels(`${url}&attribution=false`);
    let left = withBox.width;
    for (let j = withBox.height - 17; j < withBox.height; j++) {
      for (let i = 0; i < withBox.width; i++) {
        const at = (j * withBox.width + i) * 4;
        if ([0, 1, 2].some((c) => withBox.data[at + c] !== without.data[at + c])) left = Math.min(left, i);
      }
    }
    for (let j = 0; j < withBox.height - 17; j++) {
      for (let i = 0; i < withBox.width; i++) {
        const at = (j * withBox.width + i) * 4;
        assert.ok([0, 1, 2].every((c) => withBox.data[at + c] === without.data[at + c]), `${url}: pixel ${i},${j} above the box changed`);
      }
    }
    return withBox.width - left;
  }

  test('images with weather draw the map\'s attribution and the source\'s, as wide as that text', async () => {
    const view = '0,0,1/400x120.png';
    const alone = await boxWidth(`/api/maps/credited/static/${view}?padding=0.1`);
    const gfs = await boxWidth(`/api/maps/credited/static/${view}?weather=temperature-2m:gfs`);
    const ifs = await boxWidth(`/api/maps/credited/static/${view}?weather=temperature-2m:ifs`);
    assert.ok(alone > 20, `the map's own box is ${alone} px wide`);
    assert.ok(gfs > alone, `with GFS weather the box is ${gfs} px wide, without weather ${alone}`);
    assert.equal(gfs, await boxWidth(`/api/maps/credited-gfs/static/${view}?padding=0.1`), 'the box of "Test map | NOAA GFS"');
    assert.equal(ifs, await boxWidth(`/api/maps/credited-ifs/static/${view}?padding=0.1`), 'the box of "Test map | © ECMWF IFS, CC BY 4.0"');
  });
});
