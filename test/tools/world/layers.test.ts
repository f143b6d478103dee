import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Polygon } from 'geojson';
import { gshhgBands, lakeMinzoom, naturalEarthBands, riverMinzoom } from '../../../src/tools/world/layers.js';

function square(degrees: number, lat = 0): Polygon {
  return { type: 'Polygon', coordinates: [[[0, lat], [degrees, lat], [degrees, lat + degrees], [0, lat + degrees], [0, lat]]] };
}

test('larger lakes are drawn from lower zooms, and one of a few pixels at zoom 0 from zoom 0', () => {
  assert.equal(lakeMinzoom(square(10)), 0);
  const zooms = [5, 1, 0.2, 0.05, 0.005].map((size) => lakeMinzoom(square(size)));
  assert.deepEqual(zooms, [...zooms].sort((a, b) => a - b));
  assert.ok(zooms.at(-1)! > 8);
  // Mercator enlarges a lake in the north: it shows sooner than one of the same degrees at the equator.
  assert.ok(lakeMinzoom(square(0.2, 65)) < lakeMinzoom(square(0.2)));
});

test('major rivers show first; minor ones, intermittent ones and canals later; irrigation never', () => {
  assert.equal(riverMinzoom({ class: 'river', rank: 1 }), 3);
  assert.ok(riverMinzoom({ class: 'river', rank: 4 })! > riverMinzoom({ class: 'river', rank: 2 })!);
  assert.ok(riverMinzoom({ class: 'intermittent', rank: 1 })! > 3);
  assert.equal(riverMinzoom({ class: 'canal', rank: 3 }), null);
});

test('the data bands cover zooms 0 to 8 without gap or overlap', () => {
  for (const bands of [naturalEarthBands, gshhgBands]) {
    assert.equal(bands[0]!.minzoom, 0);
    assert.equal(bands.at(-1)!.maxzoom, 8);
    bands.slice(1).forEach((band, i) => assert.equal(band.minzoom, bands[i]!.maxzoom + 1));
  }
});
