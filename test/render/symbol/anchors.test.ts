import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Point } from '../../../src/render/symbol/anchor.js';
import { centerAnchor, lineAnchors, type LabelExtent } from '../../../src/render/symbol/anchors.js';
import { checkMaxAngle } from '../../../src/render/symbol/check-max-angle.js';

// MapLibre's get_anchors tests (with its glyph size of 24 rather than the tests' 0.1): a 2-unit text and a
// 1-unit icon along vertical lines.
const TILE_EXTENT = 4096;
const extent: LabelExtent = { textLength: 2, iconLength: 1, boxScale: 1 };
const pts = (...xy: [number, number][]): Point[] => xy.map(([x, y]) => ({ x, y }));
const fromOne = Array.from({ length: 10 }, (_, i) => ({ x: 1, y: i + 1 }));
const fromEdge = Array.from({ length: 10 }, (_, i) => ({ x: 1, y: i }));
const down = Math.PI / 2;

test('anchors are placed every symbol-spacing along a line, the first half a label plus two ems in', () => {
  assert.deepEqual(lineAnchors(fromOne, 3, Math.PI, extent, 1, TILE_EXTENT), [
    { x: 1, y: 2, angle: down, segment: 1 }, { x: 1, y: 5, angle: down, segment: 4 }, { x: 1, y: 8, angle: down, segment: 7 },
  ]);
});

test('a spacing too small for the label grows to the label plus a quarter spacing', () => {
  // Spacing 2 < label 2 + 2/4 becomes 2.5; the first anchor is (1 + 2 * 24) % 2.5 = 1.5 along (y 2.5, rounded up).
  assert.deepEqual(lineAnchors(fromOne, 2, Math.PI, extent, 1, TILE_EXTENT), [
    { x: 1, y: 3, angle: down, segment: 1 }, { x: 1, y: 5, angle: down, segment: 4 }, { x: 1, y: 8, angle: down, segment: 6 },
  ]);
});

test('a line continued from the neighbouring tile starts half a spacing in', () => {
  assert.deepEqual(lineAnchors(fromEdge, 3, Math.PI, extent, 1, TILE_EXTENT), [
    { x: 1, y: 2, angle: down, segment: 1 }, { x: 1, y: 5, angle: down, segment: 4 }, { x: 1, y: 8, angle: down, segment: 7 },
  ]);
  assert.deepEqual(lineAnchors(fromEdge, 2, Math.PI, extent, 1, TILE_EXTENT), [
    { x: 1, y: 1, angle: down, segment: 1 }, { x: 1, y: 4, angle: down, segment: 3 }, { x: 1, y: 6, angle: down, segment: 6 },
  ]);
});

test('an overscaled tile keeps every anchor of its parent', () => {
  const parent = lineAnchors(fromOne, 3, Math.PI, extent, 1, TILE_EXTENT);
  const child = lineAnchors(fromOne, 1.5, Math.PI, { ...extent, boxScale: 0.5 }, 2, TILE_EXTENT);
  for (const anchor of parent) assert.ok(child.some((c) => c.x === anchor.x && c.y === anchor.y), `${anchor.x},${anchor.y}`);
});

test('a short line that fits no spaced anchor gets one at its middle', () => {
  assert.deepEqual(lineAnchors(pts([1, 1], [1, 3.1]), 2, Math.PI, extent, 1, TILE_EXTENT), [{ x: 1, y: 2, angle: down, segment: 0 }]);
});

test('line-center anchors the label at the middle of the line, unless it bends too much there', () => {
  assert.deepEqual(centerAnchor(pts([1, 1], [1, 3.1], [3, 6], [4, 7]), Math.PI, extent), { x: 2, y: 4, angle: 0.9670469933974603, segment: 1 });
  assert.equal(centerAnchor(pts([1, 1], [1, 3], [3, 3]), Math.PI / 4, extent), null);
});

test('anchors where the label would bend more than text-max-angle are dropped', () => {
  const zigzag = pts([0, 0], [100, 0], [100, 100], [200, 100], [200, 200], [300, 200]);
  const straight = lineAnchors(zigzag, 50, Math.PI, { textLength: 60, iconLength: null, boxScale: 1 }, 1, TILE_EXTENT);
  const strict = lineAnchors(zigzag, 50, Math.PI / 4, { textLength: 60, iconLength: null, boxScale: 1 }, 1, TILE_EXTENT);
  assert.ok(strict.length > 0 && strict.length < straight.length);
  for (const anchor of strict) assert.ok(checkMaxAngle(zigzag, anchor, 60, 3 / 5 * 24, Math.PI / 4));
});

// MapLibre's check_max_angle tests.
test('a gently bending line passes the angle check; no bend at all is allowed at max angle 0', () => {
  const line = pts([0, 0], [20, -1], [40, 1], [60, 0]);
  const anchor = { x: 30, y: 0, angle: 0, segment: 1 };
  assert.equal(checkMaxAngle(line, anchor, 25, 20, Math.PI / 8), true);
  assert.equal(checkMaxAngle(line, anchor, 25, 20, 0), false);
});

test('one sharp corner fails the angle check just below its angle', () => {
  const line = pts([0, 0], [0, 10], [10, 10]);
  const anchor = { x: 0, y: 10, angle: 0, segment: 1 };
  assert.equal(checkMaxAngle(line, anchor, 10, 5, Math.PI / 2), true);
  assert.equal(checkMaxAngle(line, anchor, 10, 5, Math.PI / 2 - 0.01), false);
});

test('small corners add up within the angle window', () => {
  const line = pts([0, 0], [10, 0], [11, 0.1], [12, 0.3], [13, 0.6], [14, 1], [13.9, 10]);
  const anchor = { x: 12, y: 0.3, angle: 0, segment: 3 };
  assert.equal(checkMaxAngle(line, anchor, 10, 5, Math.PI / 2), false);
  assert.equal(checkMaxAngle(line, anchor, 10, 2, Math.PI / 2), true);
});

test('a label that runs past either end of the line fails the check', () => {
  const line = pts([0, 0], [10, 0], [20, 0], [30, 0]);
  assert.equal(checkMaxAngle(line, { x: 5, y: 0, angle: 0, segment: 0 }, 11, 5, Math.PI), false);
  assert.equal(checkMaxAngle(line, { x: 5, y: 0, angle: 0, segment: 0 }, 10, 5, Math.PI), true);
  assert.equal(checkMaxAngle(line, { x: 25, y: 0, angle: 0, segment: 2 }, 11, 5, Math.PI), false);
  assert.equal(checkMaxAngle(line, { x: 25, y: 0, angle: 0, segment: 2 }, 10, 5, Math.PI), true);
});
