import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundsOfSources, centerWithin, mapExtent } from '../../src/maps/extent.js';
import { fittedCenter } from '../../src/render/view/fit.js';

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
