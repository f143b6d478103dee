/**
 * What a layer painter gets: the canvas, the view in both placements (plain for vector geometry,
 * pixel-aligned for raster images, as MapLibre does), the tiles of each source for this view, and
 * helpers shared by the painters (tile clipping, whole-layer opacity).
 */

import type { Canvas, SKRSContext2D } from '@napi-rs/canvas';
import type { StylePropertyExpression } from '@maplibre/maplibre-gl-style-spec';
import type { TileSource } from '../source/source.js';
import type { ImageSet } from '../sprite/sprite.js';
import type { PixelRect, ViewTransform } from '../view/projection.js';
import type { CompiledStyle } from '../style/style.js';
import type { LoadedRasterTile } from '../tile/raster.js';
import type { VectorTileView } from '../tile/vector.js';

/** The tiles of one source covering the view, in drawing order; missing tiles are left out. */
export interface LoadedSource {
  readonly source: TileSource;
  readonly vector: readonly VectorTileView[];
  readonly raster: readonly LoadedRasterTile[];
}

export interface RenderContext {
  readonly ctx: SKRSContext2D;
  readonly style: CompiledStyle;
  /** Placement of vector geometry. */
  readonly view: ViewTransform;
  /** Placement of raster and hillshade tiles: the view's centre snapped to the pixel grid. */
  readonly alignedView: ViewTransform;
  readonly zoom: number;
  readonly pixelRatio: number;
  /** The sprite's images (patterns, icons); empty when the style has none. */
  readonly images: ImageSet;
  /** The loaded tiles of a source, or undefined when no TileSource was given for it. */
  source(id: string | undefined): LoadedSource | undefined;
  /** A transparent canvas the size of the output, for layers drawn apart and composited. */
  scratch(): Canvas;
  /** Gives a scratch canvas back for reuse. */
  release(canvas: Canvas): void;
}

/** Restricts drawing to a tile's (pixel-rounded) square; undo with ctx.restore(). */
export function clipTo(ctx: SKRSContext2D, rect: PixelRect): void {
  ctx.save();
  ctx.beginPath();
  ctx.rect(rect.x0, rect.y0, rect.x1 - rect.x0, rect.y1 - rect.y0);
  ctx.clip();
}

/**
 * Draws through a separate canvas composited with `opacity` when the layer as a whole is
 * translucent (`*-layer-opacity`, fill-extrusion's opacity), so that what the layer draws over
 * itself is not blended twice; straight onto the output otherwise.
 */
export function drawWithLayerOpacity(rc: RenderContext, opacity: number, draw: (ctx: SKRSContext2D) => void): void {
  if (opacity >= 1) {
    draw(rc.ctx);
    return;
  }
  if (!(opacity > 0)) return;
  const canvas = rc.scratch();
  const ctx = canvas.getContext('2d');
  draw(ctx);
  rc.ctx.save();
  rc.ctx.globalAlpha = opacity;
  rc.ctx.drawImage(canvas, 0, 0);
  rc.ctx.restore();
  rc.release(canvas);
}

/** A layer's `*-translate` in device pixels (anchor map or viewport: the same without bearing). */
export function layerTranslate(rc: RenderContext, expression: StylePropertyExpression): [number, number] {
  const value = expression.evaluate({ zoom: rc.zoom, globalState: rc.style.globalState }) as [number, number] | undefined;
  if (!value) return [0, 0];
  return [value[0] * rc.pixelRatio, value[1] * rc.pixelRatio];
}
