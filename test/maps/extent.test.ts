import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundsOfSources, centerWithin, fittedCenter, mapExtent } from '../../src/maps/extent.js';

const WORLD = [-180, -85.0511287798, 180, 85.0511287798] as const;
const OAKLAND = [-122.3143312, 37.8040142, -122.290784, 37.8175832] as const;
const near = (actual: readonly number[], expected: readonly number[]) =>
  assert.ok(actual.every((value, i) => Math.abs(value - expected[i]!) < 1e-9), `${actual} against ${expected}`);

test('a map’s bounds are those of its sources that do not cover the world, else the world', () => {
  // A street map: its extract, not the world map drawn under it (whose edges archives round to 85.05 or 85).
  assert.deepEqual(boundsOfSources([WORLD, OAKLAND]), [...OAKLAND]);
  assert.deepEqual(boundsOfSources([[-180, -85.05, 180, 85.05], OAKLAND]), [...OAKLAND]);
  assert.deepEqual(boundsOfSources([[-180, -90, 180, 90], OAKLAND]), [...OAKLAND]);
  // Two regional sources: the box around both.
  assert.deepEqual(boundsOfSources([OAKLAND, [10.068, 48.135, 10.071, 48.137]]), [-122.3143312, 37.8040142, 10.071, 48.137]);
  // Only the world, or nothing: the world.
  const world = boundsOfSources([WORLD]);
  assert.ok(world[0] === -180 && world[2] === 180 && world[1] < -85 && world[3] > 85, String(world));
  assert.deepEqual(boundsOfSources([]), world);
});

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

test('a definition’s bounds and centre win over what the sources say; the centre’s zoom is brought into the map’s zooms', () => {
  assert.deepEqual(mapExtent({ bounds: [5, 45, 11, 48] }, [OAKLAND], 0, 22).bounds, [5, 45, 11, 48]);
  assert.deepEqual(mapExtent({ center: [8, 46, 20] }, [OAKLAND], 0, 16), { bounds: [...OAKLAND], center: [8, 46, 16] });
  const fitted = mapExtent({}, [WORLD, OAKLAND], 0, 22);
  assert.deepEqual(fitted.bounds, [...OAKLAND]);
  near(fitted.center, fittedCenter([...OAKLAND], 0, 22));
});

test('a source’s centre is the map’s, moved into the source’s bounds and zooms', () => {
  assert.deepEqual(centerWithin([-122.3, 37.81, 15], WORLD, 0, 8), [-122.3, 37.81, 8]);
  assert.deepEqual(centerWithin([-122.3, 37.81, 15], [10, 48, 11, 49], 10, 16), [10, 48, 15]);
  assert.deepEqual(centerWithin([-122.3, 37.81, 2], [10, 48, 11, 49], 10, 16), [10, 48, 10]);
});
