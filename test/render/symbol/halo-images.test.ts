/**
 * HaloImages: a halo is made once per key and kept; its canvas goes back to the pool when the cache
 * drops it or when its decoded copy replaces it, and only once when both happen.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Canvas } from '@napi-rs/canvas';
import { takeCanvas } from '../../../src/render/paint/canvas-pool.js';
import { pixelCanvas } from '../../../src/render/paint/pixel-canvas.js';
import { HaloImages } from '../../../src/render/symbol/halo-images.js';

/** A halo-like raster of its own padded size (the pool hands canvases out by size). */
function raster(width: number, height: number): { canvas: Canvas; x: number; y: number } {
  const canvas = pixelCanvas(width, height, (data, stride) => data.set([0, 0, 0, 200], (1 * stride + 1) * 4));
  return { canvas, x: -2, y: -3 };
}

/** Until the copy asked for on the last `get` is made (a turn of the event loop, then a decode on libuv's threads). */
const copied = () => new Promise((resolve) => setTimeout(resolve, 200));

test('a halo is made once per key and kept', () => {
  const halos = new HaloImages(8, 1 << 20);
  let made = 0;
  const make = () => (made++, raster(100, 20));
  const first = halos.get('a', make);
  assert.equal(halos.get('a', make), first);
  assert.equal(made, 1);
  assert.equal(halos.get('none', () => null), null);
  assert.equal(halos.get('none', () => raster(1, 1)), null, 'nothing to draw is kept too');
});

test('a halo the cache drops gives its canvas back to the pool', () => {
  const halos = new HaloImages(1, 1 << 20);
  const a = halos.get('a', () => raster(200, 40))!;
  halos.get('b', () => raster(10, 10));
  assert.equal(takeCanvas(208, 48), a.source, 'the next canvas of its size is the dropped halo\'s');
});

test('a halo drawn again becomes a decoded Image and gives its canvas back', async () => {
  const halos = new HaloImages(8, 1 << 20);
  const halo = halos.get('a', () => raster(300, 40))!;
  const canvas = halo.source;
  halos.get('a', () => assert.fail('made again'));
  await copied();
  assert.notEqual(halo.source, canvas);
  assert.ok(!('getContext' in halo.source), 'an Image now');
  assert.equal(takeCanvas(304, 48), canvas);
});

for (const when of ['before its copy is started', 'while its copy is decoded'] as const) {
  test(`a halo dropped ${when} gives its canvas back once`, async () => {
    const halos = new HaloImages(1, 1 << 20);
    const halo = halos.get('a', () => raster(400, 40))!;
    const canvas = halo.source;
    halos.get('a', () => assert.fail('made again'));
    // The copy starts on the next turn of the event loop, reading the canvas, then decodes on libuv's threads.
    if (when === 'while its copy is decoded') await new Promise((resolve) => setImmediate(resolve));
    halos.get('b', () => raster(10, 10));
    // Given back when dropped, and taken by someone else at once.
    assert.equal(takeCanvas(400, 48), canvas);
    await copied();
    assert.notEqual(takeCanvas(400, 48), canvas, 'the copy did not give back a canvas now in use');
  });
}
