/**
 * The place index (place-index.ts) saved under the data directory, `<dataDir>/geocoding/world-index.v8`,
 * and read back at start-up: building it takes seconds of CPU (3-6 s measured here), reading it back
 * about 50 ms. Keyed by the index's format, the data it was built from (package versions, ICU) and
 * the V8 that wrote it; a file that is missing, keyed otherwise or inconsistent is ignored (and
 * replaced by the next build).
 */

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import v8 from 'node:v8';
import { writeFileAtomically } from '../platform/files/atomic-file.js';
import { buildPlaceIndex, INDEX_FORMAT, indexSources, type PlaceIndex } from './place-index.js';

interface IndexKey {
  format: number;
  sources: string[];
  v8: string;
}

interface Saved {
  key: IndexKey;
  index: PlaceIndex;
}

export const worldIndexPath = (dataDir: string): string => path.join(dataDir, 'geocoding', 'world-index.v8');

export function indexKey(): IndexKey {
  return { format: INDEX_FORMAT, sources: indexSources(), v8: process.versions.v8 };
}

/** The parts search reads must be there and agree with each other. */
function consistent(index: PlaceIndex): boolean {
  if (typeof index !== 'object' || index === null) return false;
  const entries = index.kind?.length;
  const names = index.nameEntry?.length;
  return (
    entries > 0 &&
    [index.lon, index.lat, index.population, index.country, index.region, index.importance, index.geonamesId, index.firstName, index.featureCode].every((array) => ArrayBuffer.isView(array) && array.length === entries) &&
    index.nameText?.length === names &&
    index.nameLanguage?.length === names &&
    index.nameWordStart?.length === names + 1 &&
    index.postingStart?.length === index.words?.length + 1 &&
    index.trigramStart?.length === index.trigrams?.length + 1 &&
    Array.isArray(index.countries) &&
    index.countryWords?.length === index.countries.length &&
    Array.isArray(index.shapes) &&
    Array.isArray(index.regions)
  );
}

/** The saved index, or why it cannot be used. */
export async function readIndexCache(file: string): Promise<{ index: PlaceIndex } | { problem: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === 'ENOENT' ? 'no cache file' : `unreadable (${(error as Error).message})` };
  }
  let saved: Saved;
  try {
    saved = v8.deserialize(bytes) as Saved;
  } catch (error) {
    return { problem: `unreadable (${(error as Error).message})` };
  }
  const key = indexKey();
  if (JSON.stringify(saved?.key) !== JSON.stringify(key)) return { problem: `built from other data (${JSON.stringify(saved?.key ?? null)}; this is ${JSON.stringify(key)})` };
  if (!consistent(saved.index)) return { problem: 'inconsistent index' };
  return { index: saved.index };
}

/** Builds the index and saves it atomically; returns the build's milliseconds. */
export function buildIndexCache(file: string): { ms: number; bytes: number } {
  const started = performance.now();
  const index = buildPlaceIndex();
  const bytes = v8.serialize({ key: indexKey(), index } satisfies Saved);
  writeFileAtomically(file, bytes);
  return { ms: Math.round(performance.now() - started), bytes: bytes.length };
}

/** `meridian geocoding build-index`: the index file of `dataDir`, built unless it is current already. */
export async function buildWorldIndex(dataDir: string): Promise<{ file: string; built: boolean; places: number; seconds: number }> {
  const started = performance.now();
  const file = worldIndexPath(dataDir);
  let read = await readIndexCache(file);
  const built = 'problem' in read;
  if (built) {
    buildIndexCache(file);
    read = await readIndexCache(file);
  }
  if ('problem' in read) throw new Error(`the index just built cannot be read: ${read.problem}`);
  return { file, built, places: read.index.kind.length, seconds: Math.round(performance.now() - started) / 1000 };
}
