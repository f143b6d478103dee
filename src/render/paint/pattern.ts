/**
 * Sprite patterns (`background-pattern`, `fill-pattern`, `line-pattern`) as MapLibre GL JS draws a
 * settled frame (`fadeDuration` 0, so its cross-fade shows only the "to" image):
 *  - the image is the property's value at the integer zoom (the tile's zoom, for data-driven values);
 *  - background and fill patterns repeat over the world pixel grid of the integer zoom: a tile's
 *    pattern offset is its world pixel position at that zoom modulo the pattern size, so the
 *    pattern is continuous across tiles and world copies, and between integer zooms it is scaled
 *    with the map by 2^(zoom - floor(zoom)); its size is the image's in CSS pixels (sprite pixels /
 *    its pixelRatio), times the output's pixel ratio;
 *  - sampling is bilinear with the image wrapping at its edges (MapLibre's pattern atlas copies the
 *    opposite edge into a one-pixel border): the repeats are laid side by side and drawn scaled;
 *  - an image missing from the sprite draws nothing.
 */

import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { Feature, ICanonicalTileID, StylePropertyExpression } from '@maplibre/maplibre-gl-style-spec';
import type { SpriteImage } from '../sprite/sprite.js';
import type { RenderContext } from './context.js';
import { isFeatureConstant, type EvaluationZooms } from '../style/properties.js';

/**
 * Whether a layer draws with its pattern at this zoom: a data-driven pattern always (features
 * naming no image are then left out), a feature-constant one when it names an image at the integer
 * zoom; otherwise the layer draws its colour.
 */
export function hasPattern(expression: StylePropertyExpression, zoom: number, globalState: Readonly<Record<string, unknown>>): boolean {
  if (!isFeatureConstant(expression)) return true;
  const value = expression.evaluate({ zoom: patternGridZoom(zoom), globalState });
  return value !== undefined && value !== null && String(value) !== '';
}

/** The zoom whose pixel grid patterns are laid on: MapLibre's tile zoom of the transform. */
export function patternGridZoom(zoom: number): number {
  return Math.max(0, Math.floor(zoom));
}

/** The sprite image a pattern value (a ResolvedImage, or its name) names; undefined when none. */
export function patternImage(rc: RenderContext, value: unknown): SpriteImage | undefined {
  if (value === undefined || value === null) return undefined;
  const name = typeof value === 'string' ? value : (value as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' ? rc.images.image(name) : undefined;
}

function modulo(value: number, period: number): number {
  const rest = value % period;
  return rest < 0 ? rest + period : rest;
}

/**
 * An image repeated `columns` × `rows` times on one canvas, at its own resolution: exact copies,
 * made by doubling what is already there.
 */
export function tiledCanvas(image: Canvas, columns: number, rows: number): Canvas {
  const { width, height } = image;
  const canvas = createCanvas(width * columns, height * rows);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  for (let done = 1; done < columns; done *= 2) {
    const count = Math.min(done, columns - done);
    ctx.drawImage(canvas, 0, 0, count * width, height, done * width, 0, count * width, height);
  }
  for (let done = 1; done < rows; done *= 2) {
    const count = Math.min(done, rows - done);
    ctx.drawImage(canvas, 0, 0, columns * width, count * height, 0, done * height, columns * width, count * height);
  }
  return canvas;
}

/**
 * An image repeated over the whole output on the world's pixel grid, drawn through whatever clip
 * the painter has set (Skia's pattern shaders sample bicubically whatever the smoothing setting,
 * so the repeats are laid out at the image's resolution and drawn scaled once, bilinearly).
 */
export class WorldPattern {
  private readonly tiles: Canvas;
  private readonly x: number;
  private readonly y: number;
  private readonly scale: number;

  constructor(rc: RenderContext, image: SpriteImage) {
    const { view } = rc;
    this.scale = (2 ** (view.zoom - patternGridZoom(view.zoom)) * view.pixelRatio) / image.pixelRatio;
    const periodX = image.image.width * this.scale;
    const periodY = image.image.height * this.scale;
    // The repeat at or before the output's corner, anchored where the world's origin falls.
    this.x = modulo(-view.left * view.pixelRatio, periodX) - periodX;
    this.y = modulo(-view.top * view.pixelRatio, periodY) - periodY;
    this.tiles = tiledCanvas(image.image, Math.ceil((view.width - this.x) / periodX) + 1, Math.ceil((view.height - this.y) / periodY) + 1);
  }

  /** Paints the pattern over the output, within the current clip, at the context's alpha. */
  paint(ctx: SKRSContext2D): void {
    const { imageSmoothingEnabled, imageSmoothingQuality } = ctx;
    // MapLibre's LINEAR texture filter.
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = 'low';
    ctx.drawImage(this.tiles, this.x, this.y, this.tiles.width * this.scale, this.tiles.height * this.scale);
    ctx.imageSmoothingEnabled = imageSmoothingEnabled;
    ctx.imageSmoothingQuality = imageSmoothingQuality;
  }
}

/**
 * A feature's pattern value: feature-constant ones at the integer zoom of the view, data-driven
 * ones at the tile's zoom, where MapLibre's bucket resolves them.
 */
export function patternValue(
  expression: StylePropertyExpression,
  zooms: EvaluationZooms,
  feature?: Feature,
  canonical?: ICanonicalTileID,
): unknown {
  const zoom = isFeatureConstant(expression) ? patternGridZoom(zooms.viewZoom) : zooms.tileZoom;
  return expression.evaluate({ zoom, globalState: zooms.globalState }, feature, {}, canonical);
}
