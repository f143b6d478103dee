import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import type { SpriteImage } from '../../../src/render/sprite/sprite.js';
import { iconQuads } from '../../../src/render/symbol/icon-quads.js';

/** The test sprite's "label-box": 24 × 16, stretchable in x 5-19 and y 5-11, content 4,4-20,12. */
const box: SpriteImage = {
  id: 'label-box', image: createCanvas(24, 16), width: 24, height: 16, pixelRatio: 1, sdf: false,
  stretchX: [[5, 19]], stretchY: [[5, 11]], content: [4, 4, 20, 12],
};

test('a plain icon is one piece: the whole image plus its atlas padding over the icon box', () => {
  const plain: SpriteImage = { id: 'plain', image: createCanvas(24, 16), width: 24, height: 16, pixelRatio: 1, sdf: false };
  const [quad, ...rest] = iconQuads({ left: -12, right: 12, top: -8, bottom: 8 }, plain, false, 2);
  assert.equal(rest.length, 0);
  assert.deepEqual(quad, { sx: -1, sy: -1, sw: 26, sh: 18, x1: -26, y1: -18, x2: 26, y2: 18 });
});

test('a text-fitted stretchable icon keeps its fixed edges and stretches the rest, its content over the box', () => {
  // The text's box (with padding) is 60 × 20; the content area goes over it, the margins outside.
  const quads = iconQuads({ left: -30, right: 30, top: -10, bottom: 10 }, box, true, 1);
  assert.equal(quads.length, 9);
  const row = quads.filter((q) => q.sy === -1).sort((a, b) => a.x1 - b.x1);
  assert.deepEqual(row.map((q) => [q.x1, q.x2]), [[-35, -29], [-29, 29], [29, 35]]);
  assert.deepEqual(row.map((q) => [q.sx, q.sx + q.sw]), [[-1, 5], [5, 19], [19, 25]]);
  const column = quads.filter((q) => q.sx === -1).sort((a, b) => a.y1 - b.y1);
  assert.deepEqual(column.map((q) => [q.y1, q.y2]), [[-15, -9], [-9, 9], [9, 15]]);
});

test('fixed edges keep their pixels at any icon size; stretched parts scale', () => {
  const quads = iconQuads({ left: -30, right: 30, top: -10, bottom: 10 }, box, true, 2);
  const row = quads.filter((q) => q.sy === -1).sort((a, b) => a.x1 - b.x1);
  assert.deepEqual(row.map((q) => q.x2 - q.x1), [6, 118, 6]);
});
