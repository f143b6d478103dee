import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { rgba } from '../../../../src/maps/static/color.js';
import { drawAttribution } from '../../../../src/maps/static/draw/attribution.js';
import { copyShifts, frameOf, worldPixel } from '../../../../src/maps/static/draw/frame.js';
import { drawMarkers } from '../../../../src/maps/static/draw/markers.js';
import { drawPaths } from '../../../../src/maps/static/draw/paths.js';
import { DEFAULT_PIN_COLOR, PIN_HEIGHT } from '../../../../src/maps/static/draw/pin.js';
import { registerFonts } from '../../../../src/maps/static/fonts.js';
import { FontCatalog } from '../../../../src/render/glyphs/catalog.js';
import type { Path } from '../../../../src/maps/static/overlays.js';
import type { Viewport } from '../../../../src/render/view/viewport.js';

function surface(viewport: Viewport): { ctx: SKRSContext2D; pixel: (x: number, y: number) => number[] } {
  const canvas = createCanvas(viewport.width * viewport.pixelRatio, viewport.height * viewport.pixelRatio);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(viewport.pixelRatio, 0, 0, viewport.pixelRatio, 0, 0);
  return { ctx, pixel: (x, y) => [...ctx.getImageData(x, y, 1, 1).data] };
}

const path = (points: [number, number][], extra: Partial<Path> = {}): Path => ({
  fill: null, stroke: rgba(255, 0, 0), width: 4, shortest: false, points, closed: false, ...extra,
});

test('the frame puts the view centre in the middle of the image', () => {
  const viewport: Viewport = { center: [10, 20], zoom: 3, width: 300, height: 200, pixelRatio: 1 };
  const frame = frameOf(viewport);
  const [x, y] = worldPixel(frame, 10, 20);
  assert.ok(Math.abs(x - frame.left - 150) < 1e-9 && Math.abs(y - frame.top - 100) < 1e-9);
});

test('a zoom-0 image 1024 px wide sees the world three times, partly', () => {
  const frame = frameOf({ center: [0, 0], zoom: 0, width: 1024, height: 512, pixelRatio: 1 });
  assert.deepEqual(copyShifts(frame, 0, 512), [-512, 0, 512]);
});

test('a path is stroked in its colour and width, at twice the pixels at @2x', () => {
  for (const pixelRatio of [1, 2] as const) {
    const viewport: Viewport = { center: [0, 0], zoom: 2, width: 100, height: 100, pixelRatio };
    const { ctx, pixel } = surface(viewport);
    drawPaths(ctx, frameOf(viewport), [path([[-10, 0], [10, 0]])]);
    const mid = 50 * pixelRatio;
    assert.deepEqual(pixel(mid, mid), [255, 0, 0, 255]);
    assert.deepEqual(pixel(mid, mid + 1.5 * pixelRatio), [255, 0, 0, 255]);
    assert.equal(pixel(mid, mid + 3 * pixelRatio)[3], 0);
  }
});

test('a closed path is filled, an open one is not', () => {
  const viewport: Viewport = { center: [0, 0], zoom: 3, width: 100, height: 100, pixelRatio: 1 };
  const ring: [number, number][] = [[-5, -5], [5, -5], [5, 5], [-5, 5], [-5, -5]];
  const { ctx, pixel } = surface(viewport);
  drawPaths(ctx, frameOf(viewport), [path(ring, { fill: rgba(0, 0, 255), closed: true, width: 1 })]);
  assert.deepEqual(pixel(50, 50), [0, 0, 255, 255]);
  const open = surface(viewport);
  drawPaths(open.ctx, frameOf(viewport), [path(ring.slice(0, 4), { width: 1 })]);
  assert.equal(open.pixel(50, 50)[3], 0);
});

test('a shortest path crosses the antimeridian instead of going round the world', () => {
  const viewport: Viewport = { center: [180, 0], zoom: 2, width: 200, height: 100, pixelRatio: 1 };
  const long = surface(viewport);
  drawPaths(long.ctx, frameOf(viewport), [path([[170, 0], [-170, 0]])]);
  assert.equal(long.pixel(100, 50)[3], 0, 'the long way does not pass the antimeridian');
  const short = surface(viewport);
  drawPaths(short.ctx, frameOf(viewport), [path([[170, 0], [-170, 0]], { shortest: true })]);
  assert.deepEqual(short.pixel(100, 50), [255, 0, 0, 255]);
});

test('the default pin is drawn in the marker colour with its tip on the position for anchor bottom', () => {
  const viewport: Viewport = { center: [0, 0], zoom: 2, width: 100, height: 100, pixelRatio: 1 };
  const { ctx, pixel } = surface(viewport);
  drawMarkers(ctx, frameOf(viewport), [{ icon: null, anchor: 'bottom', scale: 1, markers: [{ lon: 0, lat: 0, color: rgba(0, 200, 0) }] }], new Map());
  assert.deepEqual(pixel(58, 50 - PIN_HEIGHT + 13).slice(0, 3), [0, 200, 0], 'the head is above the tip, beside its white dot');
  assert.deepEqual(pixel(50, 50 - PIN_HEIGHT + 13), [255, 255, 255, 255], 'the white dot');
  assert.ok(pixel(50, 50 + 6)[3]! < 128, 'nothing but the faint shadow below the tip');
  const top = surface(viewport);
  drawMarkers(top.ctx, frameOf(viewport), [{ icon: null, anchor: 'top', scale: 1, markers: [{ lon: 0, lat: 0, color: null }] }], new Map());
  const [r, g, b] = top.pixel(58, 50 + 13);
  assert.deepEqual([r, g, b], [DEFAULT_PIN_COLOR.r, DEFAULT_PIN_COLOR.g, DEFAULT_PIN_COLOR.b], 'anchor top hangs the pin below');
});

test('the attribution box sits in the chosen corner, and false draws nothing', () => {
  registerFonts(FontCatalog.default());
  const viewport: Viewport = { center: [0, 0], zoom: 2, width: 200, height: 100, pixelRatio: 1 };
  const corners = { bottomright: [198, 98], bottomleft: [1, 98], topleft: [1, 1], topright: [198, 1] } as const;
  for (const [corner, [x, y]] of Object.entries(corners)) {
    const { ctx, pixel } = surface(viewport);
    drawAttribution(ctx, frameOf(viewport), '© Natural Earth', corner as keyof typeof corners);
    assert.ok(pixel(x, y)[3]! > 0, corner);
    assert.equal(pixel(200 - x, 100 - y)[3], 0, `${corner}: the opposite corner is empty`);
  }
  const none = surface(viewport);
  drawAttribution(none.ctx, frameOf(viewport), '© Natural Earth', 'false');
  assert.equal(none.pixel(198, 98)[3], 0);
});
