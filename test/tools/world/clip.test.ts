import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { clipFeature, clipLine, clipRing, shiftFeature, type LonLatBox } from '../../../src/tools/world/clip.js';

const box: LonLatBox = [0, 0, 10, 10];

test('a ring across the box edge is cut along it and stays closed', () => {
  const ring = clipRing([[-5, 2], [5, 2], [5, 8], [-5, 8], [-5, 2]], box);
  assert.deepEqual(ring, [[0, 2], [5, 2], [5, 8], [0, 8], [0, 2]]);
  assert.equal(clipRing([[20, 20], [30, 20], [30, 30], [20, 20]], box), null);
});

test('a line that leaves and re-enters the box becomes two pieces', () => {
  const pieces = clipLine([[1, 1], [15, 1], [15, 5], [5, 5]], box);
  assert.deepEqual(pieces, [[[1, 1], [10, 1]], [[10, 5], [5, 5]]]);
});

test('what the clipping keeps lies in the box, and a line inside it is kept whole', () => {
  const point = fc.tuple(fc.double({ min: -20, max: 30, noNaN: true }), fc.double({ min: -20, max: 30, noNaN: true }));
  fc.assert(
    fc.property(fc.array(point, { minLength: 2, maxLength: 30 }), (line) => {
      for (const piece of clipLine(line, box)) {
        for (const [x, y] of piece) assert.ok(x! >= -1e-9 && x! <= 10 + 1e-9 && y! >= -1e-9 && y! <= 10 + 1e-9);
      }
      const ring = clipRing([...line, line[0]!], box);
      for (const [x, y] of ring ?? []) assert.ok(x! >= -1e-9 && x! <= 10 + 1e-9 && y! >= -1e-9 && y! <= 10 + 1e-9);
    }),
  );
  const inside = [[1, 1], [2, 3], [9, 9]];
  assert.deepEqual(clipLine(inside, box), [inside]);
});

test('clipping keeps properties, and shifting moves longitudes only', () => {
  const feature = { type: 'Feature' as const, properties: { name: 'x' }, geometry: { type: 'LineString' as const, coordinates: [[-5, 5], [5, 5]] } };
  assert.deepEqual(clipFeature(feature, box), { type: 'Feature', properties: { name: 'x' }, geometry: { type: 'LineString', coordinates: [[0, 5], [5, 5]] } });
  assert.deepEqual(shiftFeature(feature, 360).geometry, { type: 'LineString', coordinates: [[355, 5], [365, 5]] });
});
