/**
 * The geocoding index of an extract, built in `maps import` (extract-index.ts; the command hands
 * this builder to tools/osm/import.ts, which imports no area): osmium keeps the
 * objects that can be searched for (`tags-filter`: a name, a house number, a place or an
 * `addr:interpolation` way, with the nodes their ways need) and exports them as GeoJSON text sequences with their type and id; this
 * command, not a server, reads them and builds the index, which is written into the import's
 * partial folder and so published with the maps.
 *
 * The places and countries streets are in come from the world index: read from the data
 * directory's cache file when it is current, else built here and saved there (seconds, once).
 */

import { createReadStream } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Geometry } from 'geojson';
import { buildExtractIndex, EXTRACT_KINDS, type OsmFeature } from './extract-index.js';
import { EXTRACT_INDEX_FILE, writeExtractIndex } from './index-file.js';
import { buildWorldIndex, readIndexCache, worldIndexPath } from '../index-cache.js';
import { buildPlaceIndex, type PlaceIndex } from '../place-index.js';
import { runTool, type ToolError } from '../../tools/child-processes.js';

export interface GeocodingIndexResult {
  file: string;
  bytes: number;
  /** Entries by kind: street, address, poi, municipality, ... */
  entries: Record<string, number>;
  seconds: number;
}

/** The world index, once per process: the data directory's cache file, or built (and saved there when there is one). */
let world: Promise<PlaceIndex> | undefined;
export function worldIndexFor(dataDir: string | undefined): Promise<PlaceIndex> {
  world ??= (async () => {
    if (dataDir === undefined) return buildPlaceIndex();
    const read = await readIndexCache(worldIndexPath(dataDir));
    if ('index' in read) return read.index;
    await buildWorldIndex(dataDir);
    const built = await readIndexCache(worldIndexPath(dataDir));
    if ('problem' in built) throw new Error(`the world index just built cannot be read: ${built.problem}`);
    return built.index;
  })();
  return world;
}

async function osmium(args: string[]): Promise<void> {
  try {
    await runTool('osmium', args, { maxBuffer: 16 << 20 });
  } catch (error) {
    throw new Error(`osmium ${args[0]} failed: ${((error as ToolError).stderr || (error as Error).message).trim().split('\n').at(-1)}`);
  }
}

/** The features of a GeoJSON text sequence as osmium exports them (`-a type,id`). */
async function* readFeatures(file: string): AsyncGenerator<OsmFeature> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    const text = line.replace(/^\x1e/, '').trim();
    if (text === '') continue;
    const feature = JSON.parse(text) as { geometry: Geometry | null; properties: Record<string, string | number> };
    if (!feature.geometry) continue;
    const { '@type': type, '@id': id, ...tags } = feature.properties;
    yield { type: type as OsmFeature['type'], id: Number(id), tags: tags as Record<string, string>, geometry: feature.geometry };
  }
}

/** Builds the index of the extract `pbf` (map `id`) into `partial`, using `work` for osmium's files. */
export async function writeGeocodingIndex(options: { pbf: string; id: string; bounds: [number, number, number, number]; partial: string; work: string; dataDir?: string }): Promise<GeocodingIndexResult> {
  const started = performance.now();
  const named = path.join(options.work, 'named.osm.pbf');
  const sequence = path.join(options.work, 'named.geojsonseq');
  await osmium(['tags-filter', options.pbf, 'nwr/name', 'nwr/addr:housenumber', 'nwr/place', 'w/addr:interpolation', '-o', named, '-O']);
  await osmium(['export', named, '-f', 'geojsonseq', '-a', 'type,id', '-o', sequence, '-O']);
  const features: OsmFeature[] = [];
  for await (const feature of readFeatures(sequence)) features.push(feature);
  const index = buildExtractIndex(options.id, features, await worldIndexFor(options.dataDir), options.bounds);
  const file = path.join(options.partial, EXTRACT_INDEX_FILE);
  const bytes = writeExtractIndex(file, index);
  const entries: Record<string, number> = {};
  for (const kind of index.kind) entries[EXTRACT_KINDS[kind]!] = (entries[EXTRACT_KINDS[kind]!] ?? 0) + 1;
  return { file, bytes, entries, seconds: Math.round(performance.now() - started) / 1000 };
}
