import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Point } from '../../../src/render/symbol/anchor.js';
import { mergeLines } from '../../../src/render/symbol/merge-lines.js';

const line = (...xs: number[]): Point[][] => [xs.map((x) => ({ x, y: 0 }))];
const xs = (geometry: readonly (readonly Point[])[] | null) => (geometry ? geometry[0]!.map((p) => p.x) : null);

test('lines with the same text that meet end to start become one, kept by the first', () => {
  const merged = mergeLines([{ text: 'Main', geometry: line(0, 1, 2) }, { text: 'Main', geometry: line(2, 3, 4) }]);
  assert.deepEqual(merged.map(xs), [[0, 1, 2, 3, 4], null]);
});

test('a line joining two others at both ends merges all three', () => {
  const merged = mergeLines([
    { text: 'Main', geometry: line(0, 1) },
    { text: 'Main', geometry: line(2, 3) },
    { text: 'Main', geometry: line(1, 2) },
  ]);
  assert.deepEqual(merged.map(xs), [[0, 1, 2, 3], null, null]);
});

test('a line merges onto the start of a later-met line as well', () => {
  const merged = mergeLines([{ text: 'Main', geometry: line(2, 3) }, { text: 'Main', geometry: line(0, 1, 2) }]);
  assert.deepEqual(merged.map(xs), [[0, 1, 2, 3], null]);
});

test('lines of different text, without text, or meeting end to end are left apart', () => {
  const merged = mergeLines([
    { text: 'Main', geometry: line(0, 1) },
    { text: 'High', geometry: line(1, 2) },
    { text: null, geometry: line(2, 3) },
    { text: null, geometry: line(3, 4) },
    { text: 'Main', geometry: line(5, 1) },
  ]);
  assert.deepEqual(merged.map(xs), [[0, 1], [1, 2], [2, 3], [3, 4], [5, 1]]);
});
