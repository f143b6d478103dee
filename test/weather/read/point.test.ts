import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ingestFiles } from '../../../src/weather/ingest.js';
import { interpolate } from '../../../src/weather/read/point.js';
import { defaultVariables } from '../../../src/weather/variables.js';
import { newAccount, startTestServer, type TestServer } from '../../helpers.js';
import { seededRandom, tempDir } from '../../scratch.js';
import { example, referencePoints, referenceValues, requireReference, run } from '../eccodes.js';

/**
 * The point API against ecCodes: at seeded random points, `grib_ls -l lat,lon,1` names the four
 * grid points around the point (index, latitude, longitude) and `grib_filter` gives their values;
 * the expected value is the bilinear interpolation of those four, after the variable's unit
 * conversion. The GFS sample's 2 m temperature also comes at two more steps (made by ecCodes from
 * it, offset by 1.5 K and 3 K), and a regional 2 m temperature (the regular_latlon_surface sample,
 * 0-30°E, 0-60°N) is a second model whose grid does not cover every point. Last, the wave heights of
 * the reduced_latlon_surface sample (a reduced grid, land points missing) under a variable of the test's.
 */

let server: TestServer;
let key: string;
const scratch = tempDir();
const gfs = example('gfs.t12z.pgrbf120.2p5deg.grib2');
const options = { model: 'gfs', attribution: 'GFS', variables: defaultVariables, format: 'png' as const, keepRuns: 1 };

/** The 2 m temperature of the GFS sample at another step, its values offset, written by ecCodes. */
function laterTemperature(step: number, offset: number): string {
  const single = path.join(scratch, '2t.grib2');
  if (!existsSync(single)) run('grib_copy', ['-w', 'shortName=2t', gfs, single]);
  const output = path.join(scratch, `2t-${step}.grib2`);
  run('grib_set', ['-s', `forecastTime=${step},offsetValuesBy=${offset}`, single, output]);
  return output;
}

const steps = [laterTemperature(123, 1.5), laterTemperature(126, 3)];
const regional = path.join(scratch, 'regional.grib2');

before(async () => {
  requireReference();
  server = await startTestServer();
  const { accountId } = await newAccount(server.meridian);
  key = (await server.meridian.keys.create(accountId, {})).token;
});
after(async () => {
  await server?.close();
});

const get = (url: string, withKey = true) =>
  server.server.public.inject({ method: 'GET', url: withKey ? `${url}${url.includes('?') ? '&' : '?'}key=${key}` : url });

async function errorOf(url: string): Promise<{ status: number; message: string }> {
  const response = await get(url);
  const body = response.json();
  assert.deepEqual(Object.keys(body), ['errors'], url);
  return { status: response.statusCode, message: body.errors[0].message };
}

test('before any run is published, a point forecast is 404', async () => {
  assert.deepEqual(await errorOf('/weather/point/10,45.json'), { status: 404, message: 'The item does not exist' });
});

test('a neighbour without a value hands the point to the nearest neighbour; none there is null', () => {
  // Weights of a point a quarter of the way east and a tenth of the way south of the first neighbour.
  const stencil = { indices: [0, 1, 2, 3], weights: [0.675, 0.225, 0.075, 0.025] };
  assert.ok(Math.abs(interpolate(stencil, Float32Array.of(1, 2, 3, 4), 1)[0]! - (0.675 + 0.45 + 0.225 + 0.1)) < 1e-6);
  assert.deepEqual(interpolate(stencil, Float32Array.of(1, NaN, 3, 4), 1), [1]);
  assert.deepEqual(interpolate(stencil, Float32Array.of(NaN, 2, 3, 4), 1), [null]);
  // A neighbour of weight 0 (a point on a grid row) does not count, whatever it holds.
  assert.deepEqual(interpolate({ indices: [0, 1, 2, 3], weights: [0.5, 0.5, 0, 0] }, Float32Array.of(1, 3, NaN, NaN), 1), [2]);
  // Two channels side by side: each interpolated on its own.
  assert.deepEqual(interpolate({ indices: [0, 1], weights: [0.5, 0.5] }, Float32Array.of(1, 10, 3, 30), 2), [2, 20]);
});

