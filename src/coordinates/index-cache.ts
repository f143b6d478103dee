/**
 * The registry index (registry.ts), saved at setup beside the default transformations
 * (`meridian coordinates build-cache`) and read back at start-up: building it from proj.db takes
 * about a second (SQL over every table, tokenizing every name and area), reading it back with V8's
 * serializer a small fraction of that, which keeps the server's start under a second.
 *
 * Keyed as the default transformations are (derived-cache.ts), plus the V8 version that wrote it
 * and the index's own format (bumped when the index holds more, so a stale file is rebuilt);
 * a file that is missing, keyed otherwise or inconsistent is ignored with one log line, and the
 * index is built from proj.db as without it.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { writeFileAtomically } from '../platform/files/atomic-file.js';
import { currentKey, type CacheLog, type DerivedCacheKey } from './derived-cache.js';
import { loadRegistry, type Registry } from './search/registry.js';

interface IndexKey extends DerivedCacheKey {
  v8: string;
  /** What the index holds beyond the derived caches' format: 2, countries' names in other languages (`places`). */
  index: number;
}

interface Saved {
  key: IndexKey;
  registry: Registry;
}

export const indexCachePath = (folder: string): string => path.join(folder, 'index-cache.v8');

const INDEX_FORMAT = 2;

export const indexKey = (): IndexKey => ({ ...currentKey(), v8: process.versions.v8, index: INDEX_FORMAT });

const sameKey = (a: IndexKey, b: IndexKey) => (Object.keys(b) as (keyof IndexKey)[]).every((field) => a[field] === b[field]);

/** The parts search reads must be there and agree with each other. */
function consistent(registry: Registry): boolean {
  const text = registry?.text;
  if (!Array.isArray(registry?.entries) || !text || !Array.isArray(text.words)) return false;
  if (!(registry.crs instanceof Map && registry.byCode instanceof Map && registry.toWgs84 instanceof Map && registry.places instanceof Map)) return false;
  for (const map of [registry.byTransformation, registry.byDatum, registry.byEllipsoid, registry.byMethod, registry.byArea]) {
    if (!(map instanceof Map)) return false;
  }
  const arrays = [text.postingStart, text.postingEntry, text.entryStart, text.entryWord];
  if (!arrays.every((array) => array instanceof Uint32Array) || !(text.postingField instanceof Uint8Array && text.entryField instanceof Uint8Array)) return false;
  const postings = text.postingEntry.length;
  return (
    text.entryStart.length === registry.entries.length + 1 &&
    text.postingStart.length === text.words.length + 1 &&
    text.postingField.length === postings &&
    text.entryWord.length === postings &&
    text.entryField.length === postings &&
    text.entryStart[registry.entries.length] === postings &&
    text.postingStart[text.words.length] === postings
  );
}

/** The saved index, or why it cannot be used. */
export function readIndexCache(file: string): { registry: Registry } | { problem: string } {
  let saved: Saved;
  try {
    saved = v8.deserialize(readFileSync(file)) as Saved;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'no cache file' : `unreadable (${(error as Error).message})` };
  }
  const key = indexKey();
  if (typeof saved?.key !== 'object' || saved.key === null || !sameKey(saved.key, key)) {
    return { problem: `built for another registry, engine, grid set or V8 (${JSON.stringify(saved?.key ?? null)}): this is EPSG ${key.epsg} with ${key.engine}, V8 ${key.v8}` };
  }
  if (!consistent(saved.registry) || saved.registry.epsgVersion !== key.epsg) return { problem: 'inconsistent index' };
  return { registry: saved.registry };
}

/** Saves the index atomically. */
export function writeIndexCache(file: string, registry: Registry): void {
  writeFileAtomically(file, v8.serialize({ key: indexKey(), registry } satisfies Saved));
}

/** The registry index for a starting server: the saved one when it is current, else built from proj.db (logged). */
export function loadIndex(folder: string, log: CacheLog): Registry {
  const file = indexCachePath(folder);
  const started = performance.now();
  const read = readIndexCache(file);
  if ('registry' in read) {
    log.info({ file, entries: read.registry.entries.length, ms: Math.round(performance.now() - started) }, 'coordinates index loaded from its cache');
    return read.registry;
  }
  const registry = loadRegistry();
  log.warn({ file, problem: read.problem, ms: Math.round(performance.now() - started) }, 'coordinates index built from proj.db; `meridian coordinates build-cache` saves it for a faster start');
  return registry;
}
