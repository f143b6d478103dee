/**
 * `meridian maps import EXTRACT`: an OpenStreetMap extract to street maps. The extract is checked
 * (extract.ts), the sea around it made from GSHHG (ocean.ts, shapefile.ts), tiled by tilemaker in
 * the OpenMapTiles schema (tilemaker.ts), packed as PMTiles (archive.ts) and published with the
 * three styles (streets, light, dark) and their sprite as the maps `<id>`, `<id>-light` and
 * `<id>-dark`.
 *
 * Publishing is atomic: everything is built in `<maps>/osm/<id>/<version>.partial/`, renamed to
 * `<version>/` when complete, and only then are the definitions (`<maps>/<id>.json`, …) replaced,
 * each by a rename. A failed import removes its partial folder and leaves the previous version
 * serving; importing again keeps the previous version's folder (a running server may still read
 * it) and removes older ones. One import of an id runs at a time (a lock file beside the versions).
 */

import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireLock, LockHeldError } from '../../platform/storage/lock.js';
import { silentProgress, type Progress } from '../../platform/progress.js';
import { MAP_ID } from '../../maps/definition.js';
import type { Region } from '../gshhg.js';
import { mbtilesToPmtiles } from './archive.js';
import { asPbf, ExtractError, inspectExtract } from './extract.js';
import { seaPolygons } from './ocean.js';
import { writePolygonShapefile } from './shapefile.js';
import { buildStreetSprite, readStreetStyle, type StreetStyle } from './sprite.js';
import { runTilemaker, SCHEMA_MAXZOOM } from './tilemaker.js';

/** The styles each import publishes, and the suffix of their map ids. */
export const PUBLISHED: readonly { style: StreetStyle; suffix: string }[] = [
  { style: 'streets', suffix: '' },
  { style: 'light', suffix: '-light' },
  { style: 'dark', suffix: '-dark' },
];

export const ATTRIBUTION = '© OpenStreetMap contributors';
/**
 * The sea is made this far around the extract, in degrees: a zoom-10 tile, so that the tiles at the
 * extract's edge are filled with sea from zoom 10 on (below it, the styles draw the `world` map).
 */
export const SEA_MARGIN = 360 / 2 ** 10;
const ARCHIVE = 'openmaptiles.pmtiles';

/** What is wrong with the command's arguments (not with the file). */
export class ImportUsageError extends Error {}

export interface ImportOptions {
  /** The maps folder the maps are published in. */
  mapsDir: string;
  /** The map id; default from the file name. */
  id?: string;
  minzoom?: number;
  maxzoom?: number;
  progress?: Progress;
}

export interface ImportResult {
  maps: string[];
  archive: string;
  tiles: number;
  bytes: number;
  bounds: Region;
  input: { file: string; bytes: number; nodes: number; ways: number; relations: number };
  seconds: number;
}

/** A map id from an extract's file name: `West-Oakland.osm.bz2` → `west-oakland`. */
export function idFromFile(file: string): string {
  const base = path.basename(file).replace(/(\.osm)?(\.pbf|\.bz2|\.gz)?$/i, '').replace(/\.osm$/i, '');
  const longest = 64 - Math.max(...PUBLISHED.map(({ suffix }) => suffix.length));
  return base.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, longest) || 'streets';
}

function checkOptions(id: string, minzoom: number, maxzoom: number): void {
  const longest = 64 - Math.max(...PUBLISHED.map(({ suffix }) => suffix.length));
  if (!MAP_ID.test(id) || id.length > longest) throw new ImportUsageError(`--id must be 1 to ${longest} of A-Z, a-z, 0-9, _ and -`);
  for (const [flag, zoom] of [['--minzoom', minzoom], ['--maxzoom', maxzoom]] as const) {
    if (!Number.isInteger(zoom) || zoom < 0 || zoom > SCHEMA_MAXZOOM) throw new ImportUsageError(`${flag} must be an integer from 0 to ${SCHEMA_MAXZOOM}`);
  }
  if (minzoom > maxzoom) throw new ImportUsageError(`--minzoom (${minzoom}) is above --maxzoom (${maxzoom})`);
}

function expand([west, south, east, north]: Region, margin: number): Region {
  return [Math.max(-180, west - margin), Math.max(-85, south - margin), Math.min(180, east + margin), Math.min(85, north + margin)];
}

/** A version name that sorts by time. */
function versionName(): string {
  return `${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${process.pid}`;
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(`${file}.partial`, `${JSON.stringify(value, null, 2)}\n`);
  await rename(`${file}.partial`, file);
}

type Style = Record<string, unknown> & { sources: Record<string, Record<string, unknown>>; layers: { source?: string }[]; sprite?: unknown };

/**
 * A style as published beside the archive: its `openmaptiles` source on the archive, its `world`
 * source on the world map's archive (or, without one, the world's layers left out).
 */
async function publishedStyle(name: StreetStyle, versionDir: string, worldArchive: string | null, source: Record<string, unknown>): Promise<Style> {
  const style = (await readStreetStyle(name)) as unknown as Style;
  style.sources.openmaptiles = { ...style.sources.openmaptiles, ...source };
  if (worldArchive) {
    style.sources.world = { ...style.sources.world, url: `pmtiles://${path.relative(versionDir, worldArchive).split(path.sep).join('/')}` };
  } else {
    delete style.sources.world;
    style.layers = style.layers.filter((layer) => layer.source !== 'world');
  }
  return style;
}

