/**
 * raster: each tile's image over its square, placed on the pixel-aligned view as MapLibre places
 * raster tiles, sampled bilinearly (`resampling` / `raster-resampling` linear) or nearest, clamped at
 * the tile's edges (CLAMP_TO_EDGE), with `raster-opacity`; drawn fade-free, as a finished render of
 * MapLibre's looks. The colour properties are MapLibre's raster fragment shader, applied to the
 * tile's pixels before resampling:
 *   rgb  = hue-rotated by `raster-hue-rotate` (spin weights),
 *   rgb += (average of the original rgb - rgb) × saturation factor,
 *   rgb  = (rgb - 0.5) × contrast factor + 0.5,
 *   rgb  = mix(brightness-min, brightness-max, rgb)
 * with saturation factor s > 0 ? 1 - 1/(1.001 - s) : -s and contrast factor c > 0 ? 1/(1 - c) : 1 + c.
 */

import { createCanvas, type Canvas, type Image, type SKRSContext2D } from '@napi-rs/canvas';
import type { RasterTile } from '../source/source.js';
import type { RenderContext } from '../paint/context.js';
import { evaluateAt } from '../style/properties.js';
import { intersectsImage, tileClip, tileRect, type PixelRect } from '../view/projection.js';
import type { RenderLayer } from '../style/style.js';

/** Source pixels of edge repeated around a tile image, so that no drawn edge falls inside the clip. */
const PADDING = 2;

export interface RasterColor {
  brightnessMin: number;
  brightnessMax: number;
  saturation: number;
  contrast: number;
  hueRotate: number;
}

export function drawRaster(rc: RenderContext, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded || loaded.raster.length === 0) return;
  const value = <T>(name: string): T => evaluateAt<T>(layer.paint[name]!, rc.zoom, rc.style.globalState);
  const opacity = value<number>('raster-opacity');
  if (!(opacity > 0)) return;
  const nearest = value<string>('resampling') === 'nearest' || value<string>('raster-resampling') === 'nearest';
  const color: RasterColor = {
    brightnessMin: value<number>('raster-brightness-min'),
    brightnessMax: value<number>('raster-brightness-max'),
    saturation: value<number>('raster-saturation'),
    contrast: value<number>('raster-contrast'),
    hueRotate: value<number>('raster-hue-rotate'),
  };
  const identity = color.brightnessMin === 0 && color.brightnessMax === 1 && color.saturation === 0 && color.contrast === 0 && color.hueRotate === 0;
  const { ctx } = rc;
  ctx.save();
  ctx.globalAlpha = Math.min(1, opacity);
  for (const { cover, tile } of loaded.raster) {
    const rect = tileRect(rc.alignedView, cover);
    const clip = tileClip(rc.alignedView, cover);
    if (!intersectsImage(rc.alignedView, clip)) continue;
    drawTileImage(ctx, paddedTile(tile, identity ? undefined : color), tile.width, tile.height, rect, clip, !nearest);
  }
  ctx.restore();
}

/** Each tile's padded image (and its colour-adjusted one, with the adjustment it was made for). */
const padded = new WeakMap<RasterTile, { key: string; canvas: Canvas }>();

function paddedTile(tile: RasterTile, color: RasterColor | undefined): Canvas {
  const key = color ? JSON.stringify(color) : '';
  let entry = padded.get(tile);
  if (!entry || entry.key !== key) {
    entry = { key, canvas: padImage(color ? adjustedImage(tile, color) : tile.image, tile.width, tile.height) };
    padded.set(tile, entry);
  }
  return entry.canvas;
}

/**
 * Draws a tile image, padded by PADDING pixels copying its edges, over `rect` (device px,
 * fractional), clipped to `clip`: what shows inside the clip is the image sampled as a GL texture
 * clamped to its edge, and the antialiased border of the drawn image lies outside.
 */
