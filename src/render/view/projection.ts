/**
 * From tile coordinates to the pixels of the output image. The view's zoom is fractional and
 * everything is computed in doubles: a point (px, py) of tile z/x/y (world copy `wrap`, extent E)
 * lands at device pixel
 *   ((x + wrap * 2^z + px / E) * S - left) * pixelRatio,  (y + py / E) * S - top) * pixelRatio
 * where S = 512 * 2^(zoom - z) is the tile's size in CSS pixels and (left, top) the view's top-left
 * corner in world pixels at the view's zoom.
 *
 * Raster and hillshade tiles are placed as MapLibre's "aligned" matrix places them: the view's
 * centre is snapped to the pixel grid (half a pixel off for odd sizes), so that tiles drawn at their
 * own size land on whole pixels instead of being resampled half a pixel off.
 */

import { project, TILE_SIZE, type Viewport } from './viewport.js';

export interface ViewTransform {
  readonly zoom: number;
  /** The world's width in CSS pixels at the view's zoom. */
  readonly worldSize: number;
  /** World pixel (CSS, at the view's zoom) of the image's top-left corner. */
  readonly left: number;
  readonly top: number;
  readonly pixelRatio: number;
  /** The output image in device pixels. */
  readonly width: number;
  readonly height: number;
}

/** Where a tile's coordinates land: device pixel = origin + coordinate * scale. */
export interface TileTransform {
  readonly scale: number;
  readonly x: number;
  readonly y: number;
}

export interface TilePosition {
  readonly z: number;
  readonly x: number;
  readonly y: number;
  readonly wrap: number;
}

/** Device-pixel rectangle [x0, x1) × [y0, y1). */
export interface PixelRect {
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

export function viewTransform(viewport: Viewport, aligned = false): ViewTransform {
  let [cx, cy] = project(viewport.center[0], viewport.center[1], viewport.zoom);
  if (aligned) {
    // MapLibre's alignedProjMatrix: shift the world by dx, dy so the centre falls on the grid.
    let dx = cx - Math.round(cx) + (viewport.width % 2) / 2;
    let dy = cy - Math.round(cy) + (viewport.height % 2) / 2;
    if (dx > 0.5) dx -= 1;
    if (dy > 0.5) dy -= 1;
    cx -= dx;
    cy -= dy;
  }
  return {
    zoom: viewport.zoom,
    worldSize: TILE_SIZE * 2 ** viewport.zoom,
    left: cx - viewport.width / 2,
    top: cy - viewport.height / 2,
    pixelRatio: viewport.pixelRatio,
    width: Math.round(viewport.width * viewport.pixelRatio),
    height: Math.round(viewport.height * viewport.pixelRatio),
  };
}

/** The transform of a tile whose coordinates span 0..extent. */
export function tileTransform(view: ViewTransform, tile: TilePosition, extent: number): TileTransform {
  const tiles = 2 ** tile.z;
  const size = view.worldSize / tiles;
  return {
    scale: (size / extent) * view.pixelRatio,
    x: ((tile.x + tile.wrap * tiles) * size - view.left) * view.pixelRatio,
    y: (tile.y * size - view.top) * view.pixelRatio,
  };
}

/** The tile's square in device pixels, unrounded. */
export function tileRect(view: ViewTransform, tile: TilePosition): PixelRect {
  const t = tileTransform(view, tile, 1);
  return { x0: t.x, y0: t.y, x1: t.x + t.scale, y1: t.y + t.scale };
}

/**
 * The pixels whose centres lie in the tile's square, as a stencil (or a triangle rasteriser)
 * selects them: each edge rounded to the nearest pixel boundary, so that neighbouring tiles share
 * their edge exactly and a clip to it needs no antialiasing.
 */
export function tileClip(view: ViewTransform, tile: TilePosition): PixelRect {
  const rect = tileRect(view, tile);
  return { x0: Math.round(rect.x0), y0: Math.round(rect.y0), x1: Math.round(rect.x1), y1: Math.round(rect.y1) };
}

/** The tile's clip (see tileClip) cut to the image; null when none of its pixels are in the image. */
export function visibleTileClip(view: ViewTransform, tile: TilePosition): PixelRect | null {
  const clip = tileClip(view, tile);
  const visible = { x0: Math.max(0, clip.x0), y0: Math.max(0, clip.y0), x1: Math.min(view.width, clip.x1), y1: Math.min(view.height, clip.y1) };
  return visible.x1 > visible.x0 && visible.y1 > visible.y0 ? visible : null;
}

/** Whether a rectangle overlaps the image at all. */
export function intersectsImage(view: ViewTransform, rect: PixelRect): boolean {
  return rect.x1 > 0 && rect.y1 > 0 && rect.x0 < view.width && rect.y0 < view.height && rect.x1 > rect.x0 && rect.y1 > rect.y0;
}
