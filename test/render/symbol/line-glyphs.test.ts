import assert from 'node:assert/strict';
import { test } from 'node:test';
import { placeGlyphsAlongLine } from '../../../src/render/symbol/line-glyphs.js';

const eastward = [{ x: 0, y: 0 }, { x: 100, y: 0 }];
const westward = [{ x: 100, y: 0 }, { x: 0, y: 0 }];
const offsets = [-20, 0, 20];

test('glyphs walk along the line from the anchor by their offsets, turned to the segment', () => {
  const placed = placeGlyphsAlongLine(eastward, { x: 50, y: 0 }, 0, offsets, [0, 0], true)!;
  assert.deepEqual(placed.map((g) => [g.x, g.y]), [[30, 0], [50, 0], [70, 0]]);
  for (const glyph of placed) assert.ok(Math.abs(Math.cos(glyph.angle) - 1) < 1e-9, `angle ${glyph.angle}`);
});

test('keep-upright flips a label on a line drawn right to left so that it reads left to right', () => {
  const upright = placeGlyphsAlongLine(westward, { x: 50, y: 0 }, 0, offsets, [0, 0], true)!;
  assert.deepEqual(upright.map((g) => Math.round(g.x)), [30, 50, 70]);
  for (const glyph of upright) assert.ok(Math.abs(Math.cos(glyph.angle) - 1) < 1e-9, `angle ${glyph.angle}`);
});

test('without keep-upright a right-to-left line keeps its glyphs upside down', () => {
  const upsideDown = placeGlyphsAlongLine(westward, { x: 50, y: 0 }, 0, offsets, [0, 0], false)!;
  assert.deepEqual(upsideDown.map((g) => Math.round(g.x)), [70, 50, 30]);
  for (const glyph of upsideDown) assert.ok(Math.abs(Math.cos(glyph.angle) + 1) < 1e-9, `angle ${glyph.angle}`);
});

test('glyphs follow the line round a corner', () => {
  const bend = [{ x: 0, y: 0 }, { x: 50, y: 0 }, { x: 50, y: 50 }];
  const placed = placeGlyphsAlongLine(bend, { x: 40, y: 0 }, 0, [0, 20], [0, 0], false)!;
  assert.deepEqual([placed[1]!.x, placed[1]!.y], [50, 10]);
  assert.ok(Math.abs(placed[1]!.angle - Math.PI / 2) < 1e-9);
});

test('a label that runs off the end of its line is not placed', () => {
  assert.equal(placeGlyphsAlongLine(eastward, { x: 90, y: 0 }, 0, offsets, [0, 0], false), null);
});

test('text-offset across the line moves the glyphs to the side of the line', () => {
  const placed = placeGlyphsAlongLine(eastward, { x: 50, y: 0 }, 0, [0], [0, 8], false)!;
  assert.deepEqual([placed[0]!.x, placed[0]!.y], [50, 8]);
});
