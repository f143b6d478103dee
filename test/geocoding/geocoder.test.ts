/**
 * The geocoder builds its index on a worker thread when its data directory has none, answers 503
 * meanwhile, saves it, and reads it back at the next start.
 */

import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { after, test } from 'node:test';
import pino from 'pino';
import { Geocoder } from '../../src/geocoding/geocoder.js';
import { buildWorldIndex, worldIndexPath } from '../../src/geocoding/index-cache.js';
import { ApiError } from '../../src/platform/errors.js';
import { LogCapture } from '../helpers.js';
import { tempDir } from '../scratch.js';

const dataDir = tempDir();
const query = { limit: 5, autocomplete: true, fuzzyMatch: true };
const geocoders: Geocoder[] = [];
after(() => Promise.all(geocoders.map((g) => g.close())));

function open(log: LogCapture, buildIndex = true, dir = dataDir): Geocoder {
  const geocoder = new Geocoder(dir, { buildIndex }, pino({ level: 'info' }, log));
  geocoders.push(geocoder);
  return geocoder;
}

test('without a cache: 503 while the index is built off the serving thread, then answers; the next start reads the cache', async () => {
  const log = new LogCapture();
  const first = open(log);
  await first.started;
  assert.equal(first.status, 'building');
  assert.throws(
    () => first.search('zurich', query, undefined),
    (error: unknown) => error instanceof ApiError && error.statusCode === 503 && error.headers['retry-after'] === '5',
  );
  await first.ready;
  assert.equal(first.status, 'built');
  assert.equal(first.search('zurich', query, undefined).features[0]!.text, 'Zürich');
  assert.ok(existsSync(worldIndexPath(dataDir)));
  assert.match(log.text, /geocoding index built/);

  const again = new LogCapture();
  const second = open(again);
  await second.started;
  assert.equal(second.status, 'loaded');
  assert.equal(second.search('8.5417,47.3769', query, undefined).features.at(-1)!.text, 'Switzerland', 'answers as soon as it has started');
  assert.match(again.text, /loaded from its cache/);
});

test('a damaged cache file is rebuilt', async () => {
  writeFileSync(worldIndexPath(dataDir), 'not an index');
  const log = new LogCapture();
  const geocoder = open(log);
  await geocoder.started;
  assert.match(log.text, /unreadable|built from other data/);
  await geocoder.ready;
  assert.equal(geocoder.search('paris', query, undefined).features[0]!.place_name, 'Paris, Île-de-France, France');
});

test('with geocoding.buildIndex false and no index: 503 naming the command, nothing built; `geocoding build-index` builds it, once', async () => {
  const dir = tempDir();
  const log = new LogCapture();
  const off = open(log, false, dir);
  await off.ready;
  assert.equal(off.status, 'off');
  assert.throws(
    () => off.search('zurich', query, undefined),
    (error: unknown) => error instanceof ApiError && error.statusCode === 503 && /meridian geocoding build-index/.test(error.message),
  );
  assert.equal(existsSync(worldIndexPath(dir)), false);
  assert.match(log.text, /geocoding.buildIndex is false/);

  const built = await buildWorldIndex(dir);
  assert.equal(built.built, true);
  assert.ok(built.places > 100_000, `${built.places} places`);
  assert.equal((await buildWorldIndex(dir)).built, false, 'a current index is left alone');
  const next = open(new LogCapture(), false, dir);
  await next.ready;
  assert.equal(next.status, 'loaded');
  assert.equal(next.search('zurich', query, undefined).features[0]!.text, 'Zürich');
});