describe('with the GFS sample and a regional model published', () => {
  before(async () => {
    const { meridian } = server;
    await ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs, ...steps], options);
    // The sample says "surface" for its 2 m temperature; the built-in variable reads 2 m above ground.
    run('grib_set', ['-s', 'typeOfFirstFixedSurface=103,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=2', example('regular_latlon_surface.grib2'), regional]);
    await ingestFiles(meridian.weather, meridian.weatherDirectory, [regional], { ...options, model: 'regional', attribution: 'Regional' });
  });

  interface Neighbour {
    index: number;
    lat: number;
    lon: number;
  }

  /** The four grid points ecCodes finds around a point (`grib_ls -l lat,lon,1`). */
  function neighbours(file: string, lon: number, lat: number): Neighbour[] {
    const out = run('grib_ls', ['-l', `${lat},${lon},1`, '-w', 'count=1', file]);
    const found = [...out.matchAll(/^- \d+ - index=(\d+) latitude=(\S+) longitude=(\S+)/gm)].map((m) => ({ index: Number(m[1]), lat: Number(m[2]), lon: Number(m[3]) }));
    assert.equal(found.length, 4, out);
    return found;
  }

  /** Bilinear weights of the four neighbours of a regular lat/lon grid, from their coordinates alone. */
  function weights(around: Neighbour[], lon: number, lat: number): number[] {
    const east = (from: number, to: number) => (((to - from) % 360) + 360) % 360;
    const lons = [...new Set(around.map((n) => n.lon))];
    const lats = [...new Set(around.map((n) => n.lat))];
    assert.equal(lons.length, 2);
    assert.equal(lats.length, 2);
    // The western column is the one the point lies less than a grid step east of.
    const west = east(lons[0]!, lon) < east(lons[0]!, lons[1]!) ? lons[0]! : lons[1]!;
    const fi = east(west, lon) / east(west, lons.find((l) => l !== west)!);
    const [north, south] = lats[0]! > lats[1]! ? [lats[0]!, lats[1]!] : [lats[1]!, lats[0]!];
    const fj = (north - lat) / (north - south);
    return around.map((n) => (n.lon === west ? 1 - fi : fi) * (n.lat === north ? 1 - fj : fj));
  }

  /** ecCodes' values of one field (by its short name) of a file, in the file's order. */
  function fieldValues(file: string, shortName: string): Float64Array {
    const count = Number(run('grib_get', ['-w', `shortName=${shortName}`, '-p', 'count', file]).trim().split('\n')[0]);
    return referenceValues(file, scratch, [count])[0]!.values;
  }

  const expectedAt = (values: Float64Array, around: Neighbour[], w: number[], toUnit: (raw: number) => number) =>
    toUnit(around.reduce((sum, n, k) => sum + w[k]! * values[n.index]!, 0));

  /** Float precision: each value is a float32 after unit conversion (relative 2^-24), a few roundings of it. */
  const close = (actual: number, expected: number, scale: number, label: string) =>
    assert.ok(Math.abs(actual - expected) <= 4 * 2 ** -24 * Math.max(Math.abs(expected), scale), `${label}: ${actual}, ecCodes ${expected}`);

  test('values at random points are the bilinear interpolation of the four grid points ecCodes gives, after unit conversion', async () => {
    const random = seededRandom(19);
    const points: [number, number][] = [
      [-1.25, 45.3], // between the last column (357.5°E) and the first (0°E)
      [180, -12.34],
      [-170.2, 89.9],
      [33.3, -89.9],
      ...Array.from({ length: 36 }, (): [number, number] => [Number((random() * 360 - 180).toFixed(4)), Number((random() * 180 - 90).toFixed(4))]),
    ];
    const temperatures = [gfs, ...steps].map((file) => fieldValues(file, '2t'));
    const pressure = fieldValues(gfs, 'prmsl');
    const [u, v] = [fieldValues(gfs, '10u'), fieldValues(gfs, '10v')];
    for (const [lon, lat] of points) {
      const response = await get(`/weather/point/${lon},${lat}.json?variables=temperature-2m:gfs,pressure-msl:gfs,wind-10m:gfs`);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      assert.deepEqual([body.lon, body.lat], [lon, lat]);
      const around = neighbours(gfs, ((lon % 360) + 360) % 360, lat);
      const w = weights(around, lon, lat);
      const byId = new Map(body.variables.map((variable: { variable_id: string }) => [variable.variable_id, variable]));
      const label = `${lon},${lat}`;

      const temperature = byId.get('temperature-2m:gfs') as { values: { timestamp: string; value: number }[]; unit: string };
      assert.deepEqual(temperature.values.map((x) => x.timestamp), ['2011-01-15T12:00:00.000Z', '2011-01-15T15:00:00.000Z', '2011-01-15T18:00:00.000Z']);
      temperature.values.forEach((x, k) => close(x.value, expectedAt(temperatures[k]!, around, w, (kelvin) => kelvin - 273.15), 300, `${label} temperature ${k}`));

      const msl = byId.get('pressure-msl:gfs') as { values: { value: number }[] };
      close(msl.values[0]!.value, expectedAt(pressure, around, w, (pa) => pa / 100), 1000, `${label} pressure`);

      const wind = byId.get('wind-10m:gfs') as { values: { u: number; v: number; speed: number; direction: number }[] };
      const [eu, ev] = [expectedAt(u, around, w, (ms) => ms), expectedAt(v, around, w, (ms) => ms)];
      const { u: au, v: av, speed, direction } = wind.values[0]!;
      close(au, eu, 30, `${label} u`);
      close(av, ev, 30, `${label} v`);
      close(speed, Math.hypot(eu, ev), 30, `${label} speed`);
      // The direction the wind comes from: a wind blowing towards the east (u > 0) comes from 270°.
      const from = (Math.atan2(-eu, -ev) * 180) / Math.PI;
      const expectedDirection = (from + 360) % 360;
      assert.ok(Math.abs(((direction - expectedDirection + 540) % 360) - 180) < 1e-3, `${label} direction ${direction}, expected ${expectedDirection}`);
    }
  });

  test('each variable carries its unit, model, attribution and run', async () => {
    const response = await get('/weather/point/10,40.json');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['cache-control']), /max-age=60/);
    const { variables } = response.json();
    const ids = variables.map((variable: { variable_id: string }) => variable.variable_id).sort();
    assert.deepEqual(ids, ['cloud_cover-total:gfs', 'precipitation-1h:gfs', 'precipitation_rate:gfs', 'pressure-msl:gfs', 'relative_humidity-2m:gfs', 'temperature-2m:gfs', 'temperature-2m:regional', 'wind-10m:gfs', 'wind_gust-10m:gfs']);
    const temperature = variables.find((variable: { variable_id: string }) => variable.variable_id === 'temperature-2m:gfs');
    assert.equal(temperature.unit, '°C');
    assert.equal(temperature.model, 'gfs');
    assert.equal(temperature.attribution, 'GFS');
    assert.equal(temperature.release_timestamp, '2011-01-10T12:00:00.000Z');
    assert.equal(temperature.channels, 'r');
    const regionalTemperature = variables.find((variable: { variable_id: string }) => variable.variable_id === 'temperature-2m:regional');
    assert.equal(regionalTemperature.model, 'regional');
    assert.equal(regionalTemperature.release_timestamp, '2008-02-06T12:00:00.000Z');
    // The regional grid runs 0-30°E by 2°, 60-0°N by 2°: 10,40 is its grid point (5, 10).
    const regionalValues = referenceValues(regional, scratch, [1])[0]!.values;
    close(regionalTemperature.values[0].value, regionalValues[10 * 16 + 5]! - 273.15, 300, 'regional grid point');
    const wind = variables.find((variable: { variable_id: string }) => variable.variable_id === 'wind-10m:gfs');
    assert.equal(wind.channels, 'rg');
    assert.deepEqual(Object.keys(wind.values[0]).sort(), ['direction', 'speed', 'timestamp', 'u', 'v']);
  });

  test('from and to select the keyframes of the window, both ends included', async () => {
    const values = async (query: string) => {
      const response = await get(`/weather/point/10,40.json?variables=temperature-2m:gfs&${query}`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json().variables[0].values.map((x: { timestamp: string }) => x.timestamp);
    };
    assert.deepEqual(await values('from=2011-01-15T15:00:00Z'), ['2011-01-15T15:00:00.000Z', '2011-01-15T18:00:00.000Z']);
    assert.deepEqual(await values('to=2011-01-15T15:00:00Z'), ['2011-01-15T12:00:00.000Z', '2011-01-15T15:00:00.000Z']);
    assert.deepEqual(await values('from=2011-01-15T13:00:00Z&to=2011-01-15T17:00:00%2B00:00'), ['2011-01-15T15:00:00.000Z']);
    assert.deepEqual(await values('from=2012-01-01T00:00:00Z'), []);
  });

  test('a base id names every model\'s variable whose grid covers the point', async () => {
    const ids = async (lon: number, lat: number) => {
      const response = await get(`/weather/point/${lon},${lat}.json?variables=temperature-2m`);
      assert.equal(response.statusCode, 200, response.body);
      return response.json().variables.map((variable: { variable_id: string }) => variable.variable_id).sort();
    };
    assert.deepEqual(await ids(10, 40), ['temperature-2m:gfs', 'temperature-2m:regional']);
    assert.deepEqual(await ids(100, 40), ['temperature-2m:gfs']);
    // Without variables, the regional one is left out where its grid does not reach.
    const all = (await get('/weather/point/100,40.json')).json().variables.map((variable: { variable_id: string }) => variable.variable_id);
    assert.ok(!all.includes('temperature-2m:regional') && all.includes('temperature-2m:gfs'));
  });

  test('bad points, unknown variables, bad times and points outside a named grid are 400 with the error body', async () => {
    const cases: [string, RegExp][] = [
      ['/weather/point/abc.json', /Invalid point "abc"/],
      ['/weather/point/10.json', /Invalid point "10"/],
      ['/weather/point/1,2,3.json', /Invalid point/],
      ['/weather/point/10,.json', /Invalid point/],
      ['/weather/point/0x10,5.json', /Invalid point/],
      ['/weather/point/180.5,10.json', /out of bounds/],
      ['/weather/point/10,-90.01.json', /out of bounds/],
      ['/weather/point/10,40.json?variables=snow-depth', /Unknown variable "snow-depth"/],
      ['/weather/point/10,40.json?variables=temperature-2m:gfs,,wind-10m', /Invalid variables/],
      ['/weather/point/10,40.json?from=yesterday', /"from" must match format "date-time"/],
      ['/weather/point/10,40.json?to=2011-01-15', /"to" must match format "date-time"/],
      ['/weather/point/10,40.json?from=2011-01-15T18:00:00Z&to=2011-01-15T12:00:00Z', /from \(2011-01-15T18:00:00.000Z\) is after to/],
      ['/weather/point/100,40.json?variables=temperature-2m:regional', /outside the grid of temperature-2m:regional/],
      ['/weather/point/100,40.json?variables=temperature-2m:gfs,temperature-2m:regional', /outside the grid of temperature-2m:regional/],
    ];
    for (const [url, message] of cases) {
      const error = await errorOf(url);
      assert.equal(error.status, 400, url);
      assert.match(error.message, message, url);
    }
  });

  test('the point API needs an API key: none or a wrong one is 403', async () => {
    for (const url of ['/weather/point/10,40.json', '/weather/point/10,40.json?key=not-a-key']) {
      const response = await get(url, false);
      assert.equal(response.statusCode, 403, url);
      assert.deepEqual(response.json(), { errors: [{ message: 'Key is missing, invalid or restricted' }] });
    }
  });

  test('source grids are written beside the archives and removed with them when their run expires', async () => {
    const { meridian } = server;
    const before = (await meridian.weather.latest()).filter((row) => row.variable_id === 'temperature-2m:regional');
    const grids = before.map((row) => path.join(meridian.weatherDirectory, row.archive.replace(/\.pmtiles$/, '.grid')));
    assert.ok(grids.length > 0 && grids.every((file) => existsSync(file)));
    await ingestFiles(meridian.weather, meridian.weatherDirectory, [regional], { ...options, model: 'regional', attribution: 'Regional' });
    assert.ok(grids.every((file) => !existsSync(file)), 'the expired run\'s source grids are gone');
    const response = await get('/weather/point/10,40.json?variables=temperature-2m:regional');
    assert.equal(response.statusCode, 200);
    assert.equal(response.json().variables[0].values.length, 1);
  });

  test('on a reduced grid with missing points (waves), each row is interpolated along its own points, then between the rows', async () => {
    const waves = example('reduced_latlon_surface.grib2');
    const height = { ...defaultVariables[0]!, id: 'wave-height', name: 'Wave height', unit: 'm', fields: [{ discipline: 10, category: 0, number: 3, levelType: 101 }], scale: 1, offset: 0, min: 0, max: 20 };
    await ingestFiles(server.meridian.weather, server.meridian.weatherDirectory, [waves], { ...options, variables: [height], model: 'waves', attribution: 'ECMWF' });
    // Coordinates and values at full precision, by index (grib_ls -l prints two decimals).
    const points = referencePoints(waves, 1);
    const random = seededRandom(20);
    let missing = 0;
    for (let n = 0; n < 40; n++) {
      const [lon, lat] = [Number((random() * 360 - 180).toFixed(4)), Number((random() * 150 - 75).toFixed(4))];
      const around = neighbours(waves, ((lon % 360) + 360) % 360, lat).map((p) => ({ ...p, lat: points[p.index]!.lat, lon: points[p.index]!.lon }));
      const east = (from: number, to: number) => (((to - from) % 360) + 360) % 360;
      const [north, south] = [Math.max(...around.map((p) => p.lat)), Math.min(...around.map((p) => p.lat))];
      const fj = (north - lat) / (north - south);
      const w = around.map((p) => {
        const row = around.filter((q) => q.lat === p.lat);
        const other = row.find((q) => q !== p)!;
        // The western point of the row is the one the point lies east of by less than the row's step.
        const west = east(p.lon, lon) < east(p.lon, other.lon) ? p : other;
        const fi = east(west.lon, lon) / east(west.lon, west === p ? other.lon : p.lon);
        return (p === west ? 1 - fi : fi) * (p.lat === north ? 1 - fj : fj);
      });
      const values = around.map((p) => points[p.index]!.value);
      let wanted: number | null = around.reduce((sum, _p, k) => sum + w[k]! * values[k]!, 0);
      if (Number.isNaN(wanted)) {
        missing++;
        const nearest = values[w.indexOf(Math.max(...w))]!;
        wanted = Number.isNaN(nearest) ? null : nearest;
      }
      const response = await get(`/weather/point/${lon},${lat}.json?variables=wave-height:waves`);
      assert.equal(response.statusCode, 200, response.body);
      const actual = response.json().variables[0].values[0].value;
      if (wanted === null) assert.equal(actual, null, `${lon},${lat}`);
      else close(actual, wanted, 20, `${lon},${lat} wave height`);
    }
    assert.ok(missing > 0, 'some points have a neighbour on land');
  });
});

after(() => rmSync(scratch, { recursive: true, force: true }));
