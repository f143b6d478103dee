/**
 * A server over the two OpenStreetMap samples' geocoding indexes, for the tests of extract search:
 * each sample's index is built as `maps import` builds it (tools/osm/geocoding-index.ts) into the
 * folder of a map definition (a style with no layers: the maps' tiles are not what is tested, and
 * tilemaker would take most of a minute), so the server loads them through the maps registry as
 * it loads imported maps. What the tests expect comes from osmium's own export of the samples.
 */

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Feature, Geometry } from 'geojson';
import { writeGeocodingIndex } from '../../../src/geocoding/extracts/import.js';
import { LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { KIRCHBERG, OAKLAND } from '../../peers.js';
import { tempDir } from '../../scratch.js';
import { osmiumDataExtent } from '../../tools/osm/street-maps.js';

export const SAMPLE_FILES = { 'west-oakland': OAKLAND, kirchberg: KIRCHBERG } as const;

/** Writes the definition of map `id` and its index into `mapsDir`, as an import publishes them. */
export async function addSampleMap(mapsDir: string, id: keyof typeof SAMPLE_FILES, dataDir: string): Promise<void> {
  const folder = path.join(mapsDir, 'osm', id, 'v1');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'style.json'), JSON.stringify({ version: 8, sources: {}, layers: [] }));
  await writeGeocodingIndex({ pbf: SAMPLE_FILES[id], id, bounds: osmiumDataExtent(SAMPLE_FILES[id]) as [number, number, number, number], partial: folder, work: tempDir(), dataDir });
  writeFileSync(path.join(mapsDir, `${id}.json`), JSON.stringify({ style: `osm/${id}/v1/style.json` }));
}

export interface SamplesServer {
  server: TestServer;
  key: string;
  log: LogCapture;
  mapsDir: string;
  get(url: string): Promise<{ status: number; body: any }>;
}

export async function startSamplesServer(): Promise<SamplesServer> {
  const mapsDir = tempDir();
  const config = testConfig({ logLevel: 'info', geocoding: { buildIndex: true }, maps: { dir: mapsDir, watch: false } });
  // The first build makes the world index of the data directory, which the server then reads.
  await addSampleMap(mapsDir, 'west-oakland', config.dataDir);
  await addSampleMap(mapsDir, 'kirchberg', config.dataDir);
  const log = new LogCapture();
  const server = await startTestServer(config, { logStream: log });
  await server.server.geocoder.ready;
  const { accountId } = await newAccount(server.meridian);
  const key = (await server.meridian.keys.create(accountId, {})).token;
  return {
    server,
    key,
    log,
    mapsDir,
    async get(url: string) {
      const response = await server.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${encodeURIComponent(key)}` });
      return { status: response.statusCode, body: response.json() };
    },
  };
}

/** The features of an extract as osmium exports them, with `@type` and `@id`. */
export function osmiumFeatures(file: string): Feature<Geometry, Record<string, string | number>>[] {
  const text = execFileSync('osmium', ['export', '-f', 'geojsonseq', '-a', 'type,id', file], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return text
    .split('\n')
    .map((line) => line.replace(/^\x1e/, '').trim())
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Feature<Geometry, Record<string, string | number>>);
}

/** Metres between two points (equirectangular: the points are within a street of each other). */
export function metres(a: readonly number[], b: readonly number[]): number {
  const k = Math.cos((((a[1]! + b[1]!) / 2) * Math.PI) / 180);
  return Math.hypot((a[0]! - b[0]!) * 111_320 * k, (a[1]! - b[1]!) * 110_574);
}

/** Metres from a point to the nearest vertex or segment of lines. */
export function metresToLines(point: readonly number[], lines: readonly (readonly number[])[][]): number {
  let best = Infinity;
  for (const line of lines) {
    for (let i = 0; i + 1 < line.length; i++) {
      for (let t = 0; t <= 1; t += 0.01) {
        const at = [line[i]![0]! + t * (line[i + 1]![0]! - line[i]![0]!), line[i]![1]! + t * (line[i + 1]![1]! - line[i]![1]!)];
        best = Math.min(best, metres(point, at));
      }
    }
  }
  return best;
}