/** The version folder the current definition of `id` points at, if any. */
async function currentVersion(mapsDir: string, id: string): Promise<string | null> {
  try {
    const definition = JSON.parse(await readFile(path.join(mapsDir, `${id}.json`), 'utf8')) as { style?: unknown };
    return typeof definition.style === 'string' ? path.basename(path.dirname(definition.style)) : null;
  } catch {
    return null;
  }
}

export async function importExtract(file: string, options: ImportOptions): Promise<ImportResult> {
  const started = Date.now();
  const progress = options.progress ?? silentProgress;
  const id = options.id ?? idFromFile(file);
  const minzoom = options.minzoom ?? 0;
  const maxzoom = options.maxzoom ?? SCHEMA_MAXZOOM;
  checkOptions(id, minzoom, maxzoom);
  const mapsDir = path.resolve(options.mapsDir);

  progress.phase(`Checking ${path.basename(file)}`);
  const extract = await inspectExtract(path.resolve(file));

  const home = path.join(mapsDir, 'osm', id);
  await mkdir(home, { recursive: true });
  let release: () => void;
  try {
    release = acquireLock(path.join(home, '.lock'));
  } catch (error) {
    if (error instanceof LockHeldError) throw new ImportUsageError(`another import of "${id}" is running (process ${error.pid})`);
    throw error;
  }
  const version = versionName();
  const partial = path.join(home, `${version}.partial`);
  const work = path.join(partial, 'work');
  try {
    // With the lock held, partial folders are what crashed imports left.
    for (const entry of await readdir(home)) if (entry.endsWith('.partial')) await rm(path.join(home, entry), { recursive: true, force: true });
    await mkdir(work, { recursive: true });

    let input = extract.file;
    if (extract.format !== 'pbf') {
      progress.phase('Converting to PBF');
      input = await asPbf(extract, path.join(work, 'extract.osm.pbf'));
    }

    progress.phase('Sea from GSHHG');
    const area = expand(extract.bounds, SEA_MARGIN);
    const sea = await seaPolygons(area, (done, total) => progress.update(done, total));
    const water = path.join(work, 'water_polygons');
    await writePolygonShapefile(water, sea);

    const mbtiles = path.join(work, 'tiles.mbtiles');
    let stage = '';
    await runTilemaker({
      input,
      output: mbtiles,
      workDir: work,
      water,
      minzoom,
      maxzoom,
      bbox: area,
      onProgress: (next, done, total) => {
        if (next !== stage) {
          stage = next;
          progress.phase(next === 'reading' ? 'Reading OSM data' : 'Writing tiles', total);
        }
        progress.update(done, total);
      },
    });

    progress.phase('Writing PMTiles');
    const archive = path.join(partial, ARCHIVE);
    const tiles = await mbtilesToPmtiles(mbtiles, archive, {
      bounds: extract.bounds,
      minzoom,
      maxzoom,
      metadata: {
        name: id,
        description: `OpenStreetMap data of ${path.basename(file)} in the OpenMapTiles schema`,
        attribution: ATTRIBUTION,
        type: 'baselayer',
        format: 'pbf',
        generator: 'Meridian maps import (tilemaker)',
      },
      onProgress: (done, total) => progress.update(done, total),
    });
    await rm(work, { recursive: true, force: true });

    progress.phase('Styles and sprite');
    const versionDir = path.join(home, version);
    const worldArchive = path.join(mapsDir, 'world', 'world.pmtiles');
    const world = existsSync(worldArchive) ? worldArchive : null;
    if (!world) progress.note(`No world map in ${mapsDir} (meridian maps build-world): the styles draw the extract only`);
    const source = { type: 'vector', url: `pmtiles://${ARCHIVE}`, attribution: ATTRIBUTION, bounds: extract.bounds, minzoom, maxzoom };
    let sprite = false;
    for (const { style } of PUBLISHED) {
      const published = await publishedStyle(style, versionDir, world, source);
      sprite ||= published.sprite !== undefined;
      await writeJson(path.join(partial, `${style}.json`), published);
    }
    if (sprite) await buildStreetSprite(path.join(partial, 'sprite'));

    progress.phase('Publishing');
    const previous = await currentVersion(mapsDir, id);
    await rename(partial, versionDir);
    const maps: string[] = [];
    for (const { style, suffix } of PUBLISHED) {
      await writeJson(path.join(mapsDir, `${id}${suffix}.json`), {
        style: `osm/${id}/${version}/${style}.json`,
        formats: ['png', 'jpg', 'webp'],
        minzoom: 0,
        maxzoom: 22,
      });
      maps.push(`${id}${suffix}`);
    }
    // The previous version stays for servers that still read it; older ones go.
    for (const entry of await readdir(home, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== version && entry.name !== previous) await rm(path.join(home, entry.name), { recursive: true, force: true });
    }
    progress.end();
    const published = path.join(versionDir, ARCHIVE);
    return {
      maps,
      archive: published,
      tiles,
      bytes: (await stat(published)).size,
      bounds: extract.bounds,
      input: { file: extract.file, bytes: extract.bytes, nodes: extract.nodes, ways: extract.ways, relations: extract.relations },
      seconds: (Date.now() - started) / 1000,
    };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    if (error instanceof ExtractError || error instanceof ImportUsageError) throw error;
    throw new Error(`import of ${file} failed: ${(error as Error).message}`);
  } finally {
    release();
  }
}
