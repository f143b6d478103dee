/**
 * Archives no published run holds (left by an ingest killed before it published) and unfinished
 * download folders are removed at start-up and after each publish, once older than the ingest time
 * limit; live archives and files an ingest may still be writing are kept.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openMeridian } from '../../src/meridian.js';
import { example } from '../weather/eccodes.js';
import { cleanUp, testConfig } from '../helpers.js';

function plant(file: string, ageMs: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'left by a crashed ingest');
  const time = new Date(Date.now() - ageMs);
  utimesSync(file, time, time);
}

test('start-up and every publish remove orphaned archives and downloads older than the ingest time limit', async () => {
  const config = testConfig({ weather: { ingestTimeoutMs: 60_000 } });
  const weather = path.join(config.dataDir, 'weather');
  plant(path.join(weather, 'crashed.pmtiles'), 120_000);
  plant(path.join(weather, 'incoming/run/20260101-f000.grib2'), 120_000);
  utimesSync(path.join(weather, 'incoming/run'), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
  plant(path.join(weather, 'being-written.pmtiles'), 1_000);
  let meridian = await openMeridian(config);
  try {
    assert.ok(!existsSync(path.join(weather, 'crashed.pmtiles')), 'an old orphan is removed at start-up');
    assert.ok(!existsSync(path.join(weather, 'incoming/run')), 'an old download folder is removed at start-up');
    assert.ok(existsSync(path.join(weather, 'being-written.pmtiles')), 'a recent file may belong to an ingest in progress');

    const report = (await meridian.admin({ op: 'weather.ingest', files: [example('regular_latlon_surface.grib2')], model: 'm', attribution: 'M' })) as {
      runs: { keyframes: unknown[] }[];
    };
    plant(path.join(weather, 'killed-meanwhile.pmtiles'), 120_000);
    await meridian.admin({ op: 'weather.ingest', files: [example('regular_latlon_surface.grib2')], model: 'm', attribution: 'M' });
    const live = await meridian.weather.archives();
    assert.ok(!existsSync(path.join(weather, 'killed-meanwhile.pmtiles')), 'an old orphan is removed after a publish');
    const archives = readdirSync(weather).filter((name) => name.endsWith('.pmtiles'));
    assert.deepEqual(archives.filter((name) => !live.has(name)), ['being-written.pmtiles']);
    assert.equal(live.size, report.runs[0]!.keyframes.length, 'one run kept (keepRuns 1), its archives on disk');
    await meridian.close();
    meridian = await openMeridian(config);
    assert.deepEqual(await meridian.weather.archives(), live, 'start-up keeps every live archive');
  } finally {
    await meridian.close();
    await cleanUp(config);
  }
});
