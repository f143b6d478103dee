import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CollisionIndex, VIEWPORT_PADDING, type Box } from '../../../src/render/symbol/collision-index.js';

const box = (x1: number, y1: number, x2: number, y2: number): Box => ({ x1, y1, x2, y2 });

test('a box that overlaps a placed box cannot be placed; one beside it can', () => {
  const index = new CollisionIndex(200, 100);
  index.insertBox(box(10, 10, 50, 30), 'never');
  assert.equal(index.placeBox(box(40, 20, 80, 40), 'never'), false);
  assert.equal(index.placeBox(box(51, 20, 80, 40), 'never'), true);
});

test('overlap "always" places over anything; "cooperative" only over what may itself be overlapped', () => {
  const index = new CollisionIndex(200, 100);
  index.insertBox(box(10, 10, 50, 30), 'never');
  index.insertBox(box(100, 10, 140, 30), 'cooperative');
  assert.equal(index.placeBox(box(20, 15, 40, 25), 'always'), true);
  assert.equal(index.placeBox(box(20, 15, 40, 25), 'cooperative'), false);
  assert.equal(index.placeBox(box(110, 15, 130, 25), 'cooperative'), true);
  assert.equal(index.placeBox(box(110, 15, 130, 25), 'never'), false);
});

test('boxes are placeable within the viewport padding around the image, not beyond it', () => {
  const index = new CollisionIndex(200, 100);
  assert.equal(index.placeBox(box(-VIEWPORT_PADDING + 5, 10, -VIEWPORT_PADDING + 20, 20), 'never'), true);
  assert.equal(index.placeBox(box(-VIEWPORT_PADDING - 30, 10, -VIEWPORT_PADDING - 10, 20), 'never'), false);
  assert.equal(index.placeBox(box(10, 100 + VIEWPORT_PADDING + 1, 20, 100 + VIEWPORT_PADDING + 10), 'never'), false);
  // Even "always" needs to be in the grid.
  assert.equal(index.placeBox(box(400, 10, 420, 20), 'always'), false);
});

test('circles collide with boxes and circles by their round shape', () => {
  const index = new CollisionIndex(200, 200);
  index.insertBox(box(0, 0, 10, 10), 'never');
  // The circle's bounding square overlaps the box's corner, the circle does not.
  assert.equal(index.placeCircles([{ x: 17, y: 17, radius: 9 }], 'never'), true);
  assert.equal(index.placeCircles([{ x: 15, y: 15, radius: 9 }], 'never'), false);
  index.insertCircles([{ x: 100, y: 100, radius: 10 }], 'never');
  assert.equal(index.placeCircles([{ x: 115, y: 115, radius: 10 }], 'never'), true);
  assert.equal(index.placeCircles([{ x: 112, y: 112, radius: 10 }], 'never'), false);
  // A box whose corner is inside the circle, then one whose corner is just outside it.
  assert.equal(index.placeBox(box(106, 106, 120, 120), 'never'), false);
  assert.equal(index.placeBox(box(108, 108, 120, 120), 'never'), true);
});

test('a line label of circles needs one circle in the grid and none colliding', () => {
  const index = new CollisionIndex(100, 100);
  assert.equal(index.placeCircles([{ x: -300, y: 50, radius: 5 }], 'never'), false);
  assert.equal(index.placeCircles([{ x: -300, y: 50, radius: 5 }, { x: 10, y: 50, radius: 5 }], 'never'), true);
  index.insertBox(box(40, 40, 60, 60), 'never');
  assert.equal(index.placeCircles([{ x: 10, y: 50, radius: 5 }, { x: 50, y: 50, radius: 5 }], 'never'), false);
});

test('line label circles are spread along the visible part of the path, at most 2.5 radii apart', () => {
  const index = new CollisionIndex(200, 100);
  const circles = index.circlesAlong([{ x: 0, y: 50 }, { x: 100, y: 50 }], 4);
  // 100 px less a quarter radius at each end, in steps of at most 10 px: 11 circles, the first 1 px in.
  assert.equal(circles.length, 11);
  assert.deepEqual([circles[0]!.x, circles[10]!.x], [1, 99]);
  for (const circle of circles) assert.deepEqual([circle.y, circle.radius], [50, 4]);
  // A path running far off the image gets circles only within the viewport padding.
  const clipped = index.circlesAlong([{ x: -1000, y: 50 }, { x: 0, y: 50 }], 4);
  assert.ok(clipped.length > 0 && clipped.every((c) => c.x >= -VIEWPORT_PADDING));
  assert.deepEqual(index.circlesAlong([{ x: -1000, y: 50 }, { x: -500, y: 50 }], 4), []);
});
