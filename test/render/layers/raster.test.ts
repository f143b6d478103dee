import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RasterTile } from '../../../src/render/source/source.js';
import { adjustPixels } from '../../../src/render/layers/raster.js';
import { MemorySource, near, pixel, rasterTile, render, sourceSpecs, view } from '../sources.js';

const style = (r: MemorySource, paint: Record<string, unknown> = {}) =>
  ({ sources: sourceSpecs({ r }), layers: [{ id: 'r', type: 'raster', source: 'r', paint }] }) as never;

/** A 512-px tile, left half orange, right half teal. */
const halves = (): Promise<RasterTile> =>
  rasterTile(512, 512, (ctx) => {
    ctx.fillStyle = 'rgb(255, 128, 0)';
    ctx.fillRect(0, 0, 256, 512);
    ctx.fillStyle = 'rgb(0, 128, 128)';
    ctx.fillRect(256, 0, 256, 512);
  });

test('a 512-px raster tile fills its square pixel for pixel at its own zoom', async () => {
  const r = new MemorySource(new Map([['0/0/0', await halves()]]), { kind: 'raster' });
  const canvas = await render(style(r), { r }, view(0));
  assert.deepEqual(pixel(canvas, 0, 0), [255, 128, 0, 255]);
  assert.deepEqual(pixel(canvas, 255, 511), [255, 128, 0, 255]);
  assert.deepEqual(pixel(canvas, 256, 0), [0, 128, 128, 255]);
  assert.deepEqual(pixel(canvas, 511, 300), [0, 128, 128, 255]);
});

test('raster saturation -1 gives grey: the average of the channels', async () => {
  const r = new MemorySource(new Map([['0/0/0', await halves()]]), { kind: 'raster' });
  const canvas = await render(style(r, { 'raster-saturation': -1 }), { r }, view(0));
  const [red, green, blue, alpha] = pixel(canvas, 100, 100);
  assert.ok(red === green && green === blue && alpha === 255);
  assert.ok(near(red, (255 + 128) / 3, 1));
});

test('raster colour math follows MapLibre\'s shader', () => {
  const source = Uint8ClampedArray.from([255, 128, 0, 255]);
  const out = new Uint8ClampedArray(4);
  const apply = (color: Partial<Parameters<typeof adjustPixels>[2]>): number[] => {
    adjustPixels(source, out, { brightnessMin: 0, brightnessMax: 1, saturation: 0, contrast: 0, hueRotate: 0, ...color });
    return Array.from(out);
  };
  assert.deepEqual(apply({}), [255, 128, 0, 255]);
  assert.deepEqual(apply({ brightnessMax: 0 }), [0, 0, 0, 255]);
  assert.deepEqual(apply({ brightnessMin: 1 }), [255, 255, 255, 255]);
  // brightness: mix(min, max, rgb)
  assert.deepEqual(apply({ brightnessMin: 0.2, brightnessMax: 0.6 }), [153, 102, 51, 255]);
  // contrast -1 flattens everything to mid grey; a hue rotation of 120° moves red to green.
  assert.deepEqual(apply({ contrast: -1 }), [128, 128, 128, 255]);
  const rotated = apply({ hueRotate: 120 });
  assert.ok(near(rotated[0]!, 0, 1) && near(rotated[1]!, 255, 1) && near(rotated[2]!, 128, 1), `${rotated}`);
});

test('raster-opacity makes the layer translucent', async () => {
  const r = new MemorySource(new Map([['0/0/0', await halves()]]), { kind: 'raster' });
  const canvas = await render(style(r, { 'raster-opacity': 0.5 }), { r }, view(0));
  assert.ok(near(pixel(canvas, 10, 10)[3], 128, 1));
});

test('raster sources round the zoom: at zoom 0.6 they draw zoom 1 tiles, downscaled', async () => {
  const tile = await rasterTile(512, 512, (ctx) => {
    ctx.fillStyle = 'rgb(0, 0, 255)';
    ctx.fillRect(0, 0, 512, 512);
  });
  const r = new MemorySource(() => tile, { kind: 'raster' });
  const canvas = await render(style(r), { r }, view(0.6));
  assert.deepEqual([...r.requests].sort(), ['1/0/0', '1/0/1', '1/1/0', '1/1/1']);
  assert.deepEqual(pixel(canvas, 256, 256), [0, 0, 255, 255]);
  assert.deepEqual(pixel(canvas, 255, 255), [0, 0, 255, 255]);
});

test('nearest resampling keeps the source pixels\' hard edges when over-zoomed', async () => {
  const checker = await rasterTile(2, 2, (ctx) => {
    ctx.fillStyle = 'black';
    ctx.fillRect(0, 0, 2, 2);
    ctx.fillStyle = 'white';
    ctx.fillRect(0, 0, 1, 1);
    ctx.fillRect(1, 1, 1, 1);
  });
  const r = new MemorySource(new Map([['0/0/0', checker]]), { kind: 'raster', maxzoom: 0 });
  const nearest = await render(style(r, { 'raster-resampling': 'nearest' }), { r }, view(0));
  assert.deepEqual(pixel(nearest, 250, 250), [255, 255, 255, 255]);
  assert.deepEqual(pixel(nearest, 260, 250), [0, 0, 0, 255]);
  const linear = await render(style(r), { r }, view(0));
  const [value] = pixel(linear, 250, 250);
  assert.ok(value! > 100 && value! < 160, `linear blends the pixels: ${value}`);
});

test('a missing tile leaves its square empty', async () => {
  const blue = await rasterTile(512, 512, (ctx) => {
    ctx.fillStyle = 'blue';
    ctx.fillRect(0, 0, 512, 512);
  });
  const r = new MemorySource((_z, x) => (x === 0 ? blue : null), { kind: 'raster' });
  const canvas = await render(style(r), { r }, view(1));
  assert.deepEqual(pixel(canvas, 100, 100), [0, 0, 255, 255]);
  assert.deepEqual(pixel(canvas, 400, 100), [0, 0, 0, 0]);
});
