import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashPattern, offsetPolyline } from '../../../src/render/layers/line.js';
import { alphaRow, line, MemorySource, near, pixel, polygon, render, sourceSpecs, vectorTile, view } from '../sources.js';

// Tile 0/0/0 at zoom 0 in a 512x512 view: tile coordinate / 8 = pixel.
const source = (features: ReturnType<typeof line>[]) => new MemorySource(new Map([['0/0/0', vectorTile({ lines: features })]]));
const horizontal = line([[400, 2048], [3696, 2048]]);
const style = (v: MemorySource, paint: Record<string, unknown>, layout: Record<string, unknown> = {}) =>
  ({ sources: sourceSpecs({ v }), layers: [{ id: 'l', type: 'line', source: 'v', 'source-layer': 'lines', paint, layout }] }) as never;

/** Rows of column x whose alpha is at least `min`. */
function columnRows(canvas: Awaited<ReturnType<typeof render>>, x: number, min = 250): number[] {
  const data = canvas.getContext('2d').getImageData(x, 0, 1, canvas.height).data;
  const rows: number[] = [];
  for (let y = 0; y < canvas.height; y++) if (data[y * 4 + 3]! >= min) rows.push(y);
  return rows;
}

test('a line 4 px wide is 4 px wide, and 8 px wide at @2x', async () => {
  const v = source([horizontal]);
  const canvas = await render(style(v, { 'line-color': 'black', 'line-width': 4 }), { v }, view(0));
  assert.deepEqual(columnRows(canvas, 256), [254, 255, 256, 257]);
  assert.deepEqual(columnRows(canvas, 256, 1), [254, 255, 256, 257]);
  const canvas2 = await render(style(v, { 'line-color': 'black', 'line-width': 4 }), { v }, view(0, [0, 0], 512, 512, 2));
  assert.deepEqual(columnRows(canvas2, 512), [508, 509, 510, 511, 512, 513, 514, 515]);
});

test('line-gap-width draws two lines of line-width either side of the gap', async () => {
  const v = source([horizontal]);
  const canvas = await render(style(v, { 'line-color': 'black', 'line-width': 2, 'line-gap-width': 6 }), { v }, view(0));
  assert.deepEqual(columnRows(canvas, 256), [251, 252, 259, 260]);
  assert.deepEqual(columnRows(canvas, 256, 1), [251, 252, 259, 260]);
});

test('line-offset moves the line to the right of its direction', async () => {
  const eastward = source([horizontal]);
  const canvas = await render(style(eastward, { 'line-color': 'black', 'line-width': 2, 'line-offset': 5 }), { v: eastward }, view(0));
  // Heading east, right is south: down the image.
  assert.deepEqual(columnRows(canvas, 256), [260, 261]);
  const westward = source([line([[3696, 2048], [400, 2048]])]);
  const canvas2 = await render(style(westward, { 'line-color': 'black', 'line-width': 2, 'line-offset': 5 }), { v: westward }, view(0));
  assert.deepEqual(columnRows(canvas2, 256), [250, 251]);
});

test('line-translate shifts by CSS pixels, doubled at @2x', async () => {
  const v = source([horizontal]);
  const canvas = await render(style(v, { 'line-color': 'black', 'line-width': 2, 'line-translate': [0, 10] }), { v }, view(0));
  assert.deepEqual(columnRows(canvas, 256), [265, 266]);
  const canvas2 = await render(style(v, { 'line-color': 'black', 'line-width': 2, 'line-translate': [0, 10] }), { v }, view(0, [0, 0], 512, 512, 2));
  assert.deepEqual(columnRows(canvas2, 512), [530, 531, 532, 533]);
});

