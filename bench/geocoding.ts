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
 * - Imported maps, the two OpenStreetMap samples the tests import: for each, the index build as
 *   `maps import` runs it (osmium's filter and export, the build, the file; objects of the extract a
 *   second) and the build alone (the features osmium exports a second); the indexes' files and
 *   memory; searches through the Geocoder with both loaded, as the server searches (world and
 *   extracts ranked together): forward (streets, addresses, points of interest as typed, with
 *   typos), autocomplete (their prefixes), reverse (points across both samples); and the same SQL
 *   over the extracts' names, and (PostgreSQL server) over theirs and the world's, all the search covers.
 */

import { execFileSync } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import pg from 'pg';
import pino from 'pino';
import { buildExtractIndex, type OsmFeature } from '../src/geocoding/extracts/extract-index.js';
import { writeGeocodingIndex } from '../src/geocoding/extracts/import.js';
import { readExtractIndex } from '../src/geocoding/extracts/index-file.js';
import { Geocoder } from '../src/geocoding/geocoder.js';
import { forward } from '../src/geocoding/forward.js';
import { buildIndexCache, readIndexCache, worldIndexPath } from '../src/geocoding/index-cache.js';
import { parseOptions, queryWords } from '../src/geocoding/parameters.js';
import { COUNTRY, type PlaceIndex } from '../src/geocoding/place-index.js';
import { reverse } from '../src/geocoding/reverse.js';
import { osmiumFeatures, SAMPLE_FILES } from '../test/geocoding/extracts/samples.js';
import { tempDir } from '../test/scratch.js';
import { osmiumDataExtent } from '../test/tools/osm/street-maps.js';
import { median, percentile, saveResults } from './instance.js';

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

/** Every prefix of the queries from one letter, as a search box sends them. */
const prefixesOf = (list: readonly string[]) => list.flatMap((query) => Array.from({ length: query.length }, (_, i) => query.slice(0, i + 1)).filter((p) => p.trim() !== ''));
const prefixes = prefixesOf(queries);

