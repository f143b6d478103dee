import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fittedCenter } from '../../../src/render/view/fit.js';

const WORLD = [-180, -85.0511287798, 180, 85.0511287798] as const;
const near = (actual: readonly number[], expected: readonly number[]) =>
  assert.ok(actual.every((value, i) => Math.abs(value - expected[i]!) < 1e-9), `${actual} against ${expected}`);

test('a map opens on the middle of its bounds at the deepest whole zoom that shows them in 1024x768, within its zooms', () => {
  // 80° of longitude is 2/9 of the world: 512 × 2^z × 2/9 ≤ 1024 up to 2^z = 9, so zoom 3.
  near(fittedCenter([-40, -1, 40, 1], 0, 22), [0, 0, 3]);
  // 2° of latitude about the equator is 2/360 of the world's height in Mercator, near enough:
  // 512 × 2^z × 2/360 ≤ 768 up to 2^z = 270, so zoom 8; the width (1°) allows more.
  near(fittedCenter([0, -1, 1, 1], 0, 22), [0.5, 0, 8]);
  // The middle in Mercator, not in degrees: north of the middle latitude.
  const [, lat] = fittedCenter([0, 0, 1, 60], 0, 22);
  assert.ok(lat > 30 && lat < 60, String(lat));
  // The world, at zoom 0; within the zooms a map allows.
  near(fittedCenter([...WORLD], 0, 22), [0, 0, 0]);
  assert.equal(fittedCenter([...WORLD], 2, 22)[2], 2);
  assert.equal(fittedCenter([10, 10, 10.00001, 10.00001], 0, 14)[2], 14);
  // Bounds beyond the Mercator square (an archive's header may say the poles) are fitted within it.
  near(fittedCenter([-180, -90, 180, 90], 0, 22), [0, 0, 0]);
});
