/**
 * `meridian maps add ARCHIVE [--id ID]`: maps over tiles made elsewhere. The archive (a local
 * PMTiles or MBTiles file, or a remote PMTiles archive at an http(s) URL) is read and checked
 * (added-archive.ts), its schema recognised (schema.ts), and the matching styles are published
 * atomically (publish.ts) as for `maps import`: OpenMapTiles gets the street styles
 * (openmaptiles-maps.ts), Protomaps v4 the flavours of @protomaps/basemaps (protomaps-maps.ts),
 * raster tiles one raster style (raster-map.ts). The definitions record the archive's bounds and,
 * when it names one, its centre (maps/extent.ts: where the maps open).
 *
 * Where the tiles go:
 * - A local PMTiles file is copied into the version folder (a reflink, which costs no space, where
 *   the file system can make one). Not hard-linked: a link shares the file, so rewriting the
 *   original in place (`cp` over it, a tool that writes into it) would change the published archive
 *   under a running server; a copy keeps publishing atomic whatever happens to the original.
 * - A local MBTiles file is converted to PMTiles (archive.ts), as `maps import` does with
 *   tilemaker's: one format for every published archive, read by range requests, with no SQLite
 *   connection per render thread, and served to MapLibre clients as it is stored.
 * - Nothing is added to geocoding: tiles hold no searchable index of names (the result says so;
 *   `maps import` of the extract indexes its streets and addresses).
 * - A remote archive stays where it is: the styles' source is `pmtiles://https://…`, read with
 *   range requests at run time. This is how a planet is served without a copy.
 */

import { constants } from 'node:fs';
import { copyFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { fittedCenter } from '../../render/view/fit.js';
import { redactUrl } from '../../platform/logging.js';
import { silentProgress, type Progress } from '../../platform/progress.js';
import { ArchiveError, readAddedArchive, type AddedArchive } from './added-archive.js';
import { mbtilesToPmtiles } from './archive.js';
import { OPENMAPTILES_SUFFIXES, writeOpenMapTilesMaps } from './openmaptiles-maps.js';
import { PROTOMAPS_SUFFIXES, writeProtomapsMaps } from './protomaps-maps.js';
import { checkId, idFromName, MapsUsageError, publishMaps, type PublishedStyle } from './publish.js';
import { RASTER_SUFFIXES, tileSizeOf, writeRasterMap } from './raster-map.js';
import { detectSchema, type Schema } from './schema.js';

const SUFFIXES: Record<Schema, readonly string[]> = {
  openmaptiles: OPENMAPTILES_SUFFIXES,
  protomaps: PROTOMAPS_SUFFIXES,
  raster: RASTER_SUFFIXES,
};

export interface AddOptions {
  /** The maps folder the maps are published in. */
  mapsDir: string;
  /** The map id; default from the file's (or the URL's) name. */
  id?: string;
  progress?: Progress;
}

export interface AddResult {
  maps: string[];
  schema: Schema;
  /** The published archive: its path in the version folder, or the remote URL. */
  archive: string;
  tileType: AddedArchive['tileType'];
  minzoom: number;
  maxzoom: number;
  bounds: AddedArchive['bounds'];
  /** Where the archive says it opens (null: it does not, and the maps open on its bounds). */
  center: AddedArchive['center'];
  /** Size of the published local archive; null for a remote one. */
  bytes: number | null;
  /** What geocoding gets of the maps: nothing, and why. */
  geocoding: string;
  seconds: number;
}

export const NOT_INDEXED = 'not indexed: maps added from an archive add nothing to geocoding (tiles hold no index of names); import the OpenStreetMap extract with `meridian maps import` to search its streets and addresses';

/** A map id from an archive's name: `/x/Alps.pmtiles` or `https://host/v4/Alps.pmtiles?key=…` → `alps`. */
export function idFromArchive(location: string, suffixes: readonly string[]): string {
  const name = /^https?:\/\//i.test(location) ? decodeURIComponent(path.posix.basename(new URL(location).pathname)) : path.basename(location);
  return idFromName(name.replace(/\.(pmtiles|mbtiles)$/i, ''), suffixes, 'tiles');
}

export async function addArchive(input: string, options: AddOptions): Promise<AddResult> {
  const started = Date.now();
  const progress = options.progress ?? silentProgress;
  const mapsDir = path.resolve(options.mapsDir);

  progress.phase(`Reading ${redactUrl(input)}`);
  const archive = await readAddedArchive(input);
  const schema = detectSchema(archive);
  const id = options.id ?? idFromArchive(archive.location, SUFFIXES[schema]);
  checkId(id, SUFFIXES[schema]);
  let tileSize: number | undefined;
  if (schema === 'raster') {
    try {
      tileSize = await tileSizeOf(archive.sample);
    } catch (error) {
      throw new ArchiveError(`${archive.label}: a tile is not a readable ${archive.tileType.toUpperCase()} image (${(error as Error).message})`);
    }
  }

  const file = `${schema}.pmtiles`;
  // The archive's zooms are those of its tiles; a map's are of 512-px tiles, one less for 256-px ones.
  const shift = tileSize === 256 ? 1 : 0;
  const center = archive.center && ([archive.center[0], archive.center[1], Math.max(0, archive.center[2] - shift)] as [number, number, number]);
  let publication;
  try {
    publication = await publishMaps(mapsDir, id, { schema, bounds: archive.bounds, ...(center ? { center } : {}) }, progress, async (partial, versionDir): Promise<readonly PublishedStyle[]> => {
      if (archive.format === 'mbtiles') {
        progress.phase('Converting to PMTiles');
        const [lon, lat, zoom] = fittedCenter(archive.bounds, Math.max(0, archive.minzoom - shift), Math.max(0, archive.maxzoom - shift));
        await mbtilesToPmtiles(archive.location, path.join(partial, file), {
          tileType: archive.tileType,
          tileCompression: archive.tileCompression,
          bounds: archive.bounds,
          center: archive.center ?? [lon, lat, zoom + shift],
          minzoom: archive.minzoom,
          maxzoom: archive.maxzoom,
          metadata: archive.metadata,
          onProgress: (done, total) => progress.update(done, total),
        });
      } else if (!archive.remote) {
        progress.phase('Copying the archive');
        await copyFile(archive.location, path.join(partial, file), constants.COPYFILE_FICLONE);
      }
      const url = archive.remote ? `pmtiles://${archive.location}` : `pmtiles://${file}`;
      switch (schema) {
        case 'openmaptiles':
          return writeOpenMapTilesMaps(partial, versionDir, mapsDir, { type: 'vector', url }, progress);
        case 'protomaps':
          return writeProtomapsMaps(partial, { type: 'vector', url }, progress);
        case 'raster':
          return writeRasterMap(partial, { type: 'raster', url, tileSize }, progress);
      }
    });
  } catch (error) {
    if (error instanceof MapsUsageError) throw error;
    throw new Error(`adding ${archive.label} failed: ${(error as Error).message}`);
  }
  progress.end();
  const published = archive.remote ? archive.location : path.join(publication.versionDir, file);
  return {
    maps: publication.maps,
    schema,
    archive: published,
    tileType: archive.tileType,
    minzoom: archive.minzoom,
    maxzoom: archive.maxzoom,
    bounds: archive.bounds,
    center: archive.center,
    bytes: archive.remote ? null : (await stat(published)).size,
    geocoding: NOT_INDEXED,
    seconds: (Date.now() - started) / 1000,
  };
}
