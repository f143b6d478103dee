import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countPixels, geojsonSource, MemorySource, near, pixel, polygon, render, sourceSpecs, vectorTile, view } from '../sources.js';

// At zoom 0 a 512x512 view centred on (0, 0) shows tile 0/0/0: tile coordinate / 8 = pixel.
const square = (x0: number, y0: number, x1: number, y1: number, properties = {}) =>
  polygon([[x0 * 8, y0 * 8], [x1 * 8, y0 * 8], [x1 * 8, y1 * 8], [x0 * 8, y1 * 8]], properties);

function oneTile(features: ReturnType<typeof square>[], options = {}): MemorySource {
  return new MemorySource(new Map([['0/0/0', vectorTile({ shapes: features })]]), options);
}

const fill = (paint: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ id: 'fill', type: 'fill', source: 'v', 'source-layer': 'shapes', paint, ...extra });

test('a red fill covers exactly the polygon\'s pixels', async () => {
  const v = oneTile([square(100, 100, 200, 150)]);
  const canvas = await render({ sources: sourceSpecs({ v }), layers: [fill({ 'fill-color': 'red', 'fill-antialias': false })] as never }, { v }, view(0));
  assert.equal(countPixels(canvas, ([r, g, b, a]) => r === 255 && g === 0 && b === 0 && a === 255), 100 * 50);
  assert.equal(countPixels(canvas, ([, , , a]) => a > 0), 100 * 50);
  assert.deepEqual(pixel(canvas, 100, 100), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 99, 120), [0, 0, 0, 0]);
  assert.deepEqual(pixel(canvas, 200, 120), [0, 0, 0, 0]);
});

test('fill-antialias adds MapLibre\'s outline: GL lines one device pixel wide in fill-outline-color', async () => {
  const v = oneTile([square(100, 100, 200, 150), polygon([[2400, 800], [3200, 1000], [2400, 1200]])]);
  const layers = [fill({ 'fill-color': 'red', 'fill-outline-color': 'blue' })];
  const canvas = await render({ sources: sourceSpecs({ v }), layers } as never, { v }, view(0));
  // An edge on a pixel boundary lights one pixel at half strength: left of a vertical edge, below a
  // horizontal one, as the GL rasteriser breaks ties.
  const [r, , b, a] = pixel(canvas, 99, 120);
  assert.ok(b > 200 && r === 0 && near(a, 128, 2), `left of the left edge: ${pixel(canvas, 99, 120)}`);
  assert.deepEqual(pixel(canvas, 100, 120), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 98, 120), [0, 0, 0, 0]);
  assert.ok(near(pixel(canvas, 150, 150)[3], 128, 2) && pixel(canvas, 150, 150)[2] > 200, `below the bottom edge: ${pixel(canvas, 150, 150)}`);
  assert.deepEqual(pixel(canvas, 150, 149), [255, 0, 0, 255]);
  // The top and right edges light the pixels inside, over the fill.
  const top = pixel(canvas, 150, 100);
  assert.ok(top[0] > 100 && top[2] > 100 && top[3] === 255, `${top}`);
  // One pixel per column along a slanted edge: (300, 100) to (400, 125), never two in a column.
  for (const x of [320, 350, 380]) {
    const column = [...Array(20).keys()].map((i) => pixel(canvas, x, 95 + i)).filter(([red, , blue]) => blue > 100 && red < 100);
    assert.ok(column.length <= 1, `column ${x}: ${column.join(' ')}`);
  }
  // At @2x the outline stays one device pixel wide.
  const canvas2 = await render({ sources: sourceSpecs({ v }), layers } as never, { v }, view(0, [0, 0], 512, 512, 2));
  assert.ok(pixel(canvas2, 199, 240)[2] > 200);
  assert.deepEqual(pixel(canvas2, 198, 240), [0, 0, 0, 0]);
  assert.deepEqual(pixel(canvas2, 200, 240), [255, 0, 0, 255]);
});

test('the outline in the fill\'s own colour is a one-device-pixel stroke around the fill', async () => {
  const v = oneTile([square(100, 100, 200, 150)]);
  const canvas = await render({ sources: sourceSpecs({ v }), layers: [fill({ 'fill-color': 'red' })] } as never, { v }, view(0));
  assert.ok(near(pixel(canvas, 99, 120)[3], 128, 2));
  assert.ok(near(pixel(canvas, 200, 120)[3], 128, 2));
  assert.deepEqual(pixel(canvas, 100, 120), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 98, 120), [0, 0, 0, 0]);
});

