import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedEdits, editDistance } from '../../src/geocoding/fuzzy.js';
import { trigramsOf } from '../../src/geocoding/dictionary.js';

test('edit distance counts a missing, added or changed letter and a swap of two as one edit', () => {
  // Values worked out by hand.
  const cases: [string, string, number][] = [
    ['zurich', 'zurich', 0],
    ['zurich', 'zruich', 1], // swap
    ['zurich', 'zuerich', 1], // added
    ['berlin', 'berln', 1], // missing
    ['paris', 'parus', 1], // changed
    ['amsterdam', 'amsterdm', 1],
    ['barcelona', 'barcleona', 1],
    ['stockholm', 'stokholm', 1],
    ['washington', 'wahsingtno', 2],
    ['kitten', 'sitting', 3],
  ];
  for (const [a, b, distance] of cases) {
    assert.equal(editDistance(a, b, 3), distance, `${a} ${b}`);
    assert.equal(editDistance(b, a, 3), distance, `${b} ${a}`);
  }
  assert.equal(editDistance('kitten', 'sitting', 1), 2, 'over the bound: bound + 1');
});

test('short words allow no typo, long ones two', () => {
  assert.deepEqual([3, 4, 7, 8, 12].map(allowedEdits), [0, 1, 1, 2, 2]);
});

test('trigrams are padded so first and last letters count', () => {
  assert.deepEqual(trigramsOf('zur'), [' zu', 'zur', 'ur ']);
  assert.deepEqual(trigramsOf('東京'), [' 東京', '東京 '].map((t) => t));
});
