import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Color } from '@maplibre/maplibre-gl-style-spec';
import { roofColor } from '../../../src/render/layers/fill-extrusion.js';
import { MemorySource, near, pixel, polygon, render, sourceSpecs, vectorTile, view } from '../sources.js';

const square = (x0: number, y0: number, x1: number, y1: number, properties = {}) =>
  polygon([[x0 * 8, y0 * 8], [x1 * 8, y0 * 8], [x1 * 8, y1 * 8], [x0 * 8, y1 * 8]], properties);
const style = (v: MemorySource, paint: Record<string, unknown>, light?: Record<string, unknown>) =>
  ({
    sources: sourceSpecs({ v }),
    ...(light ? { light } : {}),
    layers: [{ id: 'x', type: 'fill-extrusion', source: 'v', 'source-layer': 'buildings', paint }],
  }) as never;

test('a roof is lit as MapLibre\'s shader lights an upward face under the default light', async () => {
  const v = new MemorySource(new Map([['0/0/0', vectorTile({ buildings: [square(100, 100, 200, 200)] })]]));
  const canvas = await render(style(v, { 'fill-extrusion-color': 'rgb(128, 128, 128)', 'fill-extrusion-height': 50 }), { v }, view(0));
  // Default light: position [1.15, 210, 30] (z = 1.15 cos 30° ≈ 0.996), intensity 0.5, white:
  // directional = mix(0.5, max(1 - 0.502 + 0.5, 1), 0.996) ≈ 0.998; (0.502 + 0.03) × 0.998 ≈ 0.531.
  const [r, g, b, a] = pixel(canvas, 150, 150);
  assert.ok(near(r, 135, 1) && r === g && g === b && a === 255, `${[r, g, b, a]}`);
});

test('the light\'s colour and intensity change the roof colour', () => {
  const grey = new Color(0.5, 0.5, 0.5, 1);
  const white = { position: [0, 0, 1] as [number, number, number], color: [1, 1, 1] as [number, number, number], intensity: 0.5 };
  assert.ok(near(roofColor(grey, white)[0], 0.53, 0.001));
  // Light from the horizon: directional = 1 - intensity.
  assert.ok(near(roofColor(grey, { ...white, position: [1, 0, 0] })[0], 0.53 * 0.5, 0.001));
  // A red light darkens green down to its floor of 0.3 × (1 - 0).
  const [red, green] = roofColor(grey, { ...white, color: [1, 0, 0] });
  assert.ok(near(red, 0.53, 0.001) && near(green, 0.3, 0.001));
});

test('taller roofs cover lower ones, whatever the order of the features', async () => {
  const v = new MemorySource(
    new Map([['0/0/0', vectorTile({ buildings: [square(100, 100, 200, 200, { h: 100, c: 'red' }), square(150, 150, 250, 250, { h: 10, c: 'blue' })] })]]),
  );
  const canvas = await render(style(v, { 'fill-extrusion-color': ['get', 'c'], 'fill-extrusion-height': ['get', 'h'] }), { v }, view(0));
  const [r, , b] = pixel(canvas, 175, 175);
  assert.ok(r > 200 && b < 50, `the tall red roof is on top: ${pixel(canvas, 175, 175)}`);
});

test('fill-extrusion-opacity applies to the layer as a whole: overlapping roofs do not add up', async () => {
  const v = new MemorySource(new Map([['0/0/0', vectorTile({ buildings: [square(100, 100, 200, 200), square(150, 150, 250, 250)] })]]));
  const canvas = await render(style(v, { 'fill-extrusion-color': 'black', 'fill-extrusion-opacity': 0.5, 'fill-extrusion-height': 10 }), { v }, view(0));
  assert.ok(near(pixel(canvas, 120, 120)[3], 128, 2));
  assert.ok(near(pixel(canvas, 175, 175)[3], 128, 2));
});
