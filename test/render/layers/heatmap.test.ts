import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemorySource, near, pixel, point, render, sourceSpecs, vectorTile, view } from '../sources.js';

const GAUSS_COEF = 0.3989422804014327;
const source = (features: ReturnType<typeof point>[]) => new MemorySource(new Map([['0/0/0', vectorTile({ points: features })]]));
const style = (v: MemorySource, paint: Record<string, unknown>) =>
  ({ sources: sourceSpecs({ v }), layers: [{ id: 'h', type: 'heatmap', source: 'v', 'source-layer': 'points', paint }] }) as never;
/** A ramp from transparent to opaque black: the alpha shows the density. */
const densityRamp = ['interpolate', ['linear'], ['heatmap-density'], 0, 'rgba(0, 0, 0, 0)', 1, 'rgba(0, 0, 0, 1)'];

test('a point\'s density is a Gaussian of its radius, weight and intensity', async () => {
  // The point (258, 258) is the centre of a pixel of the quarter-resolution density buffer, whose
  // neighbours' centres are 4 px away; output pixel 257 samples them with weights 7/8 and 1/8.
  const v = source([point(2064, 2064)]);
  const canvas = await render(style(v, { 'heatmap-color': densityRamp, 'heatmap-radius': 40, 'heatmap-weight': 1, 'heatmap-intensity': 2 }), { v }, view(0));
  const peak = 2 * GAUSS_COEF;
  const k = (dx: number, dy: number): number => Math.exp(-4.5 * ((dx / 40) ** 2 + (dy / 40) ** 2));
  const expected = peak * ((7 / 8) ** 2 * k(0, 0) + 2 * (7 / 8) * (1 / 8) * k(4, 0) + (1 / 8) ** 2 * k(4, 4)) * 255;
  assert.ok(near(pixel(canvas, 257, 257)[3], expected, 3), `${pixel(canvas, 257, 257)} vs ${expected}`);
  // 20 px away, half a radius: e^(-4.5/4) of the peak.
  assert.ok(near(pixel(canvas, 257 + 20, 257)[3], peak * Math.exp(-4.5 * (20 / 40) ** 2) * 255, 6));
  assert.equal(pixel(canvas, 257 + 60, 257)[3], 0);
});

test('densities add up, and heatmap-color maps them (the default ramp is transparent at zero)', async () => {
  const v = source([point(2064, 2064), point(2064, 2064), point(2064, 2064)]);
  const canvas = await render(style(v, { 'heatmap-radius': 20 }), { v }, view(0));
  // Three points: density 3 × 0.399 ≈ 1.2, beyond the ramp's end: its last colour, red.
  assert.deepEqual(pixel(canvas, 257, 257), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 100, 100), [0, 0, 0, 0]);
  const faint = await render(style(v, { 'heatmap-radius': 20, 'heatmap-opacity': 0.5 }), { v }, view(0));
  assert.ok(near(pixel(faint, 257, 257)[3], 128, 1));
});
