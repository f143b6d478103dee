/**
 * Seeding: the metatiles covering an area at a range of zooms rendered ahead of traffic into the
 * shared raster tile store (`meridian maps seed`). Metatiles whose tiles the store holds already
 * for the map's revision are skipped, so an interrupted seed resumes where it stopped.
 */

import { xOfLongitude, yOfLatitude } from '../../platform/web-mercator.js';
import type { Progress } from '../../platform/progress.js';
import type { Format } from '../image-format.js';
import type { LoadedMap } from '../registry.js';
import { metatileOf, type Metatile, type RasterTileSize } from './metatile.js';
import type { RasterTiles } from './raster-tiles.js';

export interface SeedArea {
  /** West, south, east, north in degrees; west > east crosses the antimeridian. */
  bbox: [number, number, number, number];
  minzoom: number;
  maxzoom: number;
  size: RasterTileSize;
  pixelRatio: 1 | 2;
}

export interface SeedResult {
  metatiles: number;
  rendered: number;
  skipped: number;
  tiles: number;
}

/** The columns [from, to] of the tiles at z between two longitudes (both ranges when crossing the antimeridian). */
function columns(west: number, east: number, z: number): [number, number][] {
  const count = 2 ** z;
  const column = (lon: number, edge: 'from' | 'to') => {
    const x = xOfLongitude(lon) * count;
    return Math.min(count - 1, Math.max(0, edge === 'from' ? Math.floor(x) : Math.ceil(x) - 1));
  };
  if (west <= east) return [[column(west, 'from'), Math.max(column(west, 'from'), column(east, 'to'))]];
  return [
    [column(west, 'from'), count - 1],
    [0, column(east, 'to')],
  ];
}

/** The metatiles that draw every tile of the area, zoom by zoom, row by row. */
export function metatilesCovering(area: SeedArea): Metatile[] {
  const [west, south, east, north] = area.bbox;
  const found: Metatile[] = [];
  for (let z = area.minzoom; z <= area.maxzoom; z++) {
    // A tile's index at z is the same in any tile size: the world is 2^z tiles across.
    const count = 2 ** z;
    const top = Math.min(count - 1, Math.max(0, Math.floor(yOfLatitude(north) * count)));
    const bottom = Math.min(count - 1, Math.max(top, Math.ceil(yOfLatitude(south) * count) - 1));
    const seen = new Set<string>();
    for (const [from, to] of columns(west, east, z)) {
      for (let y = top; y <= bottom; y++) {
        for (let x = from; x <= to; x++) {
          const meta = metatileOf({ z, x, y, size: area.size, pixelRatio: area.pixelRatio });
          const key = `${meta.x0}/${meta.y0}`;
          if (seen.has(key)) continue;
          seen.add(key);
          found.push(meta);
        }
      }
    }
  }
  return found;
}

/** Renders what the store lacks of the area, `concurrency` metatiles at a time. */
export async function seedArea(
  tiles: RasterTiles,
  map: LoadedMap,
  area: SeedArea,
  options: { format: Format; language: string | null; concurrency: number; progress: Progress },
): Promise<SeedResult> {
  const metatiles = metatilesCovering(area);
  const result: SeedResult = { metatiles: metatiles.length, rendered: 0, skipped: 0, tiles: 0 };
  options.progress.phase(`Seeding ${map.id} at zooms ${area.minzoom}-${area.maxzoom} (${metatiles.length} metatiles)`, metatiles.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < metatiles.length) {
      const meta = metatiles[next++]!;
      if (await tiles.seed(map, meta, options.format, options.language)) result.rendered++;
      else result.skipped++;
      result.tiles += meta.span * meta.span;
      options.progress.update(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  options.progress.end();
  return result;
}