/** Builds the world index into a cache file in `dir` and reads it back, as a start-up does. */
async function buildAndRead(dir: string): Promise<{ index: PlaceIndex; results: Record<string, unknown> }> {
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

/** The names of an index, the world's or an extract's: each name's entry and folded words, each entry's importance. */
type Names = Pick<PlaceIndex, 'nameEntry' | 'nameWordStart' | 'nameWords' | 'words' | 'importance'>;

/** The names of the indexes in one table, their entries numbered one index after the other. */
async function loadNames(db: Sql, indexes: readonly Names[]): Promise<void> {
  await db.query('CREATE TABLE geo_names (entry integer NOT NULL, folded text NOT NULL, importance real NOT NULL)');
  const rows: [number, string, number][] = [];
  let first = 0;
  for (const index of indexes) {
    for (let name = 0; name < index.nameEntry.length; name++) {
      const entry = index.nameEntry[name]!;
      const words = index.nameWords.subarray(index.nameWordStart[name]!, index.nameWordStart[name + 1]!);
      rows.push([first + entry, [...words].map((w) => index.words[w]).join(' '), index.importance[entry]!]);
    }
    first += index.importance.length;
  }
  for (let i = 0; i < rows.length; i += 10_000) {
    const chunk = rows.slice(i, i + 10_000);
    await db.query('INSERT INTO geo_names SELECT * FROM unnest($1::integer[], $2::text[], $3::real[])', [chunk.map((r) => r[0]), chunk.map((r) => r[1]), chunk.map((r) => r[2])]);
  }
}

/** The whole queries and the prefixes searched, as the in-memory searches get them. */
interface Searches {
  whole: readonly string[];
  prefixes: readonly string[];
}

async function sqlFigures(db: Sql, indexes: readonly Names[], searches: Searches): Promise<Record<string, unknown>> {
  await loadNames(db, indexes);
  const whole = searches.whole.map((q) => queryWords(q).join(' '));
  const scan = figures(await measureAsync(whole, (q) => db.query("SELECT entry FROM geo_names WHERE folded ILIKE '%' || $1 || '%' ORDER BY importance DESC LIMIT 5", [q])));
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
  const indexing = performance.now();
  await db.query('CREATE INDEX geo_names_trgm ON geo_names USING gin (folded gin_trgm_ops)');
  const indexMs = Math.round(performance.now() - indexing);
  await db.query('ANALYZE geo_names');
  const prefix = figures(await measureAsync(searches.prefixes.map((p) => queryWords(p).join(' ')), (q) => db.query("SELECT entry FROM geo_names WHERE folded ILIKE $1 || '%' ORDER BY importance DESC LIMIT 5", [q])));
  const similar = figures(await measureAsync(whole, (q) => db.query('SELECT entry FROM geo_names WHERE folded % $1 ORDER BY similarity(folded, $1) DESC, importance DESC LIMIT 5', [q])));
  return { ilikeScan: scan, trgmPrefix: prefix, trgmSimilarity: similar, trgmIndexBuildMs: indexMs };
}

async function postgresFigures(indexes: readonly Names[], searches: Searches): Promise<Record<string, unknown> | string> {
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
    return await sqlFigures(client, indexes, searches);
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

async function pgliteFigures(indexes: readonly Names[], searches: Searches): Promise<Record<string, unknown>> {
  const db = await PGlite.create({ extensions: { pg_trgm } });
  try {
    return await sqlFigures(db, indexes, searches);
  } finally {
    await db.close();
  }
}

/** Streets, addresses and points of interest of the two samples as users type them, with typos; and a place of each. */
const extractQueries = ['Haydnstraße', 'haydnstrasse', 'Goethestr. 11', 'Richard-Wagner-Straße 19', '5 Haydnstrasse', 'Beethovenstr. 17', 'Gothestrasse', 'Schwendir Weg 20', '7th Street', '1612 7th St', 'Willow Street, Oakland', 'Campbel Street', 'Revolution Cafe', 'esthers orbit room', 'Prescott School', 'Oakland Main Post Office', 'West Side Baptist Church', 'Kirchberg an der Iller'];
const extractPrefixes = prefixesOf(extractQueries);

/** The objects of an extract (nodes, ways, relations), as osmium counts them. */
function osmObjects(file: string): number {
  const info = JSON.parse(execFileSync('osmium', ['fileinfo', '--extended', '--json', file], { encoding: 'utf8' })) as { data: { count: { nodes: number; ways: number; relations: number } } };
  return info.data.count.nodes + info.data.count.ways + info.data.count.relations;
}

/** What `maps import` hands the builder: osmium's export of the objects it kept in its work folder (`named.osm.pbf`). */
function searchableFeatures(work: string): OsmFeature[] {
  return osmiumFeatures(path.join(work, 'named.osm.pbf'))
    .filter((f) => f.geometry !== null)
    .map(({ geometry, properties: { '@type': type, '@id': id, ...tags } }) => ({ type: type as OsmFeature['type'], id: Number(id), tags: tags as Record<string, string>, geometry }));
}

/** The samples' indexes: built, read back, searched with the world's as the server searches them, and the SQL floor over their names. */
async function extractFigures(dataDir: string): Promise<Record<string, unknown>> {
  const world = await readIndexCache(worldIndexPath(dataDir));
  if ('problem' in world) throw new Error(world.problem);
  // Working folders inside the data directory, removed with it.
  const folder = (...parts: string[]) => {
    const dir = path.join(dataDir, 'extracts', ...parts);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const files: string[] = [];
  const build: Record<string, unknown> = {};
  const points: string[] = [];
  for (const [id, pbf] of Object.entries(SAMPLE_FILES)) {
    const bounds = osmiumDataExtent(pbf) as [number, number, number, number];
    const objects = osmObjects(pbf);
    // As `maps import` builds it: osmium, the build, the file (the world index is read once, on the first).
    const imports: number[] = [];
    let result: Awaited<ReturnType<typeof writeGeocodingIndex>> | undefined;
    const work = folder(id, 'work');
    for (let run = 0; run < 6; run++) {
      const started = performance.now();
      result = await writeGeocodingIndex({ pbf, id, bounds, partial: folder(id, `${run}`), work, dataDir });
      if (run > 0) imports.push(performance.now() - started);
    }
    files.push(result!.file);
    const features = searchableFeatures(work);
    const builds = measure([0], () => buildExtractIndex(id, features, world.index, bounds), 20);
    build[id] = {
      objects,
      entries: result!.entries,
      importMs: round(median(imports), 1),
      importObjectsPerSecond: Math.round(objects / (median(imports) / 1000)),
      features: features.length,
      buildMs: round(median(builds)),
      buildFeaturesPerSecond: Math.round(features.length / (median(builds) / 1000)),
      fileKB: round(statSync(result!.file).size / 1e3, 1),
    };
    // Reverse lookups: a 10 × 10 grid over the sample's data.
    for (let i = 0; i < 100; i++) points.push(`${bounds[0] + ((i % 10) + 0.5) * ((bounds[2] - bounds[0]) / 10)},${bounds[1] + (Math.floor(i / 10) + 0.5) * ((bounds[3] - bounds[1]) / 10)}`);
  }
  // Memory: of 50 copies of both indexes read back, a fiftieth (one copy is tens of KB, less than the heap's noise).
  const copies = 50;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage();
  const read = await Promise.all(Array.from({ length: copies }, () => files.map((file) => readExtractIndex(file))).flat());
  gc?.();
  const after = process.memoryUsage();
  const indexes = read.slice(0, files.length).map((r) => {
    if ('problem' in r) throw new Error(r.problem);
    return r.index;
  });
  const memoryKB = gc === undefined ? 'run with --expose-gc' : round((after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / copies / 1e3, 1);

  const geocoder = new Geocoder(dataDir, { buildIndex: true }, pino({ level: 'silent' }));
  await geocoder.ready;
  await geocoder.useExtracts(files);
  const search = (text: string, more: Record<string, unknown> = {}) => geocoder.search(text, { limit: 5, autocomplete: true, fuzzyMatch: true, ...more }, undefined);
  const searches = {
    forward: figures(measure(extractQueries, (q) => search(q, { autocomplete: false }))),
    autocomplete: figures(measure(extractPrefixes, (q) => search(q))),
    reverse: figures(measure(points, (p) => search(p))),
  };
  await geocoder.close();
  const extractSearches = { whole: extractQueries, prefixes: extractPrefixes };
  const results = {
    build,
    entries: indexes.reduce((sum, index) => sum + index.kind.length, 0),
    names: indexes.reduce((sum, index) => sum + index.nameEntry.length, 0),
    memoryKB,
    searches,
    postgres: await postgresFigures(indexes, extractSearches),
    pglite: await pgliteFigures(indexes, extractSearches),
    // The names the search covers: the extracts' and the world's, which it ranks them with.
    postgresWithWorld: await postgresFigures([...indexes, world.index], extractSearches),
  };
  console.log('imported maps', JSON.stringify(results, null, 2));
  return results;
}

const dataDir = tempDir();
const { index, results: build } = await buildAndRead(dataDir);
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
const worldSearches = { whole: queries, prefixes };
const postgres = await postgresFigures([index], worldSearches);
console.log('PostgreSQL (ms)', postgres);
const pglite = await pgliteFigures([index], worldSearches);
console.log('PGlite (ms)', pglite);
const extracts = await extractFigures(dataDir);
rmSync(dataDir, { recursive: true, force: true });
saveResults('geocoding', { build, serving, searches, postgres, pglite, extracts });
