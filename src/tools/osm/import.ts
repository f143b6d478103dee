/**
 * `meridian maps import EXTRACT`: an OpenStreetMap extract to street maps. The extract is checked
 * (extract.ts), the sea around it made from GSHHG (ocean.ts, shapefile.ts), tiled by tilemaker in
 * the OpenMapTiles schema (tilemaker.ts), packed as PMTiles (archive.ts) and published with the
 * three styles (streets, light, dark) and their sprite as the maps `<id>`, `<id>-light` and
 * `<id>-dark`. The maps' definitions record the extent of the extract's data as their bounds
 * (extract.ts), where they open (maps/extent.ts). The extract's streets, addresses, places and
 * points of interest are indexed for geocoding (geocoding/extracts/import.ts, given by the command) into the same version folder.
 *
 * Publishing is atomic and one import of an id runs at a time (publish.ts).
 */

import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fittedCenter } from '../../render/view/fit.js';
import { silentProgress, type Progress } from '../../platform/progress.js';
import type { Region } from '../gshhg.js';
import { mbtilesToPmtiles } from './archive.js';
import { asPbf, ExtractError, inspectExtract } from './extract.js';
import { seaPolygons } from './ocean.js';
import { OPENMAPTILES_SUFFIXES, writeOpenMapTilesMaps } from './openmaptiles-maps.js';
import { checkId, idFromName, MapsUsageError, publishMaps } from './publish.js';
import { writePolygonShapefile } from './shapefile.js';
import { runTilemaker, SCHEMA_MAXZOOM } from './tilemaker.js';

export const ATTRIBUTION = '© OpenStreetMap contributors';
/**
 * The sea is made this far around the extract, in degrees: a zoom-10 tile, so that the tiles at the
 * extract's edge are filled with sea from zoom 10 on (below it, the styles draw the `world` map).
 */
export const SEA_MARGIN = 360 / 2 ** 10;
const ARCHIVE = 'openmaptiles.pmtiles';

export interface ImportOptions {
  /** The maps folder the maps are published in. */
  mapsDir: string;
  /** The map id; default from the file name. */
  id?: string;
  minzoom?: number;
  maxzoom?: number;
  /**
   * A folder where tilemaker keeps the extract's nodes and ways on disk (its `--store`) instead of
   * in memory: for extracts larger than a tenth of the machine's memory.
   */
  store?: string;
  /**
   * Builds the extract's geocoding index into the partial folder (geocoding/extracts/import.ts,
   * handed over by the command: tools import no area); without it the maps have no index.
   */
  geocodingIndex?: (options: { pbf: string; id: string; bounds: Region; partial: string; work: string }) => Promise<{ entries: Record<string, number> }>;
  progress?: Progress;
}

export interface ImportResult {
  maps: string[];
  archive: string;
  tiles: number;
  bytes: number;
  bounds: Region;
  input: { file: string; bytes: number; nodes: number; ways: number; relations: number };
  /** Entries of the geocoding index by kind (street, address, poi, ...). */
  geocoding: Record<string, number>;
  seconds: number;
}

/** A map id from an extract's file name: `West-Oakland.osm.bz2` → `west-oakland`. */
export function idFromFile(file: string): string {
  const base = path.basename(file).replace(/(\.osm)?(\.pbf|\.bz2|\.gz)?$/i, '');
  return idFromName(base, OPENMAPTILES_SUFFIXES, 'streets');
}

function checkOptions(id: string, minzoom: number, maxzoom: number): void {
  checkId(id, OPENMAPTILES_SUFFIXES);
  for (const [flag, zoom] of [['--minzoom', minzoom], ['--maxzoom', maxzoom]] as const) {
    if (!Number.isInteger(zoom) || zoom < 0 || zoom > SCHEMA_MAXZOOM) throw new MapsUsageError(`${flag} must be an integer from 0 to ${SCHEMA_MAXZOOM}`);
  }
  if (minzoom > maxzoom) throw new MapsUsageError(`--minzoom (${minzoom}) is above --maxzoom (${maxzoom})`);
}

function expand([west, south, east, north]: Region, margin: number): Region {
  return [Math.max(-180, west - margin), Math.max(-85, south - margin), Math.min(180, east + margin), Math.min(85, north + margin)];
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

  let tiles = 0;
  let geocoding: Record<string, number> = {};
  let publication;
  try {
    publication = await publishMaps(mapsDir, id, { schema: 'openmaptiles', bounds: extract.bounds }, progress, async (partial, versionDir) => {
      const work = path.join(partial, 'work');
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
        ...(options.store === undefined ? {} : { store: options.store }),
        onProgress: (next, done, total) => {
          if (next !== stage) {
            stage = next;
            progress.phase(next === 'reading' ? 'Reading OSM data' : 'Writing tiles', total);
          }
          progress.update(done, total);
        },
      });

      progress.phase('Writing PMTiles');
      tiles = await mbtilesToPmtiles(mbtiles, path.join(partial, ARCHIVE), {
        tileType: 'mvt',
        tileCompression: 'gzip',
        bounds: extract.bounds,
        // Where the maps open, so that the archive added elsewhere (`maps add`) opens there too.
        center: fittedCenter(extract.bounds, minzoom, maxzoom),
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
      if (options.geocodingIndex) {
        progress.phase('Geocoding index');
        geocoding = (await options.geocodingIndex({ pbf: input, id, bounds: extract.bounds, partial, work })).entries;
      }
      await rm(work, { recursive: true, force: true });

      // The data's extent: clients leave tiles outside a source's bounds empty (extract.ts).
      const source = { type: 'vector', url: `pmtiles://${ARCHIVE}`, attribution: ATTRIBUTION, bounds: extract.bounds, minzoom, maxzoom };
      return writeOpenMapTilesMaps(partial, versionDir, mapsDir, source, progress);
    });
  } catch (error) {
    if (error instanceof ExtractError || error instanceof MapsUsageError) throw error;
    throw new Error(`import of ${file} failed: ${(error as Error).message}`);
  }
  progress.end();
  const published = path.join(publication.versionDir, ARCHIVE);
  return {
    maps: publication.maps,
    archive: published,
    tiles,
    bytes: (await stat(published)).size,
    bounds: extract.bounds,
    input: { file: extract.file, bytes: extract.bytes, nodes: extract.nodes, ways: extract.ways, relations: extract.relations },
    geocoding,
    seconds: (Date.now() - started) / 1000,
  };
}
