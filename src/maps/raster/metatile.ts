/**
 * Metatiles: raster tiles are never drawn one by one. A block of tiles 1024 CSS pixels wide (2x2
 * tiles of 512 px, 4x4 of 256 px; the whole world at zooms where it is smaller) is rendered as one
 * image with a margin around it, and cut into its tiles. Labels are then placed once for the whole
 * block, so tiles of a block agree at their seams (no label cut in half, none drawn twice), and the
 * margin lets labels that straddle the block's edge be placed as the neighbouring block places
 * them whenever their surroundings agree, as map servers' metatiles with a buffer do. It also costs
 * one render, not 4 or 16.
 */

import { TILE_SIZE, unproject, type Viewport } from '../../render/view/viewport.js';

/** The raster tile sizes served: the spec's 512-px pyramid, and the 256-px XYZ convention. */
export const RASTER_TILE_SIZES = [512, 256] as const;
export type RasterTileSize = (typeof RASTER_TILE_SIZES)[number];

/** A metatile's side in CSS pixels, margin excluded. */
export const METATILE_PIXELS = 1024;
/** The margin drawn around a metatile and cut away, CSS pixels: labels up to about this far over the edge are placed as in the neighbouring block. */
export const METATILE_MARGIN = 128;

export interface TileAddress {
  z: number;
  x: number;
  y: number;
  size: RasterTileSize;
  pixelRatio: 1 | 2;
}

export interface Metatile {
  z: number;
  /** The north-west tile of the block. */
  x0: number;
  y0: number;
  /** Tiles per side. */
  span: number;
  size: RasterTileSize;
  pixelRatio: 1 | 2;
}

/** A rectangle of the metatile's image, device pixels. */
export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The zoom of the 512-px pyramid (the renderer's) at which a tile of `size` at z is drawn. */
export function viewZoom(z: number, size: RasterTileSize): number {
  return z + Math.log2(size / TILE_SIZE);
}

/** The metatile that draws a tile. */
export function metatileOf(tile: TileAddress): Metatile {
  const span = Math.min(METATILE_PIXELS / tile.size, 2 ** tile.z);
  return {
    z: tile.z,
    x0: tile.x - (tile.x % span),
    y0: tile.y - (tile.y % span),
    span,
    size: tile.size,
    pixelRatio: tile.pixelRatio,
  };
}

/** The view a metatile is rendered as: its block and the margin around it. */
export function metatileViewport(meta: Metatile): Viewport {
  const zoom = viewZoom(meta.z, meta.size);
  const side = meta.span * meta.size;
  const center = unproject(meta.x0 * meta.size + side / 2, meta.y0 * meta.size + side / 2, zoom);
  return { center, zoom, width: side + 2 * METATILE_MARGIN, height: side + 2 * METATILE_MARGIN, pixelRatio: meta.pixelRatio };
}

/** Each tile of a metatile, north-west first, row by row, with where it lies in the rendered image. */
export function tilesOf(meta: Metatile): { x: number; y: number; crop: Crop }[] {
  const scale = meta.pixelRatio;
  const tiles: { x: number; y: number; crop: Crop }[] = [];
  for (let row = 0; row < meta.span; row++) {
    for (let column = 0; column < meta.span; column++) {
      tiles.push({
        x: meta.x0 + column,
        y: meta.y0 + row,
        crop: {
          x: (METATILE_MARGIN + column * meta.size) * scale,
          y: (METATILE_MARGIN + row * meta.size) * scale,
          width: meta.size * scale,
          height: meta.size * scale,
        },
      });
    }
  }
  return tiles;
}
