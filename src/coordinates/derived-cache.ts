/**
 * The default transformation (and its accuracy) of every EPSG CRS, computed once at setup
 * (`meridian coordinates build-cache`, run by scripts/prepare-data.sh) into a file under the data
 * directory, so that a search whose CRSs no one has asked for yet needs no PROJ operation search
 * (from under a millisecond to half a second a CRS in WebAssembly).
 *
 * The file is keyed by what its answers depend on: the EPSG version of proj.db, the engine
 * (npm package version and PROJ version), the file format, and the names of the grids PROJ can
 * open here (a default transformation is the best candidate that runs here: installing a grid can
 * change it). The server loads it at start-up; a file that is missing, unreadable, malformed or
 * keyed otherwise is ignored with one log line, and the fields are then computed on first use on
 * the coordinates pool, as without a cache (choice: the server never rebuilds the file itself; a
 * full build is minutes of PROJ work that belongs to setup, not to a serving instance).
 *
 * The exports of every CRS (`exports=true`: PROJ.4 and WKT bound to WGS 84, ~6 MB) are computed
 * in the same pass into a second file, read on the first search that asks for exports rather than
 * at start-up (its parse would add tens of milliseconds to every start for an option few use).
 * Transformation details (`transformations=true`) are not computed at setup: they are per pair of
 * CRS and transformation (62,000 pairs in EPSG v13.102, each a bound export and a trial transform:
 * minutes more of setup and tens of megabytes), and are computed on first use.
 */

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Progress } from '../platform/progress.js';
import { writeFileAtomically } from '../platform/files/atomic-file.js';
import type { DefaultTransformation, Derived, DeriveTask } from './derive.js';
import { projInfo, type Exports } from './proj/proj.js';
import { ENGINE } from './proj/proj-data.js';
import { sources } from './proj/proj-wasm.js';

/**
 * 2: default transformations are PROJ's first candidate, chains of EPSG steps included (issue 18).
 * 3: the registry index (index-cache.ts, keyed by this too) carries the datums' publication years.
 * 4: the engine passes over operations it cannot instantiate (proj-wasm.ts), so that ETRF and
 *    ITRF CRSs whose search met one have their default transformation (issue 29).
 */
const FORMAT = 4;

export interface DerivedCacheKey {
  format: number;
  epsg: string;
  engine: string;
  proj: string;
  /** SHA-256 of the sorted names of the grid files PROJ can open. */
  grids: string;
}

/** Default transformations by CRS code (null: the CRS has none). */
export type DefaultTransformations = ReadonlyMap<number, DefaultTransformation | null>;

/** What a cache file holds; `defaults` rows are `[crs, code, steps, name, accuracy]`, or `[crs]` when there is none. */
interface CacheFile {
  key: DerivedCacheKey;
  defaults: ([number] | [number, number | null, number[], string, number | null])[];
}

/** Where the file is in the caches' folder (`coordinatesCacheDirectoryOf`). */
export const derivedCachePath = (folder: string): string => path.join(folder, 'derived-cache.json');

/** Where the exports file is: beside the default transformations. */
export const exportsCachePath = (folder: string): string => path.join(folder, 'exports-cache.json');

/** Exports of CRSs by code, as `crsExportsOf` gives them. */
export type PresetExports = ReadonlyMap<number, Exports>;

/** The key of the registry, engine and grids this process uses. */
export function currentKey(): DerivedCacheKey {
  const grids = createHash('sha256').update([...sources.files.keys()].sort().join('\n')).digest('hex');
  return { format: FORMAT, epsg: projInfo().epsgVersion ?? 'unknown', engine: `${ENGINE.package}@${ENGINE.version}`, proj: ENGINE.proj, grids };
}

const sameKey = (a: DerivedCacheKey, b: DerivedCacheKey) =>
  a.format === b.format && a.epsg === b.epsg && a.engine === b.engine && a.proj === b.proj && a.grids === b.grids;

const isCode = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

