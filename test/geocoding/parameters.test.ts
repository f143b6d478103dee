import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/platform/errors.js';
import { MAX_QUERY_LENGTH, parseLanguages, parseOptions, parsePosition, queryWords } from '../../src/geocoding/parameters.js';

const base = { limit: 5, autocomplete: true, fuzzyMatch: true };
const known = (code: string) => ['CH', 'DE', 'US'].includes(code);

test('a path is a position (reverse) when it is two numbers', () => {
  assert.deepEqual(parsePosition('8.5,47.3'), [8.5, 47.3]);
  assert.deepEqual(parsePosition(' -122.27 , 37.8 '), [-122.27, 37.8]);
  assert.deepEqual(parsePosition('180,-90'), [180, -90]);
  assert.equal(parsePosition('Zurich'), null);
  assert.equal(parsePosition('1,2,3'), null);
  assert.throws(() => parsePosition('180.1,0'), ApiError);
  assert.throws(() => parsePosition('0,90.5'), ApiError);
});

test('query words: folded, and an empty or over-long query is refused', () => {
  assert.deepEqual(queryWords('Zürich, Schweiz'), ['zurich', 'schweiz']);
  assert.throws(() => queryWords(' - '), /Query is empty/);
  assert.throws(() => queryWords('a'.repeat(MAX_QUERY_LENGTH + 1)), /too long/);
  assert.equal(queryWords('a'.repeat(MAX_QUERY_LENGTH)).length, 1);
});

test('languages: ISO 639-1, subtags dropped; Accept-Language when absent', () => {
  assert.deepEqual(parseLanguages('de,en', undefined), ['de', 'en']);
  assert.deepEqual(parseLanguages('pt-BR', undefined), ['pt']);
  assert.deepEqual(parseLanguages('', 'fr'), []);
  assert.deepEqual(parseLanguages(undefined, 'fr-CH, fr;q=0.9, xx;q=0.8, *;q=0.5, en;q=0.7'), ['fr', 'en']);
  assert.throws(() => parseLanguages('xx', undefined), /Unknown language "xx"/);
  assert.throws(() => parseLanguages('deu', undefined), /Unknown language/);
});

test('options: proximity, bbox, country and types', () => {
  const options = parseOptions({ ...base, proximity: '8.5,47.3', bbox: '5,45,10,48', country: 'ch,DE', types: 'country,place' }, undefined, known);
  assert.deepEqual(options.proximity, [8.5, 47.3]);
  assert.deepEqual(options.bbox, [5, 45, 10, 48]);
  assert.deepEqual([...options.countries!], ['CH', 'DE']);
  assert.deepEqual([...options.kinds!].sort(), ['country', 'locality', 'municipality', 'neighbourhood']);
  assert.equal(parseOptions({ ...base, proximity: 'ip' }, undefined, known).proximity, null);
  assert.deepEqual(parseOptions({ ...base, bbox: '170,-20,-170,-10' }, undefined, known).bbox, [170, -20, -170, -10], 'across the antimeridian');
  assert.deepEqual([...parseOptions({ ...base, types: 'postal_code' }, undefined, known).kinds!], [], 'a known type no data has');
  assert.deepEqual([...parseOptions({ ...base, types: 'road,address,poi' }, undefined, known).kinds!], ['street', 'address', 'poi'], 'road is street (MapTiler)');
  for (const bad of [{ proximity: 'a,b' }, { proximity: '1,2,3' }, { bbox: '1,2,3,4,5' }, { bbox: '0,10,5,0' }, { bbox: '-181,0,0,1' }, { country: 'fr' }, { country: 'c1' }, { types: 'street,moon' }]) {
    assert.throws(() => parseOptions({ ...base, ...bad }, undefined, known), ApiError, JSON.stringify(bad));
  }
});
