/**
 * canvas-pool: a canvas given back is the one handed out next for its size, cleared; other sizes
 * get a new one; past the byte budget the canvas given back longest ago is dropped.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { releaseCanvas, takeCanvas } from '../../../src/render/paint/canvas-pool.js';

test('a canvas given back is handed out again for its size, cleared and in its initial state', () => {
  const canvas = takeCanvas(31, 7);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'red';
  ctx.fillRect(0, 0, 31, 7);
  ctx.translate(5, 5);
  releaseCanvas(canvas);
  const again = takeCanvas(31, 7);
  assert.equal(again, canvas);
  const data = again.getContext('2d').getImageData(0, 0, 31, 7).data;
  assert.ok(data.every((value) => value === 0), 'the pixels were cleared');
  assert.equal(again.getContext('2d').getTransform().e, 0, 'the transform was reset');
  assert.notEqual(takeCanvas(31, 7), canvas, 'handed out once only');
});

test('a canvas of another size is a new one', () => {
  const canvas = takeCanvas(33, 9);
  releaseCanvas(canvas);
  assert.notEqual(takeCanvas(9, 33), canvas);
  assert.equal(takeCanvas(33, 9), canvas);
});

test('giving a canvas back twice keeps it once', () => {
  const canvas = takeCanvas(35, 11);
  releaseCanvas(canvas);
  releaseCanvas(canvas);
  assert.equal(takeCanvas(35, 11), canvas);
  assert.notEqual(takeCanvas(35, 11), canvas);
});

test('past the budget (64 MiB) the canvas given back longest ago is dropped first', () => {
  const older = takeCanvas(37, 13);
  const big = takeCanvas(4096, 4096);
  const newer = takeCanvas(39, 15);
  releaseCanvas(older);
  releaseCanvas(big);
  // 64 MiB and the small canvas given back before: over the budget, the older small one goes.
  assert.notEqual(takeCanvas(37, 13), older);
  releaseCanvas(newer);
  // Over again: now the big one is the oldest.
  assert.notEqual(takeCanvas(4096, 4096), big);
  assert.equal(takeCanvas(39, 15), newer);
});
