/**
 * Which tiles of a source cover a view, as MapLibre chooses them for a flat (no pitch, no bearing)
 * view:
 *  - the ideal zoom is zoom + log2(512 / tileSize), floored for vector and GeoJSON sources, rounded
 *    for raster and raster-dem sources (MapLibre's `roundZoom`), never below 0;
 *  - vector sources (not GeoJSON ones) have tiles down to zoom 18 whatever their maxzoom, the
 *    deeper ones cut from the maxzoom tile (source/overzoom.ts): MapLibre's map splits tiles so
 *    down to its maxZoom (22) less its `zoomLevelsToOverscale` (4), both defaults;
 *  - beyond that the deepest tiles are drawn over-zoomed; their features are still laid out at the
 *    ideal zoom for vector and GeoJSON sources (the tile's "overscaled" zoom);
 *  - below the source's minzoom nothing is drawn;
 *  - only tiles that overlap the source's `bounds` (MapLibre's `hasTile`): a split tile outside them
 *    is left empty even where its maxzoom ancestor has data;
 *  - world copies: a view that crosses the antimeridian, or shows the world more than once, gets
 *    the tiles of each copy, with `wrap` telling which copy (-1 west of the main world, 1 east).
 * Where MapLibre would fall back to a loaded parent or child for a missing tile, we draw nothing
 * for it: the renderer asks for exactly these tiles.
 */

import type { SourceKind } from '../source/source.js';
import { project, TILE_SIZE, type Viewport } from './viewport.js';

export interface CoveredTile {
  /** Canonical tile of the source's pyramid. */
  readonly z: number;
  readonly x: number;
  readonly y: number;
  /** World copy: the tile is drawn `wrap` worlds east of the main one. */
  readonly wrap: number;
  /** Zoom its features are laid out at: the ideal zoom for over-zoomed vector tiles, else z. */
  readonly overscaledZ: number;
}

/** The source properties tile choice depends on. */
export interface CoverSource {
  readonly kind: SourceKind;
  readonly tileSize: number;
  readonly minzoom: number;
  readonly maxzoom: number;
  readonly bounds: readonly [number, number, number, number];
}

/** MapLibre's default map maxZoom less its default `zoomLevelsToOverscale`. */
const SPLIT_MAX_ZOOM = 22 - 4;

/** The deepest zoom whose tiles a source is asked for: below it vector tiles are split, not scaled. */
function coverMaxZoom(source: Pick<CoverSource, 'kind' | 'maxzoom'>): number {
  return source.kind === 'vector' ? Math.max(source.maxzoom, SPLIT_MAX_ZOOM) : source.maxzoom;
}

/** Raster-like sources round the ideal zoom; vector ones floor it. */
export function roundsZoom(kind: SourceKind): boolean {
  return kind === 'raster' || kind === 'raster-dem';
}

/** The zoom of the tiles MapLibre would want for this view, before clamping to the source's range. */
export function idealZoom(zoom: number, source: Pick<CoverSource, 'kind' | 'tileSize'>): number {
  const z = zoom + Math.log2(TILE_SIZE / source.tileSize);
  // A hair of tolerance so that zoom 3 with 256-px tiles is 4, not 3.9999999.
  const rounded = roundsZoom(source.kind) ? Math.round(z) : Math.floor(z + 1e-9);
  return Math.max(0, rounded);
}

/**
 * The tiles covering the viewport, in MapLibre's drawing order: the main world's tiles first, then
 * the copies west and east alternately moving away from it, each row by row from the north-west.
 */
export function coveringTiles(viewport: Viewport, source: CoverSource): CoveredTile[] {
  const ideal = idealZoom(viewport.zoom, source);
  const z = Math.min(ideal, coverMaxZoom(source));
  if (z < source.minzoom) return [];
  const overscaledZ = roundsZoom(source.kind) ? z : Math.max(z, ideal);
  const tiles = 2 ** z;
  const [cx, cy] = project(viewport.center[0], viewport.center[1], viewport.zoom);
  const tilePixels = (TILE_SIZE * 2 ** viewport.zoom) / tiles;
  const epsilon = 1e-9;
  const x0 = Math.floor((cx - viewport.width / 2) / tilePixels + epsilon);
  const x1 = Math.ceil((cx + viewport.width / 2) / tilePixels - epsilon);
  const y0 = Math.max(0, Math.floor((cy - viewport.height / 2) / tilePixels + epsilon));
  const y1 = Math.min(tiles, Math.ceil((cy + viewport.height / 2) / tilePixels - epsilon));
  const range = tileRangeOfBounds(source.bounds, z);

  const covered: CoveredTile[] = [];
  for (let y = y0; y < y1; y++) {
    if (y < range.minY || y >= range.maxY) continue;
    for (let column = x0; column < x1; column++) {
      const wrap = Math.floor(column / tiles);
      const x = column - wrap * tiles;
      if (x < range.minX || x >= range.maxX) continue;
      covered.push({ z, x, y, wrap, overscaledZ });
    }
  }
  const order = (wrap: number): number => Math.abs(wrap * 2) - (wrap < 0 ? 1 : 0);
  return covered.sort((a, b) => order(a.wrap) - order(b.wrap) || a.y - b.y || a.x - b.x);
}

/** The tile index range [min, max) at zoom z that MapLibre's TileBounds accepts for `bounds`. */
export function tileRangeOfBounds(bounds: readonly [number, number, number, number], z: number): { minX: number; minY: number; maxX: number; maxY: number } {
  const west = Math.max(-180, bounds[0]);
  const south = Math.max(-90, bounds[1]);
  const east = Math.min(180, bounds[2]);
  const north = Math.min(90, bounds[3]);
  const worldSize = 2 ** z;
  const [minX, minY] = project(west, north, 0).map((v) => v / TILE_SIZE) as [number, number];
  const [maxX, maxY] = project(east, south, 0).map((v) => v / TILE_SIZE) as [number, number];
  return {
    minX: Math.floor(minX * worldSize),
    minY: Math.floor(minY * worldSize),
    maxX: Math.ceil(maxX * worldSize),
    maxY: Math.ceil(maxY * worldSize),
  };
}
