import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openMeridian } from '../../../src/meridian.js';
import { parseSteps, providerOf, scheduledProviders, scheduleFetches } from '../../../src/weather/providers/schedule.js';
import { cleanUp, testConfig } from '../../helpers.js';

test('forecast hours are single hours, ranges and ranges with a step, ascending and once each', () => {
  assert.deepEqual(parseSteps('6'), [6]);
  assert.deepEqual(parseSteps('0-3'), [0, 1, 2, 3]);
  assert.deepEqual(parseSteps('0-12/6,3,12-18/3'), [0, 3, 6, 12, 15, 18]);
  assert.equal(parseSteps('0-96/1').length, 97);
  for (const bad of ['', 'a', '5-1', '0-9/0', '0-9/x', '1,,2']) assert.throws(() => parseSteps(bad), Error, bad);
});

test('serve looks for runs at once and then every interval; a failed look is logged and the lease released', async () => {
  const config = testConfig();
  config.weather.fetch = { ...config.weather.fetch, baseUrl: 'http://127.0.0.1:1/gfs', intervalMinutes: 1 };
  const meridian = await openMeridian(config);
  const warnings: string[] = [];
  const log = { info: () => {}, warn: (_object: object, message: string) => void warnings.push(message) };
  try {
    const stop = scheduleFetches(meridian, log);
    for (let i = 0; i < 100 && warnings.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    stop();
    assert.deepEqual(warnings, ['weather fetch failed; the next look will try again']);
    const lease = await meridian.db.query(`SELECT 1 FROM meridian_settings WHERE name = 'weather_fetch_lease:gfs'`);
    assert.equal(lease.length, 0, 'the lease is released after a failed look');
    const again = scheduleFetches(meridian, log);
    for (let i = 0; i < 100 && warnings.length === 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    again();
    assert.equal(warnings.length, 2);
  } finally {
    await meridian.close();
    await cleanUp(config);
  }
});

test('no interval, no looking', () => {
  const config = testConfig();
  const stop = scheduleFetches({ config, db: null as never, weather: null as never, weatherDirectory: '' }, { info: () => assert.fail(), warn: () => assert.fail() });
  stop();
});

test("a provider fetches the variables its section names, with its model's attribution; an unknown id is an error naming it", () => {
  const { weather } = testConfig();
  const all = providerOf(weather, 'ifs');
  assert.equal(all.attribution, 'ECMWF IFS open data, CC-BY-4.0');
  assert.equal(all.layout.name, 'ECMWF IFS');
  assert.ok(all.variables.some((v) => v.id === 'wind_gust-10m'));
  const narrowed = providerOf({ ...weather, ecmwf: { ...weather.ecmwf, variables: ['temperature-2m', 'wind-10m'] } }, 'aifs-single');
  assert.deepEqual([...new Set(narrowed.variables.map((v) => v.id))], ['temperature-2m', 'wind-10m']);
  assert.equal(narrowed.attribution, 'ECMWF AIFS Single open data, CC-BY-4.0');
  assert.equal(providerOf(weather, 'gfs').attribution, 'GFS');
  assert.throws(() => providerOf({ ...weather, fetch: { ...weather.fetch, variables: ['temperature-2m', 'snow'] } }, 'gfs'), /weather\.fetch\.variables names no variable "snow"/);
});

test('serve runs the providers whose interval is set: GFS, and each configured ECMWF model', () => {
  const { weather } = testConfig();
  assert.deepEqual(scheduledProviders(weather), []);
  assert.deepEqual(
    scheduledProviders({ ...weather, fetch: { ...weather.fetch, intervalMinutes: 30 }, ecmwf: { ...weather.ecmwf, intervalMinutes: 60, models: ['ifs', 'aifs-single'] } }),
    ['gfs', 'ifs', 'aifs-single'],
  );
});
