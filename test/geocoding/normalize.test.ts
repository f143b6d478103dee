import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fold, isStreetQuery, words } from '../../src/geocoding/normalize.js';

test('folds case, accents and letters decomposition leaves alone, as users type', () => {
  const cases: [string, string][] = [
    ['Zürich', 'zurich'],
    ['ZURICH', 'zurich'],
    ['São Paulo', 'sao paulo'],
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['Łódź', 'lodz'],
    ['Malmö', 'malmo'],
    ['Ærøskøbing', 'aeroskobing'],
    ['Þórshöfn', 'thorshofn'],
    ['Saint-Étienne', 'saint etienne'],
    ['St. Gallen', 'st gallen'],
    ["'s-Hertogenbosch", 's hertogenbosch'],
    ['L’Aquila', 'laquila'],
    ['  Frankfurt  (Oder) ', 'frankfurt oder'],
    ['İstanbul', 'istanbul'],
    ['東京', '東京'],
    ['Москва', 'москва'],
    ['ＺＵＲＩＣＨ', 'zurich'],
  ];
  for (const [text, folded] of cases) assert.equal(fold(text), folded, text);
});

test('words splits the folded text, and an empty text has none', () => {
  assert.deepEqual(words('Rio de Janeiro'), ['rio', 'de', 'janeiro']);
  assert.deepEqual(words(' ,.- '), []);
});

test('isStreetQuery: a street word shortened after a name, or a German compound cut after str', () => {
  assert.equal(isStreetQuery(words('Willow St')), true);
  assert.equal(isStreetQuery(words('Main Ave')), true);
  assert.equal(isStreetQuery(words('Haydnstr. 5')), true);
  // Before a name, St is Saint; spelled out, the name may be a town's (Willow Street, Pennsylvania).
  assert.equal(isStreetQuery(words('St Louis')), false);
  assert.equal(isStreetQuery(words('Willow Street')), false);
  assert.equal(isStreetQuery(words('Zürich')), false);
});