test('line-dasharray is measured in line widths', async () => {
  const v = source([line([[800, 2052], [3200, 2052]])]);
  const canvas = await render(style(v, { 'line-color': 'black', 'line-width': 2, 'line-dasharray': ['literal', [3, 2]] }), { v }, view(0));
  // From x = 100: 6 px of dash, 4 px of gap, repeating.
  const row = alphaRow(canvas, 256, 100, 129).map((alpha) => (alpha > 127 ? 1 : 0));
  assert.deepEqual(row.join(''), '111111000011111100001111110000');
});

test('line-blur ramps the edges over blur + 1 px, ending half a pixel outside the width', async () => {
  const v = source([line([[400, 2052], [3696, 2052]])]);
  const canvas = await render(style(v, { 'line-color': 'black', 'line-width': 8, 'line-blur': 4 }), { v }, view(0));
  // Centre row 256.5, width 8: MapLibre's alpha is clamp((4.5 - d) / 5), d the distance from the centre.
  const column = canvas.getContext('2d').getImageData(256, 246, 1, 21).data;
  for (let i = 0; i < 21; i++) {
    const d = Math.abs(246 + i + 0.5 - 256.5);
    const expected = Math.max(0, Math.min(1, (4.5 - d) / 5)) * 255;
    assert.ok(near(column[i * 4 + 3]!, expected, 26), `row ${246 + i}: ${column[i * 4 + 3]} vs ${expected.toFixed(0)}`);
  }
});

test('polygon rings are stroked closed, line strings open with their cap', async () => {
  const ring = polygon([[800, 800], [1600, 800], [1600, 1600], [800, 1600]]);
  const v = new MemorySource(new Map([['0/0/0', vectorTile({ lines: [ring, line([[2400, 2400], [3200, 2400]])] })]]));
  const canvas = await render(style(v, { 'line-color': 'black', 'line-width': 4 }, { 'line-cap': 'square' }), { v }, view(0));
  // The ring's closing edge (x = 100) is drawn; its corners are mitred, not capped.
  assert.equal(pixel(canvas, 100, 150)[3], 255);
  assert.equal(pixel(canvas, 98, 98)[3], 255);
  assert.equal(pixel(canvas, 96, 96)[3], 0);
  // The line's square cap reaches 2 px beyond its end at x = 400.
  assert.equal(pixel(canvas, 401, 300)[3], 255);
  assert.equal(pixel(canvas, 403, 300)[3], 0);
});

test('translucent features blend twice where they overlap, as MapLibre draws them', async () => {
  const v = source([line([[400, 2052], [3696, 2052]]), line([[2052, 400], [2052, 3696]])]);
  const canvas = await render(style(v, { 'line-color': 'black', 'line-width': 4, 'line-opacity': 0.5 }), { v }, view(0));
  assert.ok(near(pixel(canvas, 256, 100)[3], 128, 2));
  assert.ok(near(pixel(canvas, 256, 256)[3], 191, 2));
});

test('dash arrays become Skia intervals: odd arrays join their last dash to the first', () => {
  assert.deepEqual(dashPattern([2, 1], 3), { dash: [6, 3], offset: 0 });
  assert.deepEqual(dashPattern([3, 1, 2], 1), { dash: [5, 1], offset: 2 });
  assert.equal(dashPattern([2], 1), null);
  assert.equal(dashPattern([1, 0], 1), null);
  assert.equal(dashPattern([0, 0], 1), null);
});

test('offset vertices follow the bisector, up to twice the offset at sharp corners', () => {
  const corner = offsetPolyline(Float64Array.from([0, 0, 10, 0, 10, 10]), false, 1);
  // Heading east then south, right is south then west: the corner moves to (9, 1).
  assert.deepEqual(Array.from(corner).map((value) => Math.round(value * 1000) / 1000), [0, 1, 9, 1, 9, 10]);
  const hairpin = offsetPolyline(Float64Array.from([0, 0, 10, 0, 0, 0.1]), false, 1);
  assert.ok(Math.hypot(hairpin[2]! - 10, hairpin[3]! - 0) <= 2 + 1e-9);
});
