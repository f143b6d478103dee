import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bboxOf, readCountries } from '../../src/geocoding/countries.js';

const square = (west: number, south: number, east: number, north: number) => [[[west, south], [east, south], [east, north], [west, north], [west, south]]];

test('bboxOf: the smallest box, across the antimeridian when that is smaller', () => {
  assert.deepEqual(bboxOf([square(5, 45, 10, 48)]), [5, 45, 10, 48]);
  // Two islands either side of 180°.
  assert.deepEqual(bboxOf([square(177, -19, 179.9, -16), square(-180, -17, -179, -16)]), [177, -19, -179, -16]);
  // A ring that runs past 180° in continuous longitudes.
  assert.deepEqual(bboxOf([square(170, 60, 190, 70)]), [170, 60, -170, 70]);
  // Parts far apart but nearer the other way round: the box is not across the antimeridian.
  assert.deepEqual(bboxOf([square(-10, 0, 0, 10), square(100, 0, 110, 10)]), [-10, 0, 110, 10]);
});

test('countries: names in many languages, the shown name, centre and box', () => {
  const countries = readCountries();
  assert.ok(countries.length >= 249, `${countries.length}`);
  const germany = countries.find((c) => c.code === 'DE')!;
  const names = germany.names.map((n) => n.text);
  for (const name of ['Germany', 'Deutschland', 'Allemagne', 'Alemania', 'ドイツ', 'Германия']) assert.ok(names.includes(name), name);
  assert.equal(germany.display.en, 'Germany');
  assert.equal(germany.display.de, 'Deutschland');
  // Germany spans about 5.87..15.04°E, 47.27..55.06°N (Natural Earth 1:50m is simplified).
  assert.ok(germany.bbox!.every((v, i) => Math.abs(v - [5.87, 47.27, 15.04, 55.06][i]!) < 0.2), `${germany.bbox}`);
  const [lon, lat] = germany.center!;
  assert.ok(lon > 8 && lon < 13 && lat > 49 && lat < 53, `${germany.center}`);
  assert.equal(countries.find((c) => c.code === 'GB')!.display.en, 'United Kingdom');
  assert.equal(countries.find((c) => c.code === 'CD')!.display.en, 'Democratic Republic of the Congo');
  assert.equal(countries.find((c) => c.code === 'XK')!.polygons.length > 0, true, 'Kosovo has its Natural Earth shape');
});
