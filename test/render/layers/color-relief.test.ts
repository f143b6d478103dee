import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { latest, normalizePropertyExpression, type StylePropertySpecification } from '@maplibre/maplibre-gl-style-spec';
import { colorRamp } from '../../../src/render/layers/color-relief.js';
import type { RasterTile } from '../../../src/render/source/source.js';
import { MemorySource, near, pixel, render, view } from '../sources.js';

const spec = (latest as unknown as Record<string, Record<string, StylePropertySpecification>>)['paint_color-relief']!['color-relief-color']!;
const ramp = ['interpolate', ['linear'], ['elevation'], 0, 'rgb(0, 0, 255)', 1000, 'rgb(255, 0, 0)'];

/** A terrarium tile whose height rises 10 m a pixel eastwards from `start`. */
async function slopeTile(start: number): Promise<RasterTile> {
  const size = 256;
  const canvas = createCanvas(size, size);
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(size, size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const v = start + x * 10 + 32768;
      const o = (y * size + x) * 4;
      image.data.set([Math.floor(v / 256), v % 256, 0, 255], o);
    }
  }
  ctx.putImageData(image, 0, 0);
  const pixels = ctx.getImageData(0, 0, size, size).data;
  return { kind: 'raster', image: await loadImage(await canvas.encode('png')), width: size, height: size, pixels: () => pixels };
}

test('the ramp takes the interpolate stops, heights rounded to the DEM encoding', () => {
  const expression = normalizePropertyExpression(['interpolate', ['linear'], ['elevation'], 0.3, 'red', 1000.26, 'blue'] as never, 'x', spec);
  const terrarium = colorRamp(expression, 'terrarium');
  assert.deepEqual(terrarium.heights, [0.30078125, 1000.26171875]);
  assert.deepEqual(Array.from(terrarium.colors), [255, 0, 0, 255, 0, 0, 255, 255]);
  assert.deepEqual(colorRamp(expression, 'mapbox').heights.map((h) => Math.round(h * 10) / 10), [0.3, 1000.3]);
  // Not an interpolation of the elevation: a transparent ramp.
  const flat = colorRamp(normalizePropertyExpression('red' as never, 'x', spec), 'terrarium');
  assert.deepEqual(Array.from(flat.colors), [0, 0, 0, 0, 0, 0, 0, 0]);
});

test('pixels are coloured by their height, mixed between stops and clamped beyond them', async () => {
  const tile = await slopeTile(-500);
  const dem = new MemorySource(() => tile, { kind: 'raster-dem', tileSize: 256, minzoom: 6, maxzoom: 6, encoding: 'terrarium' });
  const canvas = await render(
    {
      sources: { dem: { type: 'raster-dem', tiles: ['memory://{z}/{x}/{y}'], encoding: 'terrarium' } },
      layers: [{ id: 'r', type: 'color-relief', source: 'dem', paint: { 'color-relief-color': ramp } }],
    } as never,
    { dem },
    // Tile 6/32/31 fills a 256x256 view at zoom 5: pixel x shows DEM pixel x.
    view(5, [2.8125, 2.81103792], 256, 256),
  );
  assert.deepEqual(pixel(canvas, 10, 100), [0, 0, 255, 255]);
  // DEM pixel 100 is 500 m: halfway.
  const [r, g, b, a] = pixel(canvas, 100, 100);
  assert.ok(near(r, 128, 2) && g === 0 && near(b, 128, 2) && a === 255, `${[r, g, b, a]}`);
  assert.deepEqual(pixel(canvas, 200, 100), [255, 0, 0, 255]);
});
