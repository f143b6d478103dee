/**
 * `meridian maps seed MAP --bbox=W,S,E,N --zooms A-B [--tile-size 512|256] [--format F] [--scale 2]
 * [--language xx]`: fills the shared raster tile store (`maps.rasterStore`) ahead of traffic, on
 * the render threads (`maps.workers`), with a progress display. The memory cache of a running server
 * is its own; the store is what every instance reads on a miss, so seeding needs one.
 */

import type { Config } from '../config.js';
import { migrations } from '../meridian.js';
import { FORMATS, type Format } from '../maps/image-format.js';
import { parseLanguage } from '../maps/language.js';
import { RASTER_TILE_SIZES, type RasterTileSize } from '../maps/raster/metatile.js';
import { openTileStore } from '../maps/raster/open-tile-store.js';
import { rasterZooms } from '../maps/raster/raster-routes.js';
import { RasterTiles } from '../maps/raster/raster-tiles.js';
import { seedArea, type SeedResult } from '../maps/raster/seed.js';
import { MapRegistry } from '../maps/registry.js';
import { RenderPool } from '../maps/render-pool.js';
import type { Progress } from '../platform/progress.js';
import type { Database } from '../platform/storage/database.js';
import { migrate } from '../platform/storage/migrate.js';
import { openDatabase } from '../platform/storage/open.js';
import { SeedUsageError } from './usage.js';

export interface SeedOptions {
  map: string;
  bbox: string | undefined;
  zooms: string | undefined;
  tileSize: string | undefined;
  format: string | undefined;
  scale: string | undefined;
  language: string | undefined;
  progress: Progress;
}

function parseBbox(text: string | undefined): [number, number, number, number] {
  const parts = (text ?? '').split(',').map((part) => (part.trim() === '' ? NaN : Number(part)));
  const [west, south, east, north] = parts as [number, number, number, number];
  if (parts.length !== 4 || parts.some((value) => !Number.isFinite(value))) throw new SeedUsageError('--bbox needs W,S,E,N in degrees');
  if (Math.abs(west) > 180 || Math.abs(east) > 180 || Math.abs(south) > 90 || Math.abs(north) > 90 || south >= north) {
    throw new SeedUsageError('--bbox W,S,E,N: longitudes within ±180, latitudes within ±90, south below north');
  }
  return [west, south, east, north];
}

function parseZooms(text: string | undefined, range: { minzoom: number; maxzoom: number }): [number, number] {
  const match = /^(\d{1,2})(?:-(\d{1,2}))?$/.exec(text ?? '');
  if (!match) throw new SeedUsageError('--zooms needs A-B (or one zoom A)');
  const from = Number(match[1]);
  const to = Number(match[2] ?? match[1]);
  if (from > to || from < range.minzoom || to > range.maxzoom) throw new SeedUsageError(`--zooms ${text}: the map's tiles of this size have zooms ${range.minzoom}-${range.maxzoom}`);
  return [from, to];
}

export async function seedTiles(config: Config, options: SeedOptions): Promise<SeedResult> {
  if (config.maps.rasterStore === 'none') {
    throw new SeedUsageError('maps seed fills the shared raster tile store: set maps.rasterStore (MERIDIAN_MAPS_RASTER_STORE) to folder or database');
  }
  const size = Number(options.tileSize ?? 512) as RasterTileSize;
  if (!RASTER_TILE_SIZES.includes(size)) throw new SeedUsageError('--tile-size is 512 or 256');
  const pixelRatio = options.scale === undefined || options.scale === '1' ? 1 : options.scale === '2' ? 2 : null;
  if (pixelRatio === null) throw new SeedUsageError('--scale is 1 or 2');
  const bbox = parseBbox(options.bbox);
  const language = parseLanguage(options.language);

  const registry = await MapRegistry.open(config);
  let db: Database | null = null;
  const pool = new RenderPool(config);
  try {
    const map = registry.get(options.map);
    if (!map) throw new SeedUsageError(`No map "${options.map}" (maps: ${registry.ids().join(', ') || 'none'})`);
    const format = (options.format ?? map.formats[0]) as Format;
    if (!FORMATS.includes(format) || !map.formats.includes(format)) throw new SeedUsageError(`--format: map "${map.id}" is drawn as ${map.formats.join(', ')}`);
    const [minzoom, maxzoom] = parseZooms(options.zooms, rasterZooms(map, size));
    if (config.maps.rasterStore === 'database') {
      db = await openDatabase(config);
      // The store's table may be newer than the database: the migrations the server applies at start-up.
      await migrate(db, migrations);
    }
    const store = openTileStore(config.maps, config.dataDir, db);
    const tiles = new RasterTiles(pool, 0, store);
    return await seedArea(tiles, map, { bbox, minzoom, maxzoom, size, pixelRatio }, { format, language, concurrency: config.maps.workers, progress: options.progress });
  } finally {
    await pool.close();
    await registry.close();
    await db?.close();
  }
}
