/**
 * `npm run bench:geocoding`: the world place index (src/geocoding/) in-process, against PostgreSQL
 * doing the same searches over the same names in the same run.
 *
 * - Index: build time and throughput (places a second), size of the cache file, time to read it
 *   back (what a start-up pays), memory it takes (heap and array buffers after reading it).
 * - Serving while the index is built: the serving thread's longest event-loop stall while a Geocoder
 *   builds its index on its worker thread and reads it back (the build itself is off the thread).
 * - Searches, warm: forward (whole names of places of several sizes and countries, and typos),
 *   autocomplete (every prefix of those names from 1 letter, as a search box sends them), reverse
 *   (points near places); p50 and p99.
 * - PostgreSQL, same folded names, same machine: a plain `ILIKE '%word%'` scan (the floor any
 *   index must beat), `ILIKE 'prefix%'` with a pg_trgm GIN index, and pg_trgm's `%` similarity
 *   (typos) with the same index; on the PostgreSQL server (MERIDIAN_BENCH_POSTGRES_URL, default the
 *   local `test` database, in a schema of its own) and on PGlite with its pg_trgm extension.
 */

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readFileSync, rmSync, statSync } from 'node:fs';
import v8 from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import pino from 'pino';
import { Geocoder } from '../src/geocoding/geocoder.js';
import { forward } from '../src/geocoding/forward.js';
import { buildIndexCache, readIndexCache, worldIndexPath } from '../src/geocoding/index-cache.js';
import { parseOptions, queryWords } from '../src/geocoding/parameters.js';
import { COUNTRY, type PlaceIndex } from '../src/geocoding/place-index.js';
import { reverse } from '../src/geocoding/reverse.js';
import { tempDir } from '../test/scratch.js';
import { percentile, saveResults } from './instance.js';

const postgresUrl = process.env.MERIDIAN_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const queries = ['Zurich', 'Paris', 'London', 'New York', 'Sao Paulo', 'Tokyo', 'Koln', 'Krakow', 'Reykjavik', 'Buenos Aires', 'Cape Town', 'Kirchberg an der Iller', 'Oakland', 'Wellington', 'Deutschland', 'Schweiz', 'Barcleona', 'Amsterdm', 'Stokholm', 'wahsington'];
const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

function time<T>(run: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = run();
  return { ms: performance.now() - started, value };
}

function figures(samples: number[]): { p50: number; p99: number; n: number } {
  return { p50: round(percentile(samples, 50)), p99: round(percentile(samples, 99)), n: samples.length };
}

/** Each call of `run` on each item, after one warm-up pass. */
function measure<T>(items: readonly T[], run: (item: T) => unknown, passes = 5): number[] {
  for (const item of items) run(item);
  const samples: number[] = [];
  for (let pass = 0; pass < passes; pass++) for (const item of items) samples.push(time(() => run(item)).ms);
  return samples;
}

async function measureAsync<T>(items: readonly T[], run: (item: T) => Promise<unknown>, passes = 3): Promise<number[]> {
  for (const item of items) await run(item);
  const samples: number[] = [];
  for (let pass = 0; pass < passes; pass++) {
    for (const item of items) {
      const started = performance.now();
      await run(item);
      samples.push(performance.now() - started);
    }
  }
  return samples;
}

const prefixes = queries.flatMap((query) => Array.from({ length: query.length }, (_, i) => query.slice(0, i + 1)).filter((p) => p.trim() !== ''));