/** The cache's defaults, or why the file cannot be used. */
export function readDerivedCache(file: string, key: DerivedCacheKey = currentKey()): { defaults: DefaultTransformations } | { problem: string } {
  const read = readKeyed(file, key);
  if ('problem' in read) return read;
  const parsed = read.parsed as unknown as CacheFile;
  if (!Array.isArray(parsed.defaults)) return { problem: 'malformed (no defaults)' };
  const defaults = new Map<number, DefaultTransformation | null>();
  for (const row of parsed.defaults) {
    const valid =
      Array.isArray(row) &&
      isCode(row[0]) &&
      (row.length === 1 ||
        (row.length === 5 &&
          (row[1] === null || isCode(row[1])) &&
          Array.isArray(row[2]) &&
          row[2].length > 0 &&
          row[2].every(isCode) &&
          typeof row[3] === 'string' &&
          (row[4] === null || (typeof row[4] === 'number' && row[4] >= 0))));
    if (!valid) return { problem: `malformed row ${JSON.stringify(row)}` };
    defaults.set(row[0], row.length === 1 ? null : { code: row[1], steps: row[2], name: row[3], accuracy: row[4] });
  }
  return { defaults };
}

/** The key of a cache file, or why it cannot be used; the parsed file on success. */
function readKeyed(file: string, key: DerivedCacheKey): { parsed: Record<string, unknown> } | { problem: string } {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'no cache file' : `unreadable (${(error as Error).message})` };
  }
  const found = parsed?.key as DerivedCacheKey | undefined;
  if (typeof found !== 'object' || found === null) return { problem: 'malformed (no key)' };
  if (!sameKey(found, key)) {
    return { problem: `built for EPSG ${found.epsg} with ${found.engine} (PROJ ${found.proj}), format ${found.format}, another grid set or not: this is EPSG ${key.epsg} with ${key.engine}` };
  }
  return { parsed };
}

/** Writes a cache file atomically: its key, then its rows under `field`, one a line. */
function writeKeyed(file: string, key: DerivedCacheKey, field: string, rows: readonly unknown[]): void {
  writeFileAtomically(file, `{"key":${JSON.stringify(key)},"${field}":[\n${rows.map((row) => JSON.stringify(row)).join(',\n')}\n]}\n`);
}

const isText = (value: unknown) => value === null || typeof value === 'string';

/** The exports file's exports, or why it cannot be used; rows are `[crs, proj4, wkt]`. */
export function readExportsCache(file: string, key: DerivedCacheKey = currentKey()): { exports: PresetExports } | { problem: string } {
  const read = readKeyed(file, key);
  if ('problem' in read) return read;
  const rows = read.parsed.exports;
  if (!Array.isArray(rows)) return { problem: 'malformed (no exports)' };
  const exports = new Map<number, Exports>();
  for (const row of rows as unknown[]) {
    if (!(Array.isArray(row) && row.length === 3 && isCode(row[0]) && isText(row[1]) && isText(row[2]))) return { problem: `malformed row ${JSON.stringify(row).slice(0, 200)}` };
    exports.set(row[0], { proj4: row[1], wkt: row[2] });
  }
  return { exports };
}

/** Writes the exports file atomically. */
export function writeExportsCache(file: string, exports: PresetExports, key: DerivedCacheKey = currentKey()): void {
  writeKeyed(file, key, 'exports', [...exports].sort(([a], [b]) => a - b).map(([code, found]) => [code, found.proj4, found.wkt]));
}

/**
 * The exports file of this installation, read on first use (the first search asking for exports)
 * and kept; none (logged once) when it cannot be used: exports are then computed on first use.
 */
export function lazyExports(folder: string, log: CacheLog): () => PresetExports {
  let loaded: PresetExports | undefined;
  return () => {
    if (loaded) return loaded;
    const file = exportsCachePath(folder);
    const started = performance.now();
    const read = readExportsCache(file);
    if ('problem' in read) {
      log.warn({ file, problem: read.problem }, 'coordinates exports cache not used: exports are computed on first use; `meridian coordinates build-cache` builds it');
      loaded = new Map();
    } else {
      log.info({ file, crs: read.exports.size, ms: Math.round(performance.now() - started) }, 'coordinates exports cache loaded');
      loaded = read.exports;
    }
    return loaded;
  };
}