test('translucent fills do not double where tiles meet (each tile drawn within its own square)', async () => {
  const g = geojsonSource({
    type: 'FeatureCollection',
    features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-40, -30], [40, -30], [40, 30], [-40, 30], [-40, -30]]] } }],
  });
  const canvas = await render(
    { sources: sourceSpecs({ g }), layers: [{ id: 'f', type: 'fill', source: 'g', paint: { 'fill-color': 'rgba(0, 0, 255, 0.5)', 'fill-antialias': false } }] } as never,
    { g },
    view(1, [0, 0]),
  );
  // Zoom 1 shows four tiles meeting at the centre; the polygon spans all four.
  for (const [x, y] of [[256, 256], [255, 255], [256, 200], [200, 256], [300, 300]] as const) {
    assert.ok(near(pixel(canvas, x, y)[3], 128, 2), `alpha at ${x},${y}: ${pixel(canvas, x, y)}`);
  }
  assert.equal(g.requests.length, 4);
});

test('fill-translate moves the fill by CSS pixels, doubled at @2x', async () => {
  const v = oneTile([square(100, 100, 120, 120)]);
  const layers = [fill({ 'fill-color': 'red', 'fill-antialias': false, 'fill-translate': [10, -5] })];
  const canvas = await render({ sources: sourceSpecs({ v }), layers } as never, { v }, view(0));
  assert.deepEqual(pixel(canvas, 110, 95), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 105, 110), [0, 0, 0, 0]);
  const canvas2 = await render({ sources: sourceSpecs({ v }), layers } as never, { v }, view(0, [0, 0], 512, 512, 2));
  assert.deepEqual(pixel(canvas2, 220, 190), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas2, 219, 190), [0, 0, 0, 0]);
});

test('data-driven colours are evaluated per feature', async () => {
  const v = oneTile([square(0, 0, 10, 10, { kind: 'a' }), square(20, 0, 30, 10, { kind: 'b' })]);
  const layers = [fill({ 'fill-antialias': false, 'fill-color': ['match', ['get', 'kind'], 'a', 'red', 'blue'] })];
  const canvas = await render({ sources: sourceSpecs({ v }), layers } as never, { v }, view(0));
  assert.deepEqual(pixel(canvas, 5, 5), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 25, 5), [0, 0, 255, 255]);
});

test('the filter is evaluated at the tile\'s zoom, paint at the view\'s', async () => {
  const v = oneTile([square(0, 0, 512, 512)], { maxzoom: 0 });
  const layers = [
    fill(
      { 'fill-antialias': false, 'fill-color': ['interpolate', ['linear'], ['zoom'], 0, 'rgb(255, 0, 0)', 1, 'rgb(0, 0, 255)'] },
      { filter: ['<', ['zoom'], 0.5] },
    ),
  ];
  // View zoom 0.7: the over-zoomed tile's zoom is 0 (< 0.5, drawn); the colour is 70% of the way to blue.
  const canvas = await render({ sources: sourceSpecs({ v }), layers } as never, { v }, view(0.7));
  const [r, g, b, a] = pixel(canvas, 256, 256);
  assert.ok(a === 255 && near(r, 77, 2) && g === 0 && near(b, 179, 2), `${[r, g, b, a]}`);
  // A 256-px source's tiles are one zoom deeper: the same view evaluates the filter at zoom 1.
  const v256 = new MemorySource(new Map([['1/0/0', vectorTile({ shapes: [square(0, 0, 512, 512)] })], ['1/1/0', vectorTile({ shapes: [square(0, 0, 512, 512)] })], ['1/0/1', vectorTile({ shapes: [square(0, 0, 512, 512)] })], ['1/1/1', vectorTile({ shapes: [square(0, 0, 512, 512)] })]]), { tileSize: 256, maxzoom: 1 });
  const hidden = await render({ sources: sourceSpecs({ v: v256 }), layers } as never, { v: v256 }, view(0.7));
  assert.equal(countPixels(hidden, ([, , , alpha]) => alpha > 0), 0);
});

test('fill-sort-key draws features in ascending key order', async () => {
  const v = oneTile([square(0, 0, 20, 20, { kind: 'a', key: 2 }), square(10, 10, 30, 30, { kind: 'b', key: 1 })]);
  const paint = { 'fill-antialias': false, 'fill-color': ['match', ['get', 'kind'], 'a', 'red', 'blue'] };
  const unsorted = await render({ sources: sourceSpecs({ v }), layers: [fill(paint)] } as never, { v }, view(0));
  assert.deepEqual(pixel(unsorted, 15, 15), [0, 0, 255, 255]);
  const sorted = await render({ sources: sourceSpecs({ v }), layers: [fill(paint, { layout: { 'fill-sort-key': ['get', 'key'] } })] } as never, { v }, view(0));
  assert.deepEqual(pixel(sorted, 15, 15), [255, 0, 0, 255]);
});

test('line strings are filled as closed rings; points are not filled', async () => {
  const v = oneTile([
    { type: 2, properties: {}, geometry: [Int32Array.of(0, 0, 800, 0, 800, 800, 0, 800)] },
    { type: 1, properties: {}, geometry: [Int32Array.of(2000, 2000)] },
  ]);
  const canvas = await render({ sources: sourceSpecs({ v }), layers: [fill({ 'fill-color': 'red', 'fill-antialias': false })] } as never, { v }, view(0));
  assert.equal(countPixels(canvas, ([, , , a]) => a > 0), 100 * 100);
});
