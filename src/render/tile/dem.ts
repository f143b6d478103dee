/**
 * raster-dem tiles as heights, as MapLibre's DEMData holds them: decoded from RGB (terrarium:
 * r·256 + g + b/256 - 32768; mapbox: r·6553.6 + g·25.6 + b·0.1 - 10000), padded by 2 pixels that
 * repeat the tile's edge until a neighbouring tile of the view supplies its border ("backfill"), so
 * that slopes and interpolated heights run on across tile edges.
 */

import type { RasterTile } from '../source/source.js';
import type { LoadedRasterTile } from './raster.js';

export type DemEncoding = 'terrarium' | 'mapbox';

/** A DEM tile: heights with a 2-pixel border, row-major, stride dim + 4. */
export interface Dem {
  readonly dim: number;
  readonly heights: Float64Array;
}

/** MapLibre's unpack vector [red, green, blue, shift]: height = r·red + g·green + b·blue - shift. */
export function unpackVector(encoding: DemEncoding): [number, number, number, number] {
  return encoding === 'terrarium' ? [256, 1, 1 / 256, 32768] : [6553.6, 25.6, 0.1, 10000];
}

export function decodeDem(pixels: Uint8ClampedArray, dim: number, encoding: DemEncoding): Dem {
  const [rf, gf, bf, shift] = unpackVector(encoding);
  const stride = dim + 4;
  const heights = new Float64Array(stride * stride);
  for (let y = 0; y < dim; y++) {
    for (let x = 0; x < dim; x++) {
      const i = (y * dim + x) * 4;
      heights[(y + 2) * stride + x + 2] = pixels[i]! * rf + pixels[i + 1]! * gf + pixels[i + 2]! * bf - shift;
    }
  }
  // The border repeats the edge, as MapLibre's DEMData does before any neighbour fills it.
  for (let y = -2; y < dim + 2; y++) {
    const row = (Math.max(0, Math.min(dim - 1, y)) + 2) * stride;
    const target = (y + 2) * stride;
    if (y < 0 || y >= dim) heights.copyWithin(target + 2, row + 2, row + 2 + dim);
    heights.fill(heights[row + 2]!, target, target + 2);
    heights.fill(heights[row + dim + 1]!, target + dim + 2, target + dim + 4);
  }
  return { dim, heights };
}

/** MapLibre's DEMData.backfillBorder: the 2-pixel border towards (dx, dy) from the neighbour there. */
export function backfillBorder(dem: Dem, neighbour: Dem, dx: number, dy: number): void {
  const { dim, heights } = dem;
  if (neighbour.dim !== dim) return;
  const stride = dim + 4;
  let xMin = dx * dim;
  let xMax = dx * dim + dim;
  let yMin = dy * dim;
  let yMax = dy * dim + dim;
  if (dx === -1) xMin = xMax - 2;
  else if (dx === 1) xMax = xMin + 2;
  if (dy === -1) yMin = yMax - 2;
  else if (dy === 1) yMax = yMin + 2;
  const ox = -dx * dim;
  const oy = -dy * dim;
  for (let y = yMin; y < yMax; y++) {
    for (let x = xMin; x < xMax; x++) heights[(y + 2) * stride + x + 2] = neighbour.heights[(y + oy + 2) * stride + x + ox + 2]!;
  }
}

/** A height as MapLibre's packDEMData stores it in the encoding's RGB and reads it back. */
export function quantizeHeight(height: number, encoding: DemEncoding): number {
  const [rf, gf, bf, shift] = unpackVector(encoding);
  const minScale = Math.min(rf, gf, bf);
  const scaled = Math.round((height + shift) / minScale);
  const channel = (factor: number): number => Math.floor((scaled * minScale) / factor) % 256;
  return channel(rf) * rf + channel(gf) * gf + channel(bf) * bf - shift;
}

const decoded = new WeakMap<RasterTile, { encoding: DemEncoding; dem: Dem }>();
const backfilled = new WeakMap<RasterTile, { key: string; dem: Dem }>();
const tileIds = new WeakMap<RasterTile, number>();
let nextTileId = 0;

function tileId(tile: RasterTile): number {
  let id = tileIds.get(tile);
  if (id === undefined) {
    id = nextTileId++;
    tileIds.set(tile, id);
  }
  return id;
}

function decodedDem(tile: RasterTile, encoding: DemEncoding): Dem | undefined {
  // MapLibre refuses DEM tiles that are not square.
  if (tile.width !== tile.height || tile.width < 2) return undefined;
  let entry = decoded.get(tile);
  if (!entry || entry.encoding !== encoding) {
    entry = { encoding, dem: decodeDem(tile.pixels(), tile.width, encoding) };
    decoded.set(tile, entry);
  }
  return entry.dem;
}

/**
 * The view's DEM tiles by "z/x/y", each backfilled from the neighbouring tiles of the view (of the
 * same zoom, across the antimeridian too). Decoded and backfilled DEMs stay with their tile for the
 * next render with the same neighbours.
 */
export function viewDems(tiles: readonly LoadedRasterTile[], encoding: DemEncoding): Map<string, Dem> {
  const byKey = new Map<string, RasterTile>();
  for (const { cover, tile } of tiles) byKey.set(`${cover.z}/${cover.x}/${cover.y}`, tile);
  const dems = new Map<string, Dem>();
  for (const { cover, tile } of tiles) {
    const key = `${cover.z}/${cover.x}/${cover.y}`;
    if (dems.has(key)) continue;
    const base = decodedDem(tile, encoding);
    if (!base) continue;
    const n = 2 ** cover.z;
    const neighbours: { dx: number; dy: number; dem: Dem; id: number }[] = [];
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        if ((dx === 0 && dy === 0) || cover.y + dy < 0 || cover.y + dy >= n || (n === 1 && dx !== 0)) continue;
        const neighbour = byKey.get(`${cover.z}/${(((cover.x + dx) % n) + n) % n}/${cover.y + dy}`);
        const dem = neighbour && decodedDem(neighbour, encoding);
        if (neighbour && dem) neighbours.push({ dx, dy, dem, id: tileId(neighbour) });
      }
    }
    const cacheKey = `${encoding}|${neighbours.map((nb) => `${nb.dx},${nb.dy}:${nb.id}`).join(';')}`;
    let entry = backfilled.get(tile);
    if (!entry || entry.key !== cacheKey) {
      const dem: Dem = { dim: base.dim, heights: base.heights.slice() };
      for (const nb of neighbours) backfillBorder(dem, nb.dem, nb.dx, nb.dy);
      entry = { key: cacheKey, dem };
      backfilled.set(tile, entry);
    }
    dems.set(key, entry.dem);
  }
  return dems;
}
