import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countPixels, geojsonSource, line, MemorySource, near, pixel, point, render, sourceSpecs, vectorTile, view } from '../sources.js';

// Tile 0/0/0 at zoom 0 in a 512x512 view: tile coordinate / 8 = pixel; (2052, 2052) is pixel centre (256.5, 256.5).
const source = (features: ReturnType<typeof point>[]) => new MemorySource(new Map([['0/0/0', vectorTile({ points: features })]]));
const style = (v: MemorySource, paint: Record<string, unknown>, layout: Record<string, unknown> = {}) =>
  ({ sources: sourceSpecs({ v }), layers: [{ id: 'c', type: 'circle', source: 'v', 'source-layer': 'points', paint, layout }] }) as never;

test('a circle of radius 10 is opaque to 9 px and fades out by 10 px, as MapLibre\'s 1-px ramp does', async () => {
  const v = source([point(2052, 2052)]);
  const canvas = await render(style(v, { 'circle-color': 'red', 'circle-radius': 10 }), { v }, view(0));
  assert.deepEqual(pixel(canvas, 256, 256), [255, 0, 0, 255]);
  assert.equal(pixel(canvas, 256 + 8, 256)[3], 255);
  assert.equal(pixel(canvas, 256 + 10, 256)[3], 0);
  assert.equal(pixel(canvas, 256 + 7, 256 + 7)[3] < 64, true);
  // Area of a disc of radius 9.5: MapLibre's ramp runs from 9 to 10.
  assert.ok(near(countPixels(canvas, ([, , , a]) => a > 127), Math.PI * 9.5 ** 2, 12));
});

test('circle radius and stroke width double at @2x', async () => {
  const v = source([point(2052, 2052)]);
  const paint = { 'circle-color': 'red', 'circle-radius': 6, 'circle-stroke-width': 2, 'circle-stroke-color': 'blue' };
  const canvas = await render(style(v, paint), { v }, view(0, [0, 0], 512, 512, 2));
  // Centre (513, 513) in device pixels: fill to 12, stroke to 16.
  assert.deepEqual(pixel(canvas, 513 + 10, 513), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 513 + 13, 513), [0, 0, 255, 255]);
  assert.deepEqual(pixel(canvas, 513 + 16, 513), [0, 0, 0, 0]);
});

test('a translucent fill does not show the stroke through it', async () => {
  const v = source([point(2052, 2052)]);
  const paint = { 'circle-color': 'red', 'circle-opacity': 0.5, 'circle-radius': 8, 'circle-stroke-width': 3, 'circle-stroke-color': 'blue' };
  const canvas = await render(style(v, paint), { v }, view(0));
  const [r, g, b, a] = pixel(canvas, 256, 256);
  assert.ok(r === 255 && g === 0 && b === 0 && near(a, 128, 2));
  assert.deepEqual(pixel(canvas, 256 + 9, 256), [0, 0, 255, 255]);
});

test('circle-blur 1 fades from the centre outwards', async () => {
  const v = source([point(2052, 2052)]);
  const canvas = await render(style(v, { 'circle-color': 'black', 'circle-radius': 20, 'circle-blur': 1 }), { v }, view(0));
  // MapLibre: alpha = smoothstep(0, 1, 1 - d / 20).
  for (const d of [2, 5, 10, 15, 19]) {
    const t = 1 - (d + 0.5) / 20;
    const expected = t * t * (3 - 2 * t) * 255;
    assert.ok(near(pixel(canvas, 256 + d, 256)[3], expected, 12), `at ${d}: ${pixel(canvas, 256 + d, 256)[3]} vs ${expected.toFixed(0)}`);
  }
});

test('a point in the buffers of two tiles is drawn once, by the tile it lies in', async () => {
  const g = geojsonSource({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [1, 1] } }] });
  const canvas = await render(
    { sources: sourceSpecs({ g }), layers: [{ id: 'c', type: 'circle', source: 'g', paint: { 'circle-color': 'black', 'circle-opacity': 0.5, 'circle-radius': 5 } }] } as never,
    { g },
    view(1, [0, 0]),
  );
  const [, , , a] = pixel(canvas, 257, 254);
  assert.ok(near(a, 128, 2), `alpha ${a}`);
});

test('circles are drawn at every vertex of lines too, as MapLibre does', async () => {
  const v = source([line([[800, 800], [1600, 800]]) as ReturnType<typeof point>]);
  const canvas = await render(style(v, { 'circle-color': 'black', 'circle-radius': 3 }), { v }, view(0));
  assert.equal(pixel(canvas, 100, 100)[3], 255);
  assert.equal(pixel(canvas, 200, 100)[3], 255);
  assert.equal(pixel(canvas, 150, 100)[3], 0);
});

test('circle-sort-key orders circles across features', async () => {
  const v = source([point(2052, 2052, { kind: 'a', key: 2 }), point(2052, 2052, { kind: 'b', key: 1 })]);
  const paint = { 'circle-radius': 5, 'circle-color': ['match', ['get', 'kind'], 'a', 'red', 'blue'] };
  const unsorted = await render(style(v, paint), { v }, view(0));
  assert.deepEqual(pixel(unsorted, 256, 256), [0, 0, 255, 255]);
  const sorted = await render(style(v, paint, { 'circle-sort-key': ['get', 'key'] }), { v }, view(0));
  assert.deepEqual(pixel(sorted, 256, 256), [255, 0, 0, 255]);
});
