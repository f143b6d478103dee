/**
 * The relevance set: world queries as users type them (cities of many countries with and without
 * accents, with typos, as prefixes; countries in other languages; reverse lookups of well-known
 * spots), each with what a person knows the answer to be: the place's name and country, and where
 * it is, from common knowledge (city-centre and landmark coordinates), not from GeoNames.
 * Expected places must come first unless `top5`; centres within `km` of the known point.
 * The share found first and in the top 5 is printed (and written in the guide).
 */

import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forward, distanceKm } from '../../src/geocoding/forward.js';
import { queryWords, type SearchOptions } from '../../src/geocoding/parameters.js';
import { buildPlaceIndex, type PlaceIndex } from '../../src/geocoding/place-index.js';
import { reverse } from '../../src/geocoding/reverse.js';

let index: PlaceIndex;
before(() => {
  index = buildPlaceIndex();
});

const options = (more: Partial<SearchOptions> = {}): SearchOptions => ({
  limit: 5,
  languages: [],
  proximity: null,
  bbox: null,
  countries: null,
  kinds: null,
  autocomplete: true,
  fuzzyMatch: true,
  ...more,
});

interface Case {
  query: string;
  /** Expected `text` (any of them), country (alpha-2), known position and how far its centre may be. */
  text: string | string[];
  country: string;
  at: [number, number];
  km: number;
  top5?: boolean;
  type?: string;
}

const city = (query: string, text: string, country: string, at: [number, number], more: Partial<Case> = {}): Case => ({ query, text, country, at, km: 25, type: 'municipality', ...more });
const country = (query: string, text: string, code: string, at: [number, number], km: number): Case => ({ query, text, country: code, at, km, type: 'country' });

const forwardCases: Case[] = [
  // Cities, as written and without their accents.
  city('Zürich', 'Zürich', 'CH', [8.5417, 47.3769]),
  city('Zurich', 'Zürich', 'CH', [8.5417, 47.3769]),
  city('zuerich', 'Zürich', 'CH', [8.5417, 47.3769]),
  city('Paris', 'Paris', 'FR', [2.3522, 48.8566]),
  city('Köln', 'Köln', 'DE', [6.9603, 50.9375]),
  city('koln', 'Köln', 'DE', [6.9603, 50.9375]),
  city('Munich', 'Munich', 'DE', [11.582, 48.1351]),
  city('sao paulo', 'São Paulo', 'BR', [-46.6333, -23.5505]),
  city('bogota', 'Bogotá', 'CO', [-74.0721, 4.711]),
  city('reykjavik', 'Reykjavík', 'IS', [-21.9426, 64.1466]),
  city('krakow', 'Kraków', 'PL', [19.945, 50.0647]),
  city('lodz', 'Łódź', 'PL', [19.456, 51.7592]),
  city('gdansk', 'Gdańsk', 'PL', [18.6466, 54.352]),
  city('malmo', 'Malmö', 'SE', [13.0038, 55.605]),
  city('dusseldorf', 'Düsseldorf', 'DE', [6.7735, 51.2277]),
  city('montreal', 'Montréal', 'CA', [-73.5673, 45.5017]),
  city('Tokyo', 'Tokyo', 'JP', [139.6917, 35.6895]),
  city('new york', 'New York City', 'US', [-74.006, 40.7128]),
  city('Los Angeles', 'Los Angeles', 'US', [-118.2437, 34.0522]),
  city('London', 'London', 'GB', [-0.1276, 51.5072]),
  city('Sydney', 'Sydney', 'AU', [151.2093, -33.8688]),
  city('Cairo', 'Cairo', 'EG', [31.2357, 30.0444]),
  city('Nairobi', 'Nairobi', 'KE', [36.8219, -1.2921]),
  city('buenos aires', 'Buenos Aires', 'AR', [-58.3816, -34.6037]),
  city('Mumbai', 'Mumbai', 'IN', [72.8777, 19.076]),
  city('istanbul', 'Istanbul', 'TR', [28.9784, 41.0082]),
  city('Moscow', 'Moscow', 'RU', [37.6173, 55.7558]),
  city('st petersburg', 'Saint Petersburg', 'RU', [30.3351, 59.9343]),
  city('rio de janeiro', 'Rio de Janeiro', 'BR', [-43.1729, -22.9068]),
  city('mexico city', 'Mexico City', 'MX', [-99.1332, 19.4326]),
  city('cape town', 'Cape Town', 'ZA', [18.4241, -33.9249]),
  city('Wellington', 'Wellington', 'NZ', [174.7762, -41.2865]),
  city('Lisbon', 'Lisbon', 'PT', [-9.1393, 38.7223]),
  city('paris france', 'Paris', 'FR', [2.3522, 48.8566]),
  // Typos.
  city('wahsington', 'Washington, D.C.', 'US', [-77.0369, 38.9072]),
  city('Barcleona', 'Barcelona', 'ES', [2.1734, 41.3851]),
  city('Amsterdm', 'Amsterdam', 'NL', [4.9041, 52.3676]),
  city('Stokholm', 'Stockholm', 'SE', [18.0686, 59.3293]),
  city('Berln', 'Berlin', 'DE', [13.405, 52.52]),
  city('Zruich', 'Zürich', 'CH', [8.5417, 47.3769]),
  // Typed so far (autocomplete).
  city('zur', 'Zürich', 'CH', [8.5417, 47.3769]),
  city('amst', 'Amsterdam', 'NL', [4.9041, 52.3676]),
  city('barc', 'Barcelona', 'ES', [2.1734, 41.3851]),
  city('toky', 'Tokyo', 'JP', [139.6917, 35.6895]),
  city('buenos ai', 'Buenos Aires', 'AR', [-58.3816, -34.6037]),
  // Countries in other languages (the centre is where a label fits, so the bound is the country's size).
  country('Deutschland', 'Germany', 'DE', [10.45, 51.16], 200),
  country('Allemagne', 'Germany', 'DE', [10.45, 51.16], 200),
  country('Alemania', 'Germany', 'DE', [10.45, 51.16], 200),
  country('ドイツ', 'Germany', 'DE', [10.45, 51.16], 200),
  country('Schweiz', 'Switzerland', 'CH', [8.23, 46.82], 100),
  country('Suisse', 'Switzerland', 'CH', [8.23, 46.82], 100),
  country('Svizzera', 'Switzerland', 'CH', [8.23, 46.82], 100),
  country('España', 'Spain', 'ES', [-3.7, 40.4], 300),
  country('espana', 'Spain', 'ES', [-3.7, 40.4], 300),
  country('Nederland', 'Netherlands', 'NL', [5.29, 52.13], 100),
  country('osterreich', 'Austria', 'AT', [14.55, 47.52], 150),
  country('Polska', 'Poland', 'PL', [19.15, 51.92], 200),
  country('Sverige', 'Sweden', 'SE', [16.0, 62.0], 500),
  country('Brasil', 'Brazil', 'BR', [-51.9, -14.2], 800),
  country('Vereinigtes Königreich', 'United Kingdom', 'GB', [-2.0, 54.0], 400),
  country('Türkei', 'Türkiye', 'TR', [35.24, 38.96], 400),
  country('Grèce', 'Greece', 'GR', [21.82, 39.07], 250),
];

