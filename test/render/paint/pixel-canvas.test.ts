/**
 * pixelCanvas: the pixels written land where they were written on a canvas padded to the grid with
 * transparent pixels; a canvas given back serves the next raster of its padded size, and a drawing
 * already made of it keeps the pixels it had then; a raster cache gives back the canvases it drops.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { takeCanvas } from '../../../src/render/paint/canvas-pool.js';
import { PIXEL_CANVAS_GRID, pixelCanvas, rasterCache, releasePixelCanvas } from '../../../src/render/paint/pixel-canvas.js';

/** A raster of `width` x `height` in one opaque colour. */
function solid(width: number, height: number, [r, g, b]: [number, number, number]) {
  return pixelCanvas(width, height, (data, stride) => {
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) data.set([r, g, b, 255], (y * stride + x) * 4);
    }
  });
}

test('the pixels land at their place, the canvas padded to the grid with transparent pixels', () => {
  const canvas = pixelCanvas(37, 5, (data, stride) => {
    data.set([10, 20, 30, 255], (0 * stride + 0) * 4);
    data.set([40, 50, 60, 128], (4 * stride + 36) * 4);
  });
  assert.equal(PIXEL_CANVAS_GRID, 16);
  assert.equal(canvas.width, 48);
  assert.equal(canvas.height, 16);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const at = (x: number, y: number) => [...data.subarray((y * canvas.width + x) * 4, (y * canvas.width + x) * 4 + 4)];
  assert.deepEqual(at(0, 0), [10, 20, 30, 255]);
  assert.equal(at(36, 4)[3], 128);
  let opaque = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) opaque++;
  assert.equal(opaque, 2, 'every other pixel, the padding included, is transparent');
});

test('a canvas given back serves the next raster of its padded size, cleared of the last one', () => {
  const first = solid(20, 20, [255, 0, 0]);
  releasePixelCanvas(first);
  const second = pixelCanvas(30, 18, () => {});
  assert.equal(second, first, 'same padded size (32 x 32): the same canvas');
  const data = second.getContext('2d').getImageData(0, 0, 32, 32).data;
  assert.ok(data.every((value) => value === 0), 'nothing of the first raster is left');
});

test('a drawing made of a canvas keeps its pixels when the canvas is given back and written again', () => {
  const target = createCanvas(64, 16);
  const ctx = target.getContext('2d');
  const red = solid(8, 8, [255, 0, 0]);
  ctx.drawImage(red, 0, 0);
  releasePixelCanvas(red);
  const green = solid(8, 8, [0, 255, 0]);
  assert.equal(green, red, 'the same canvas, written again');
  ctx.drawImage(green, 32, 0);
  const data = ctx.getImageData(0, 0, 64, 16).data;
  assert.deepEqual([...data.subarray((2 * 64 + 2) * 4, (2 * 64 + 2) * 4 + 4)], [255, 0, 0, 255]);
  assert.deepEqual([...data.subarray((2 * 64 + 34) * 4, (2 * 64 + 34) * 4 + 4)], [0, 255, 0, 255]);
});

test('a raster cache gives the canvas of the raster it drops back to the pool', () => {
  const cache = rasterCache<string>(1);
  const first = { canvas: solid(50, 50, [0, 0, 255]), x: 0, y: 0 };
  cache.set('a', first);
  cache.set('none', null);
  assert.equal(takeCanvas(64, 64), first.canvas);
});
