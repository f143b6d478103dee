import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { buildKeyframe } from '../../../src/weather/tileset.js';
import { defaultVariables } from '../../../src/weather/variables.js';
import { checkPublishingFolder, weatherFolderId } from '../../../src/weather/folder.js';
import { LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { tempDir } from '../../scratch.js';
import { assertWeatherCatalogResult } from '../catalog-spec.js';
import { globalField } from '../fields.js';

let server: TestServer;
let key: string;
const temperature = defaultVariables.find((v) => v.id === 'temperature-2m')!;
const reference = new Date('2026-11-22T00:00:00Z');
const ids: string[] = [];

before(async () => {
  server = await startTestServer();
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
  const keyframes = [];
  for (const hours of [3, 0]) {
    const validTime = new Date(reference.getTime() + hours * 3_600_000);
    keyframes.push(
      await buildKeyframe(server.meridian.weatherDirectory, globalField(1, (_lon, lat) => lat / 2 + hours), {
        variable: temperature,
        model: 'gfs',
        attribution: 'GFS',
        referenceTime: reference,
        validTime,
        maxZoom: 1,
        format: 'png',
      }),
    );
  }
  ids.push(...keyframes.map((k) => k.id));
  await server.meridian.weather.publish('gfs', reference, keyframes, 1);
});
after(() => server.close());

const get = (url: string) => server.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${key}` });

describe('GET /weather/latest.json', () => {
  test('lists each variable with the spec fields and its keyframes in time order', async () => {
    const response = await get('/weather/latest.json');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['cache-control']), /max-age=60/);
    const catalog = response.json();
    assertWeatherCatalogResult(catalog);
    const { variables } = catalog;
    assert.equal(variables.length, 1);
    const [entry] = variables;
    for (const field of ['spatial_ref_sys', 'bounds', 'tile_format', 'tile_matrix_set', 'metadata', 'keyframes', '@version', 'type', 'tile_type']) {
      assert.ok(field in entry, field);
    }
    assert.equal(entry.spatial_ref_sys.auth_srid, '3857');
    assert.match(entry.spatial_ref_sys.wkt, /Pseudo-Mercator|Popular Visualisation/);
    assert.equal(entry.tile_format, 'png');
    assert.deepEqual(entry.bounds, entry.tile_matrix_set.bounds, 'a global field: the pyramid\'s bounds, to the last digit');
    assert.equal(entry.tile_matrix_set.items.length, 2);
    assert.deepEqual(Object.keys(entry.tile_matrix_set.items[1]).sort(), ['matrix_height', 'matrix_width', 'pixel_x_size', 'pixel_y_size', 'tile_height', 'tile_width', 'zoom_level']);
    const variable = entry.metadata.weather_variable;
    assert.equal(variable.variable_id, 'temperature-2m:gfs');
    assert.deepEqual(variable.decoding, { channels: 'r', min: -127, max: 128 });
    assert.equal(variable.attribution, 'GFS');
    assert.equal(variable.release_timestamp, reference.toISOString());
    assert.equal(entry.metadata.scheme, 'xyz');
    assert.equal(entry.metadata.maxzoom, 1);
    assert.deepEqual(
      entry.keyframes.map((k: { timestamp: string }) => k.timestamp),
      ['2026-11-22T00:00:00.000Z', '2026-11-22T03:00:00.000Z'],
    );
  });
});

describe('GET /tiles/{keyframe}/{z}/{x}/{y}.{format}', () => {
  test('serves the tile, immutable, whose pixels decode to the field', async () => {
    const response = await get(`/tiles/${ids[1]}/1/1/0.png`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'image/png');
    assert.match(String(response.headers['cache-control']), /immutable/);
    const { data, info } = await sharp(response.rawPayload).raw().toBuffer({ resolveWithObject: true });
    assert.equal(info.width, 512);
    const at = (511 * 512 + 0) * 4;
    // The bottom-left pixel of tile 1/1/0 lies just north of the equator: value about 0.
    assert.ok(Math.abs(-127 + (data[at]! / 255) * 255 - 0) <= 1);
  });

  test('unknown keyframes, tiles outside the pyramid and other formats are 404', async () => {
    for (const url of [
      '/tiles/00000000-0000-4000-8000-000000000000/0/0/0.png',
      `/tiles/${ids[0]}/2/0/0.png`,
      `/tiles/${ids[0]}/1/2/0.png`,
      `/tiles/${ids[0]}/0/0/0.webp`,
    ]) {
      const response = await get(url);
      assert.equal(response.statusCode, 404, url);
      assert.deepEqual(response.json(), { errors: [{ message: 'The item does not exist' }] });
    }
    for (const url of ['/tiles/not-a-uuid/0/0/0.png', `/tiles/${ids[0]}/0/0/0.jpg`, `/tiles/${ids[0]}/a/0/0.png`]) {
      const response = await get(url);
      assert.ok([400, 404].includes(response.statusCode), url);
    }
  });

  test('both endpoints need an API key', async () => {
    for (const url of ['/weather/latest.json', `/tiles/${ids[0]}/0/0/0.png`]) {
      assert.equal((await server.server.public.inject({ method: 'GET', url })).statusCode, 403);
    }
  });
});

describe('publishing', () => {
  test('a newer run replaces the older one, whose archives are returned for deletion', async () => {
    const later = new Date(reference.getTime() + 6 * 3_600_000);
    const keyframe = await buildKeyframe(server.meridian.weatherDirectory, globalField(1, () => 1), {
      variable: temperature,
      model: 'gfs',
      attribution: 'GFS',
      referenceTime: later,
      validTime: later,
      maxZoom: 0,
      format: 'png',
    });
    const expired = await server.meridian.weather.publish('gfs', later, [keyframe], 1);
    assert.deepEqual(expired.sort(), ids.map((id) => `${id}.pmtiles`).sort());
    const { variables } = (await get('/weather/latest.json')).json();
    assert.deepEqual(variables[0].keyframes.map((k: { id: string }) => k.id), [keyframe.id]);
    assert.equal((await get(`/tiles/${ids[0]}/0/0/0.png`)).statusCode, 404);
  });
});

describe('the weather folder', () => {
  test('weather.dir is where archives are read; a run whose archives this instance cannot read there is not listed, and the log says so', async () => {
    const [shared, unshared] = [tempDir(), tempDir()];
    const log = new LogCapture();
    const other = await startTestServer(testConfig({ logLevel: 'error', weather: { dir: shared } }), { logStream: log });
    try {
      assert.equal(other.meridian.weatherDirectory, shared);
      const { accountId } = await newAccount(other.meridian);
      const otherKey = (await other.meridian.keys.create(accountId, {})).token;
      const latest = async () => (await other.server.public.inject({ method: 'GET', url: `/weather/latest.json?key=${otherKey}` })).json();
      const build = (directory: string, referenceTime: Date, model: string) =>
        buildKeyframe(directory, globalField(1, () => 1), { variable: temperature, model, attribution: 'GFS', referenceTime, validTime: referenceTime, maxZoom: 0, format: 'png' });
      // A command that wrote its run under a folder of its own (its --data) and published it to the shared catalog.
      const elsewhere = await build(unshared, reference, 'gfs');
      await other.meridian.weather.publish('gfs', reference, [elsewhere], 1);
      assert.deepEqual((await latest()).variables, [], 'nothing this instance could serve is listed');
      const line = log.lines.map((text) => JSON.parse(text) as { msg: string; runs?: unknown }).find((entry) => entry.msg.startsWith('weather keyframes in the catalog cannot be read'));
      assert.deepEqual(line?.runs, [{ model: 'gfs', referenceTime: reference.toISOString(), keyframes: 1 }]);
      // A run written where the instance reads is listed beside it.
      const here = await build(shared, reference, 'ifs');
      await other.meridian.weather.publish('ifs', reference, [here], 1);
      const { variables } = await latest();
      assert.deepEqual(variables.map((entry: { keyframes: { id: string }[] }) => entry.keyframes.map((k) => k.id)), [[here.id]]);
    } finally {
      await other.close();
      for (const dir of [shared, unshared]) rmSync(dir, { recursive: true, force: true });
    }
  });

  test('publishing from a command is refused when the instances read another weather folder, and warned of when none has said', async () => {
    const shared = tempDir();
    const other = await startTestServer(testConfig({ weather: { dir: shared } }));
    const [unshared, sameVolume] = [tempDir(), tempDir()];
    try {
      const db = other.meridian.db;
      await assert.rejects(checkPublishingFolder(db, unshared), new RegExp(`Not published: the instances on this database read weather from ${shared}.*writes to ${unshared}`));
      assert.equal(await checkPublishingFolder(db, shared), null, 'the folder the instance serves from');
      // The same volume mounted elsewhere: the marker, not the path, tells.
      writeFileSync(path.join(sameVolume, '.meridian-weather-folder'), `${weatherFolderId(shared)}\n`);
      assert.equal(await checkPublishingFolder(db, sameVolume), null);
      await db.query(`DELETE FROM meridian_settings WHERE name = 'weather_folder'`);
      assert.match(String(await checkPublishingFolder(db, unshared)), /no instance has served from this database yet/);
    } finally {
      await other.close();
      for (const dir of [shared, unshared, sameVolume]) rmSync(dir, { recursive: true, force: true });
    }
  });
});
