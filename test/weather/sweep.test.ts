import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openMeridian, type Meridian } from '../../src/meridian.js';
import { sweepOrphans } from '../../src/weather/sweep.js';
import { cleanUp, testConfig } from '../helpers.js';

const config = testConfig();
let meridian: Meridian;

before(async () => {
  meridian = await openMeridian(config);
});
after(async () => {
  await meridian?.close();
  await cleanUp(config);
});

test('orphan archives and source grids older than the grace period go; published ones and young ones stay', async () => {
  const directory = meridian.weatherDirectory;
  mkdirSync(directory, { recursive: true });
  const live = randomUUID();
  await meridian.weather.publish('gfs', new Date('2026-11-26T00:00:00Z'), [
    { id: live, variableId: 'temperature-2m:gfs', validTime: new Date('2026-11-26T00:00:00Z'), archive: `${live}.pmtiles`, layer: {} },
  ], 1);
  const [old, young] = [randomUUID(), randomUUID()];
  const files = [`${live}.pmtiles`, `${live}.grid`, `${old}.pmtiles`, `${old}.grid`, `${young}.pmtiles`, `${young}.grid`];
  for (const name of files) writeFileSync(path.join(directory, name), 'x');
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (const name of files.slice(0, 4)) utimesSync(path.join(directory, name), hourAgo, hourAgo);

  const removed = await sweepOrphans(meridian.weather, directory, 60_000);
  assert.deepEqual(removed.sort(), [`${old}.grid`, `${old}.pmtiles`].sort());
  assert.deepEqual(readdirSync(directory).filter((name) => files.includes(name)).sort(), [`${live}.pmtiles`, `${live}.grid`, `${young}.pmtiles`, `${young}.grid`].sort());
});
