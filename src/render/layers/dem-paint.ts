/**
 * What hillshade and color-relief share: they colour the image pixel by pixel from the view's DEM
 * tiles, each tile over the pixels of its own square, into one image laid over the map.
 */

import type { LoadedSource, RenderContext } from '../paint/context.js';
import type { LoadedRasterTile } from '../tile/raster.js';
import { viewDems, type Dem, type DemEncoding } from '../tile/dem.js';
import { tileRect, visibleTileClip, type PixelRect } from '../view/projection.js';

export interface DemTilePixels {
  dem: Dem;
  cover: LoadedRasterTile['cover'];
  /** The tile's square in device pixels of the aligned view. */
  rect: PixelRect;
  /** The pixels to colour: the tile's clip within the image. */
  visible: PixelRect;
}

/**
 * Calls `paint` for each DEM tile of the view that covers pixels of the image, with the RGBA (not
 * premultiplied) pixels of the image and its width; draws the image when any tile was painted.
 */
export function paintDemTiles(
  rc: RenderContext,
  loaded: LoadedSource,
  encoding: DemEncoding,
  paint: (tile: DemTilePixels, data: Uint8ClampedArray, width: number) => void,
): void {
  const dems = viewDems(loaded.raster, encoding);
  const view = rc.alignedView;
  const canvas = rc.scratch();
  const layerCtx = canvas.getContext('2d');
  const image = layerCtx.createImageData(view.width, view.height);
  let drawn = false;
  for (const { cover } of loaded.raster) {
    const dem = dems.get(`${cover.z}/${cover.x}/${cover.y}`);
    if (!dem) continue;
    const visible = visibleTileClip(view, cover);
    if (!visible) continue;
    drawn = true;
    paint({ dem, cover, rect: tileRect(view, cover), visible }, image.data, view.width);
  }
  if (drawn) {
    layerCtx.putImageData(image, 0, 0);
    rc.ctx.drawImage(canvas, 0, 0);
  }
  rc.release(canvas);
}

/** An index clamped to 0..size-1: sampling at the padded DEM's edge repeats the edge. */
export function clampIndex(i: number, size: number): number {
  return i < 0 ? 0 : i >= size ? size - 1 : i;
}