interface ReverseCase {
  at: [number, number];
  /** Expected place names (any of them; a landmark's ward or its city), and country. */
  place: string[] | null;
  country: string | null;
}

const reverseCases: ReverseCase[] = [
  { at: [2.2945, 48.8584], place: ['Paris'], country: 'FR' }, // Eiffel Tower
  { at: [-0.1276, 51.5072], place: ['London', 'City of Westminster', 'Westminster'], country: 'GB' },
  { at: [13.405, 52.52], place: ['Berlin', 'Mitte'], country: 'DE' },
  { at: [139.7454, 35.6586], place: ['Tokyo', 'Minato', 'Minato-ku'], country: 'JP' }, // Tokyo Tower
  { at: [-73.9857, 40.7484], place: ['New York City', 'Manhattan'], country: 'US' }, // Empire State Building
  { at: [151.2153, -33.8568], place: ['Sydney'], country: 'AU' }, // Opera House
  { at: [12.4922, 41.8902], place: ['Rome'], country: 'IT' }, // Colosseum
  { at: [8.5417, 47.3769], place: ['Zürich'], country: 'CH' },
  { at: [18.4241, -33.9249], place: ['Cape Town'], country: 'ZA' },
  { at: [-122.4194, 37.7749], place: ['San Francisco'], country: 'US' },
  { at: [178.0, -17.8], place: null, country: 'FJ' }, // inland Viti Levu, near the antimeridian
  { at: [-178, 66.5], place: null, country: 'RU' }, // inland Chukotka, east of the antimeridian
  { at: [0, 0], place: null, country: null }, // Gulf of Guinea
  { at: [-40, 30], place: null, country: null }, // mid-Atlantic
];

const texts = (text: string | string[]) => (Array.isArray(text) ? text : [text]);

test(`forward relevance set (${forwardCases.length} queries): the expected place comes first, where it is`, () => {
  let first = 0;
  let top5 = 0;
  const misses: string[] = [];
  for (const c of forwardCases) {
    const result = forward(index, queryWords(c.query), options());
    const rank = result.features.findIndex(
      (f) =>
        texts(c.text).includes(f.text) &&
        (f.properties.country_code ?? '') === c.country.toLowerCase() &&
        (c.type === undefined || f.place_type[0] === c.type) &&
        distanceKm(f.center[0], f.center[1], c.at[0], c.at[1]) <= c.km,
    );
    if (rank === 0) first++;
    if (rank >= 0) top5++;
    if (rank !== 0 && !(c.top5 && rank >= 0)) misses.push(`${c.query}: got ${result.features.map((f) => `${f.place_name} ${f.center}`).join(' | ') || 'nothing'}`);
  }
  console.log(`forward: ${first}/${forwardCases.length} first, ${top5}/${forwardCases.length} in the top 5`);
  assert.deepEqual(misses, []);
});