async function buildAndRead(): Promise<{ index: PlaceIndex; results: Record<string, unknown> }> {
  const dir = tempDir();
  const file = worldIndexPath(dir);
  const built = time(() => buildIndexCache(file));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const read = await readIndexCache(file);
  gc?.();
  if ('problem' in read) throw new Error(read.problem);
  const readMs = time(() => v8.deserialize(readFileSync(file))).ms;
  const after = process.memoryUsage();
  const index = read.index;
  const places = index.kind.length;
  const results = {
    places,
    names: index.nameEntry.length,
    words: index.words.length,
    buildMs: Math.round(built.ms),
    buildPlacesPerSecond: Math.round(places / (built.ms / 1000)),
    cacheFileMB: round(statSync(file).size / 1e6, 1),
    readMs: Math.round(readMs),
    memoryMB: gc === undefined ? 'run with --expose-gc' : round((after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / 1e6, 1),
  };
  rmSync(dir, { recursive: true, force: true });
  return { index, results };
}

/** The serving thread's longest stall while a Geocoder builds its index on its worker and reads it back. */
async function stallDuringBuild(): Promise<Record<string, number>> {
  const dir = tempDir();
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const started = performance.now();
  const geocoder = new Geocoder(dir, { buildIndex: true }, pino({ level: 'silent' }));
  await geocoder.ready;
  const readyMs = performance.now() - started;
  histogram.disable();
  await geocoder.close();
  const restart = performance.now();
  const again = new Geocoder(dir, { buildIndex: true }, pino({ level: 'silent' }));
  await again.started;
  const startMs = performance.now() - restart;
  await again.close();
  rmSync(dir, { recursive: true, force: true });
  return { buildOnWorkerMs: Math.round(readyMs), maxEventLoopStallMs: round(histogram.max / 1e6, 1), p99EventLoopDelayMs: round(histogram.percentile(99) / 1e6, 1), startFromCacheMs: Math.round(startMs) };
}

interface Sql {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

async function loadNames(db: Sql, index: PlaceIndex): Promise<void> {
  await db.query('CREATE TABLE geo_names (entry integer NOT NULL, folded text NOT NULL, importance real NOT NULL)');
  const rows: [number, string, number][] = [];
  for (let name = 0; name < index.nameEntry.length; name++) {
    const entry = index.nameEntry[name]!;
    const words = index.nameWords.subarray(index.nameWordStart[name]!, index.nameWordStart[name + 1]!);
    rows.push([entry, [...words].map((w) => index.words[w]).join(' '), index.importance[entry]!]);
  }
  for (let i = 0; i < rows.length; i += 10_000) {
    const chunk = rows.slice(i, i + 10_000);
    await db.query('INSERT INTO geo_names SELECT * FROM unnest($1::integer[], $2::text[], $3::real[])', [chunk.map((r) => r[0]), chunk.map((r) => r[1]), chunk.map((r) => r[2])]);
  }
}

async function sqlFigures(db: Sql, index: PlaceIndex): Promise<Record<string, unknown>> {
  await loadNames(db, index);
  const whole = queries.map((q) => queryWords(q).join(' '));
  const scan = figures(await measureAsync(whole, (q) => db.query("SELECT entry FROM geo_names WHERE folded ILIKE '%' || $1 || '%' ORDER BY importance DESC LIMIT 5", [q])));
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  const indexing = performance.now();
  await db.query('CREATE INDEX geo_names_trgm ON geo_names USING gin (folded gin_trgm_ops)');
  const indexMs = Math.round(performance.now() - indexing);
  await db.query('ANALYZE geo_names');
  const prefix = figures(await measureAsync(prefixes.map((p) => queryWords(p).join(' ')), (q) => db.query("SELECT entry FROM geo_names WHERE folded ILIKE $1 || '%' ORDER BY importance DESC LIMIT 5", [q])));
  const similar = figures(await measureAsync(whole, (q) => db.query('SELECT entry FROM geo_names WHERE folded % $1 ORDER BY similarity(folded, $1) DESC, importance DESC LIMIT 5', [q])));
  return { ilikeScan: scan, trgmPrefix: prefix, trgmSimilarity: similar, trgmIndexBuildMs: indexMs };
}

async function postgresFigures(index: PlaceIndex): Promise<Record<string, unknown> | string> {
  const client = new pg.Client({ connectionString: postgresUrl });
  try {
    await client.connect();
  } catch (error) {
    return `not measured: ${(error as Error).message}`;
  }
  const schema = `bench_geocoding_${process.pid}`;
  try {
    await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`SET search_path TO ${schema}, public`);
    return await sqlFigures(client, index);
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

async function pgliteFigures(index: PlaceIndex): Promise<Record<string, unknown>> {
  const db = await PGlite.create({ extensions: { pg_trgm } });
  try {
    return await sqlFigures(db, index);
  } finally {
    await db.close();
  }
}

const { index, results: build } = await buildAndRead();
console.log('index', build);
const serving = await stallDuringBuild();
console.log('serving while building', serving);
const options = (more: Record<string, unknown> = {}) => parseOptions({ limit: 5, autocomplete: true, fuzzyMatch: true, ...more }, undefined, () => true);
const exact = options({ autocomplete: false });
const typing = options();
const searches = {
  forward: figures(measure(queries, (q) => forward(index, queryWords(q), exact))),
  autocomplete: figures(measure(prefixes, (q) => forward(index, queryWords(q), typing))),
  reverse: figures(
    measure(
      Array.from({ length: 200 }, (_, i) => {
        const entry = (i * 677) % index.kind.length;
        return index.kind[entry] === COUNTRY ? [0, 0] : [index.lon[entry]! + 0.01, index.lat[entry]! - 0.01];
      }),
      ([lon, lat]) => reverse(index, lon!, lat!, typing),
    ),
  ),
};
console.log('searches (ms)', searches);
const postgres = await postgresFigures(index);
console.log('PostgreSQL (ms)', postgres);
const pglite = await pgliteFigures(index);
console.log('PGlite (ms)', pglite);
saveResults('geocoding', { build, serving, searches, postgres, pglite });
