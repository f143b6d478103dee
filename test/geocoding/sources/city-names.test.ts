/**
 * City names in other languages (CLDR's exemplar cities): found, and shown in the requested
 * language. Expected positions are the cities' centres from common knowledge, not GeoNames.
 */

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { distanceKm, forward } from '../../../src/geocoding/forward.js';
import { queryWords } from '../../../src/geocoding/parameters.js';
import { buildPlaceIndex, type PlaceIndex } from '../../../src/geocoding/place-index.js';
import { searchOptions } from '../search-options.js';

let index: PlaceIndex;
before(() => {
  index = buildPlaceIndex();
});

const options = searchOptions;

const VIENNA: [number, number] = [16.3738, 48.2082];
const MOSCOW: [number, number] = [37.6173, 55.7558];
const SHANGHAI: [number, number] = [121.4737, 31.2304];
const TOKYO: [number, number] = [139.6917, 35.6895];
const BEIJING: [number, number] = [116.4074, 39.9042];

test('a city by its name in another language or script is the city', () => {
  const cases: [string, string, [number, number]][] = [
    ['Wien', 'at', VIENNA],
    ['Vídeň', 'at', VIENNA],
    ['Moskva', 'ru', MOSCOW],
    ['Москва', 'ru', MOSCOW],
    ['Moskau', 'ru', MOSCOW],
    ['上海', 'cn', SHANGHAI],
    ['東京', 'jp', TOKYO],
  ];
  for (const [query, country, at] of cases) {
    const first = forward(index, queryWords(query), options()).features[0]!;
    assert.equal(first.place_type[0], 'municipality', query);
    assert.equal(first.properties.country_code, country, query);
    assert.ok(distanceKm(first.center[0], first.center[1], at[0], at[1]) < 25, `${query}: ${first.place_name} at ${first.center}`);
  }
});

test('a city that is its own region (Beijing, Vienna) has the region\'s names: 北京 is Beijing, Peking in German', () => {
  // No time zone is named after Beijing: its names come from the region Beijing (北京市).
  for (const query of ['北京', '北京市', 'Peking', 'Pékin']) {
    const first = forward(index, queryWords(query), options()).features[0]!;
    assert.equal(first.place_type[0], 'municipality', query);
    assert.ok(distanceKm(first.center[0], first.center[1], BEIJING[0], BEIJING[1]) < 25, `${query}: ${first.place_name} at ${first.center}`);
  }
  assert.equal(forward(index, queryWords('beijing'), options({ languages: ['de'] })).features[0]!.text, 'Peking');
});

test('the name is shown in the requested language, whatever the language typed', () => {
  const vienna = forward(index, queryWords('vienna'), options({ languages: ['de'] })).features[0]!;
  assert.equal(vienna.text, 'Wien');
  assert.equal(vienna.place_name, 'Wien, Österreich');
  assert.equal(forward(index, queryWords('moscow'), options({ languages: ['ru'] })).features[0]!.text, 'Москва');
  assert.equal(forward(index, queryWords('Wien'), options({ languages: ['fr'] })).features[0]!.text, 'Vienne');
  // Without a language, GeoNames' name; the name typed is the matching text.
  const plain = forward(index, queryWords('Wien'), options()).features[0]!;
  assert.equal(plain.text, 'Vienna');
  assert.equal(plain.matching_text, 'Wien');
});