test(`reverse relevance set (${reverseCases.length} points): the place and country a person knows`, () => {
  const misses: string[] = [];
  for (const c of reverseCases) {
    const result = reverse(index, c.at[0], c.at[1], options());
    const place = result.features.find((f) => f.place_type[0] === 'municipality' || f.place_type[0] === 'locality');
    const found = result.features.find((f) => f.place_type[0] === 'country');
    const placeOk = c.place === null || (place !== undefined && c.place.includes(place.text));
    const countryOk = c.country === null ? found === undefined : found?.properties.country_code === c.country.toLowerCase();
    if (!placeOk || !countryOk) misses.push(`${c.at}: got ${result.features.map((f) => `${f.place_type[0]} ${f.place_name}`).join(' | ') || 'nothing'}`);
  }
  assert.deepEqual(misses, []);
});

test('filters: country, types, bbox, proximity and language', () => {
  const inTexas = forward(index, queryWords('paris'), options({ proximity: [-95.5, 33.7] }));
  assert.equal(inTexas.features[0]!.properties.country_code, 'us', 'proximity near Paris, Texas ranks it first');
  const canada = forward(index, queryWords('paris'), options({ countries: new Set(['CA']) }));
  assert.ok(canada.features.length > 0 && canada.features.every((f) => f.properties.country_code === 'ca'));
  const countriesOnly = forward(index, queryWords('georgia'), options({ kinds: new Set(['country']) }));
  assert.deepEqual(countriesOnly.features.map((f) => f.place_type[0]), countriesOnly.features.map(() => 'country'));
  assert.equal(countriesOnly.features[0]!.text, 'Georgia');
  const swiss = forward(index, queryWords('zurich'), options({ bbox: [5.9559, 45.818, 10.4921, 47.8084] }));
  assert.ok(swiss.features.every((f) => f.properties.country_code === 'ch'));
  const german = forward(index, queryWords('zurich'), options({ languages: ['de'] }));
  assert.equal(german.features[0]!.place_name, 'Zürich, Schweiz', 'the context in the requested language');
  const matched = forward(index, queryWords('deutschland'), options({ languages: ['fr'] }));
  assert.equal(matched.features[0]!.text, 'Allemagne');
  assert.equal(matched.features[0]!.matching_text, 'Deutschland');
  const exact = forward(index, queryWords('zur'), options({ autocomplete: false, fuzzyMatch: false }));
  assert.ok(!exact.features.some((f) => f.text === 'Zürich'), 'without autocomplete a word is not a prefix');
  const strict = forward(index, queryWords('zruich'), options({ fuzzyMatch: false }));
  assert.ok(!strict.features.some((f) => f.text === 'Zürich'), 'without fuzzyMatch a typo finds nothing');
});

test('a country that crosses the antimeridian has a box across it', () => {
  const fiji = forward(index, queryWords('fiji'), options({ kinds: new Set(['country']) })).features[0]!;
  assert.ok(fiji.bbox && fiji.bbox[0] > fiji.bbox[2], `west > east: ${fiji.bbox}`);
  const russia = forward(index, queryWords('russia'), options({ kinds: new Set(['country']) })).features[0]!;
  // Russia reaches from Kaliningrad (about 19.6°E) eastward across 180° to Chukotka (about 169°W).
  assert.ok(Math.abs(russia.bbox![0] - 19.6) < 1 && Math.abs(russia.bbox![2] + 169) < 1.5, `${russia.bbox}`);
  const swiss = forward(index, queryWords('switzerland'), options()).features[0]!;
  // Switzerland: 5.96..10.49°E, 45.82..47.81°N.
  assert.ok(swiss.bbox!.every((v, i) => Math.abs(v - [5.96, 45.82, 10.49, 47.81][i]!) < 0.1), `${swiss.bbox}`);
});

test('one or two letters alone: countries and large places that start with them', () => {
  for (const prefix of ['p', 's', 'z', 'pa', 'ki']) {
    const result = forward(index, queryWords(prefix), options());
    assert.equal(result.features.length, 5, prefix);
    for (const f of result.features) {
      const large = f.place_type[0] === 'country' || (f.properties.population ?? 0) >= 100_000;
      assert.ok(large, `${prefix}: ${f.place_name} (${f.properties.population})`);
    }
  }
  // Paris is the largest city whose name starts with "pa".
  assert.ok(forward(index, queryWords('pa'), options()).features.some((f) => f.text === 'Paris' && f.properties.country_code === 'fr'));
});
