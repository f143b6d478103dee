/**
 * A raster the renderer computes pixel by pixel (a label's halo, an SDF icon) as a canvas to draw
 * whole. Its size is rounded up to PIXEL_CANVAS_GRID on the right and bottom, with transparent
 * pixels there, so that one canvas size serves many labels and canvases are kept and used again
 * (canvas-pool.ts) rather than made and dropped for every label. Skia samples the padding as the
 * transparent neighbours of the edge pixels, as MapLibre's shaders sample the glyph atlas' padding.
 * The pixels pass through one ImageData per padded width, kept too.
 */

import type { Canvas, ImageData } from '@napi-rs/canvas';
import { Lru } from '../../platform/lru.js';
import { releaseCanvas, takeCanvas } from './canvas-pool.js';

/** The grid, in device pixels, that a raster's canvas is padded to. */
export const PIXEL_CANVAS_GRID = 16;

/** The ImageData the pixels are written to, by padded width, as tall as the tallest raster of that width so far. */
const staging = new Map<number, ImageData>();

const padded = (pixels: number): number => Math.ceil(pixels / PIXEL_CANVAS_GRID) * PIXEL_CANVAS_GRID;

/**
 * A canvas whose pixel (i, j) for i < width and j < height is what `write` put at
 * `data[(j * stride + i) * 4 ...]` (straight RGBA; `data` is zero there until written), and
 * transparent beyond. Give it back with `releasePixelCanvas` once it will not be drawn again.
 */
export function pixelCanvas(width: number, height: number, write: (data: Uint8ClampedArray, stride: number) => void): Canvas {
  const stride = padded(width);
  const rows = padded(height);
  const canvas = takeCanvas(stride, rows);
  const ctx = canvas.getContext('2d');
  let image = staging.get(stride);
  if (!image || image.height < rows) staging.set(stride, (image = ctx.createImageData(stride, rows)));
  image.data.fill(0, 0, stride * rows * 4);
  write(image.data, stride);
  ctx.putImageData(image, 0, 0, 0, 0, stride, rows);
  return canvas;
}

/** A canvas from `pixelCanvas` back to the pool: a drawing already made of it keeps its pixels (Skia copies on write). */
export const releasePixelCanvas = releaseCanvas;

/** A raster drawn from its pixels, to be put at (x, y) device px from where it was made for. */
export interface PixelRaster {
  canvas: Canvas;
  x: number;
  y: number;
}

/** Rasters kept by key (null: nothing to draw), the least recently used dropped first and its canvas given back. */
export function rasterCache<K>(entries: number): Lru<K, PixelRaster | null> {
  return new Lru<K, PixelRaster | null>(entries, { onEvict: (raster) => raster && releasePixelCanvas(raster.canvas) });
}