/** Where a starting server says whether a coordinates cache served. */
export interface CacheLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Writes the cache file atomically (a reader sees the old file or the new one). */
export function writeDerivedCache(file: string, defaults: DefaultTransformations, key: DerivedCacheKey = currentKey()): void {
  const rows = [...defaults].sort(([a], [b]) => a - b).map(([code, best]) => (best ? [code, best.code, best.steps, best.name, best.accuracy] : [code]));
  writeKeyed(file, key, 'defaults', rows);
}

/** CRSs a task asks for at a time: a few seconds of PROJ, so progress moves and a stuck CRS costs little. */
const CHUNK = 20;

export interface ComputeOptions {
  /** Where the results go as they come (a serving instance's searches read them meanwhile); new maps by default. */
  into?: { defaults: Map<number, DefaultTransformation | null>; exports: Map<number, Exports> };
  /** CRSs a task asks for at a time (20 by default). */
  chunk?: number;
  /** Stops the work before its next task: what was computed is returned, incomplete. */
  signal?: AbortSignal;
}

/**
 * Computes the default transformation of every CRS of `codes` with `derive` (the coordinates
 * pool: one chunk per thread at a time), reporting progress. A chunk that runs out of time is sent
 * again from where it stopped. A chunk whose task fails (a PROJ call stopped as stuck, a thread
 * lost) is sent again one CRS at a time, and a CRS that fails alone twice is left out (`leftOut`):
 * the server computes it on first use, as without a cache, rather than one CRS failing the build.
 */
export async function computeDefaults(
  codes: readonly number[],
  derive: (task: DeriveTask) => Promise<Derived>,
  parallel: number,
  progress: Progress,
  { into, chunk: chunkSize = CHUNK, signal }: ComputeOptions = {},
): Promise<{ defaults: Map<number, DefaultTransformation | null>; exports: Map<number, Exports>; leftOut: number[] }> {
  const defaults = into?.defaults ?? new Map<number, DefaultTransformation | null>();
  const exports = into?.exports ?? new Map<number, Exports>();
  const done = (code: number) => defaults.has(code) && exports.has(code);
  /** CRSs with both: a chunk holds only CRSs without, so each is counted once, when its chunk completes it. */
  let finished = 0;
  const failures = new Map<number, number>();
  const leftOut: number[] = [];
  const queue: number[][] = [];
  for (let start = 0; start < codes.length; start += chunkSize) queue.push(codes.slice(start, start + chunkSize));
  progress.phase('Default transformations and exports of the EPSG CRSs', codes.length);
  const worker = async () => {
    for (let chunk = queue.shift(); chunk && !signal?.aborted; chunk = queue.shift()) {
      try {
        const derived = await derive({
          crs: chunk.map((code) => ({ code, defaultTransformation: !defaults.has(code), exports: !exports.has(code), bound: [] })),
          operations: [],
        });
        for (const facts of derived.crs) {
          if (facts.defaultTransformation !== undefined) defaults.set(facts.code, facts.defaultTransformation);
          if (facts.exports !== undefined) exports.set(facts.code, facts.exports);
        }
        const rest = chunk.filter((code) => !done(code));
        finished += chunk.length - rest.length;
        if (rest.length > 0) queue.push(rest);
      } catch (error) {
        if (chunk.length > 1) {
          queue.push(...chunk.map((code) => [code]));
        } else {
          const code = chunk[0]!;
          const failed = (failures.get(code) ?? 0) + 1;
          failures.set(code, failed);
          if (failed < 2) queue.push(chunk);
          else {
            leftOut.push(code);
            progress.note(`EPSG:${code} left to compute on first use: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }
      progress.update(finished + leftOut.length);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  progress.end();
  // A CRS left out keeps nothing in either file: both are computed on first use, as without a cache.
  for (const code of leftOut) {
    defaults.delete(code);
    exports.delete(code);
  }
  return { defaults, exports, leftOut: leftOut.sort((a, b) => a - b) };
}
