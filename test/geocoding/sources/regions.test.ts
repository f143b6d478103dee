/**
 * First-level regions (npm iso3166-2-db, placed by the GeoNames places in them): found by their
 * names in several languages, with a centre and box inside the region's known extent, and named
 * in the context and place name of the places in them. Expected extents and codes are common
 * knowledge (ISO 3166-2 codes, the regions' extreme longitudes and latitudes), not the data.
 */

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forward } from '../../../src/geocoding/forward.js';
import { queryWords } from '../../../src/geocoding/parameters.js';
import { buildPlaceIndex, type PlaceIndex } from '../../../src/geocoding/place-index.js';
import { reverse } from '../../../src/geocoding/reverse.js';
import { searchOptions } from '../search-options.js';

let index: PlaceIndex;
before(() => {
  index = buildPlaceIndex();
});

const options = searchOptions;

/** [west, south, east, north] of each region, from its extreme points. */
const KNOWN: Record<string, { box: [number, number, number, number]; country: string; code: string; en: string }> = {
  Bavaria: { box: [8.98, 47.27, 13.84, 50.56], country: 'de', code: 'DE-BY', en: 'Bavaria' },
  California: { box: [-124.41, 32.53, -114.13, 42.01], country: 'us', code: 'US-CA', en: 'California' },
  Ontario: { box: [-95.16, 41.68, -74.34, 56.86], country: 'ca', code: 'CA-ON', en: 'Ontario' },
  'Île-de-France': { box: [1.45, 48.12, 3.56, 49.24], country: 'fr', code: 'FR-IDF', en: 'Île-de-France' },
};
const within = (point: readonly number[], [w, s, e, n]: readonly number[], margin = 0) => point[0]! >= w - margin && point[0]! <= e + margin && point[1]! >= s - margin && point[1]! <= n + margin;

test('a region by its name, in English, German or without accents: first, with a centre and a box within it', () => {
  const queries: [string, string, string[]][] = [
    ['Bavaria', 'Bavaria', []],
    ['Bayern', 'Bavaria', []],
    ['bayern', 'Bavaria', ['de']],
    ['California', 'California', []],
    ['Kalifornien', 'California', []],
    ['Ontario', 'Ontario', []],
    ['Île-de-France', 'Île-de-France', []],
    ['Ile de France', 'Île-de-France', []],
  ];
  for (const [query, region, languages] of queries) {
    const known = KNOWN[region]!;
    const first = forward(index, queryWords(query), options({ languages })).features[0]!;
    assert.deepEqual(first.place_type, ['region'], query);
    assert.equal(first.text, languages.includes('de') ? 'Bayern' : known.en, query);
    assert.equal(first.properties.country_code, known.country, query);
    assert.equal(first.properties.ref, `iso:${known.code}`, query);
    assert.equal(first.properties.kind, 'admin_area');
    assert.ok(within(first.center, known.box), `${query}: centre ${first.center} in ${known.box}`);
    // The box is that of the region's places: inside its extent, and spanning most of it.
    const box = first.bbox!;
    assert.ok(within([box[0], box[1]], known.box, 0.3) && within([box[2], box[3]], known.box, 0.3), `${query}: box ${box} in ${known.box}`);
    const [w, s, e, n] = known.box;
    assert.ok(box[2] - box[0] > 0.6 * (e - w) && box[3] - box[1] > 0.5 * (n - s), `${query}: box ${box} spans ${known.box}`);
    assert.deepEqual(first.context.map((item) => item.id), [`country.${known.country.toUpperCase()}`]);
  }
});

test('types=region finds regions only; a city named like a region is still the city', () => {
  const regions = forward(index, queryWords('york'), options({ kinds: new Set(['region']) }));
  assert.ok(regions.features.length > 0 && regions.features.every((f) => f.place_type[0] === 'region'));
  assert.equal(regions.features[0]!.properties.ref, 'iso:US-NY');
  assert.equal(forward(index, queryWords('Berlin'), options()).features[0]!.place_type[0], 'municipality');
  assert.equal(forward(index, queryWords('New York'), options()).features[0]!.text, 'New York City');
});

test('a place names its region in its context and place name, in the requested language', () => {
  const munich = forward(index, queryWords('Munich'), options()).features[0]!;
  assert.equal(munich.place_name, 'Munich, Bavaria, Germany');
  assert.deepEqual(
    munich.context.map((item) => [item.id.split('.')[0], item.text, item.ref]),
    [
      ['region', 'Bavaria', 'iso:DE-BY'],
      ['country', 'Germany', 'iso:DE'],
    ],
  );
  assert.equal(forward(index, queryWords('Munich'), options({ languages: ['de'] })).features[0]!.place_name, 'Munich, Bayern, Deutschland');
  assert.equal(forward(index, queryWords('Los Angeles'), options()).features[0]!.place_name, 'Los Angeles, California, United States');
  // A region named after its place is said once: Berlin, Zürich (Canton of Zurich), but kept in the context.
  const berlin = forward(index, queryWords('Berlin'), options()).features[0]!;
  assert.equal(berlin.place_name, 'Berlin, Germany');
  assert.deepEqual(berlin.context.map((item) => item.ref), ['iso:DE-BE', 'iso:DE']);
  assert.equal(forward(index, queryWords('Zurich'), options()).features[0]!.place_name, 'Zürich, Switzerland');
});

test('reverse: the place, its region, the country', () => {
  // Marienplatz, Munich.
  const answer = reverse(index, 11.5755, 48.1374, options());
  assert.deepEqual(
    answer.features.map((f) => [f.place_type[0], f.text]),
    [
      ['municipality', 'Munich'],
      ['region', 'Bavaria'],
      ['country', 'Germany'],
    ],
  );
  // The Golden Gate Bridge: California.
  const bridge = reverse(index, -122.4783, 37.8199, options({ kinds: new Set(['region']) }));
  assert.deepEqual(bridge.features.map((f) => f.properties.ref), ['iso:US-CA']);
});
