import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Polygon } from 'geojson';
import { countryLabelPoint, marineFeatures, placeFeatures, placeMinzoom, type City } from '../../../src/tools/world/labels.js';
import { minzoomKey } from '../../../src/tools/world/layers.js';

function city(name: string, population: number, featureCode = 'PPL', at: [number, number] = [0, 0]): City {
  return { name, country: 'XX', featureCode, population, loc: { coordinates: at } };
}

test('large cities and capitals appear at lower zooms; small places, districts and ruins never', () => {
  assert.equal(placeMinzoom(city('Megacity', 9_000_000)), 3);
  assert.equal(placeMinzoom(city('Capital', 3_000_000, 'PPLC')), 2);
  assert.equal(placeMinzoom(city('Small capital', 20_000, 'PPLC')), 5);
  const zooms = [4_000_000, 1_500_000, 700_000, 300_000, 60_000].map((population) => placeMinzoom(city('c', population))!);
  assert.deepEqual(zooms, [...zooms].sort((a, b) => a - b));
  assert.equal(placeMinzoom(city('Village', 5_000)), null);
  assert.equal(placeMinzoom(city('Borough', 2_500_000, 'PPLX')), null);
  assert.equal(placeMinzoom(city('Ruin', 2_500_000, 'PPLQ')), null);
});

test('places are ranked by population and tagged with their first zoom, up to the archive maxzoom', () => {
  const features = placeFeatures([city('B', 600_000, 'PPLA'), city('A', 6_000_000), city('C', 60_000, 'PPL', [10, 20])], 7);
  assert.deepEqual(features.map((f) => f.properties.name), ['A', 'B']);
  assert.deepEqual(features.map((f) => f.properties.rank), [1, 2]);
  assert.equal(features[0]!.properties[minzoomKey], 3);
  assert.equal(features[1]!.properties.class, 'city');
  assert.equal(placeFeatures([city('C', 60_000, 'PPL', [10, 20])], 8)[0]!.geometry.coordinates.join(), '10,20');
});

test("a country's name sits inside its largest part, and a larger part shows it sooner", () => {
  // An L-shaped country: the centroid of its bounding box is outside it; the label point is not.
  const l: Polygon = { type: 'Polygon', coordinates: [[[0, 0], [20, 0], [20, 4], [4, 4], [4, 20], [0, 20], [0, 0]]] };
  const { at } = countryLabelPoint(l);
  assert.ok(at[0] > 0 && at[0] < 20 && at[1] > 0 && at[1] < 20);
  assert.ok(at[0] < 4 || at[1] < 4, `label at ${at.join()} falls in the L`);
  const islands = { type: 'MultiPolygon' as const, coordinates: [[[[50, 0], [51, 0], [51, 1], [50, 1], [50, 0]]], l.coordinates] };
  assert.ok(countryLabelPoint(islands).at[0] < 20, 'the largest part carries the name');
  const small: Polygon = { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]] };
  assert.ok(countryLabelPoint(small).minzoom > countryLabelPoint(l).minzoom);
});

test('oceans come before seas, and nothing beyond the archive maxzoom is kept', () => {
  const all = marineFeatures(8);
  const ocean = all.find((f) => f.properties.name === 'Indian Ocean')!;
  const sea = all.find((f) => f.properties.name === 'Baltic Sea')!;
  assert.ok((ocean.properties[minzoomKey] as number) < (sea.properties[minzoomKey] as number));
  assert.ok(marineFeatures(1).every((f) => f.properties.rank === 1));
  assert.ok(marineFeatures(1).length < all.length);
});