function drawTileImage(ctx: SKRSContext2D, padded: Canvas, width: number, height: number, rect: PixelRect, clip: PixelRect, smooth: boolean): void {
  const sx = (rect.x1 - rect.x0) / width;
  const sy = (rect.y1 - rect.y0) / height;
  ctx.save();
  ctx.beginPath();
  ctx.rect(clip.x0, clip.y0, clip.x1 - clip.x0, clip.y1 - clip.y0);
  ctx.clip();
  ctx.imageSmoothingEnabled = smooth;
  ctx.imageSmoothingQuality = 'low';
  ctx.drawImage(padded, rect.x0 - PADDING * sx, rect.y0 - PADDING * sy, (width + 2 * PADDING) * sx, (height + 2 * PADDING) * sy);
  ctx.restore();
}

/** The image with PADDING pixels around it repeating its edge pixels. */
function padImage(image: Image | Canvas, width: number, height: number): Canvas {
  const p = PADDING;
  const canvas = createCanvas(width + 2 * p, height + 2 * p);
  const ctx = canvas.getContext('2d');
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(image, p, p, width, height);
  // Edges, then corners: each stretched from the outermost row or column of pixels.
  ctx.drawImage(image, 0, 0, width, 1, p, 0, width, p);
  ctx.drawImage(image, 0, height - 1, width, 1, p, height + p, width, p);
  ctx.drawImage(image, 0, 0, 1, height, 0, p, p, height);
  ctx.drawImage(image, width - 1, 0, 1, height, width + p, p, p, height);
  ctx.drawImage(image, 0, 0, 1, 1, 0, 0, p, p);
  ctx.drawImage(image, width - 1, 0, 1, 1, width + p, 0, p, p);
  ctx.drawImage(image, 0, height - 1, 1, 1, 0, height + p, p, p);
  ctx.drawImage(image, width - 1, height - 1, 1, 1, width + p, height + p, p, p);
  return canvas;
}

/** The tile's pixels through MapLibre's raster colour math, as a canvas. */
function adjustedImage(tile: RasterTile, color: RasterColor): Canvas {
  const source = tile.pixels();
  const canvas = createCanvas(tile.width, tile.height);
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(tile.width, tile.height);
  adjustPixels(source, image.data, color);
  ctx.putImageData(image, 0, 0);
  return canvas;
}

/** Applies MapLibre's raster colour math to straight-alpha RGBA pixels. */
export function adjustPixels(source: Uint8ClampedArray, target: Uint8ClampedArray, color: RasterColor): void {
  const angle = (color.hueRotate * Math.PI) / 180;
  const s = Math.sin(angle);
  const c = Math.cos(angle);
  const w0 = (2 * c + 1) / 3;
  const w1 = (-Math.sqrt(3) * s - c + 1) / 3;
  const w2 = (Math.sqrt(3) * s - c + 1) / 3;
  const saturation = color.saturation > 0 ? 1 - 1 / (1.001 - color.saturation) : -color.saturation;
  const contrast = color.contrast > 0 ? 1 / (1 - color.contrast) : 1 + color.contrast;
  const low = color.brightnessMin;
  const range = color.brightnessMax - color.brightnessMin;
  for (let i = 0; i < source.length; i += 4) {
    const r = source[i]! / 255;
    const g = source[i + 1]! / 255;
    const b = source[i + 2]! / 255;
    // spin: dot(rgb, w.xyz), dot(rgb, w.zxy), dot(rgb, w.yzx)
    let rr = r * w0 + g * w1 + b * w2;
    let gg = r * w2 + g * w0 + b * w1;
    let bb = r * w1 + g * w2 + b * w0;
    const average = (r + g + b) / 3;
    rr += (average - rr) * saturation;
    gg += (average - gg) * saturation;
    bb += (average - bb) * saturation;
    rr = (rr - 0.5) * contrast + 0.5;
    gg = (gg - 0.5) * contrast + 0.5;
    bb = (bb - 0.5) * contrast + 0.5;
    target[i] = Math.round((low + range * rr) * 255);
    target[i + 1] = Math.round((low + range * gg) * 255);
    target[i + 2] = Math.round((low + range * bb) * 255);
    target[i + 3] = source[i + 3]!;
  }
}
