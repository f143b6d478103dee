/**
 * @oneDatabase the database only checks the key; what is tested is which names the maps label with.
 */

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { createExpression, type StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { localizedStyle, localizeStyle, parseLanguage } from '../../src/maps/language.js';
import { ApiError } from '../../src/platform/errors.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { writeStreetMaps } from '../tools/osm/street-maps.js';

const styleWith = (...fields: unknown[]): StyleSpecification => ({
  version: 8,
  sources: { s: { type: 'vector', tiles: ['x/{z}/{x}/{y}.pbf'] } },
  layers: fields.map((field, i) => ({ id: `l${i}`, type: 'symbol', source: 's', 'source-layer': 'poi', layout: { 'text-field': field } })) as never,
});

/** What MapLibre's own expression engine shows for the rewritten text-field of a feature. */
function shown(style: StyleSpecification, layer: number, properties: Record<string, unknown>): unknown {
  const field = (style.layers[layer] as { layout: { 'text-field': unknown } }).layout['text-field'];
  const parsed = createExpression(field, { type: 'formatted', 'property-type': 'data-driven', expression: { parameters: ['zoom', 'feature'] }, tokens: true } as never);
  assert.equal(parsed.result, 'success', JSON.stringify(parsed.value));
  const value = (parsed.value as { evaluate: (globals: object, feature: object) => unknown }).evaluate({ zoom: 14 }, { type: 1, properties });
  return typeof value === 'object' && value !== null && 'sections' in value ? (value as { toString(): string }).toString() : value;
}

const munich = { name: 'München', 'name:latin': 'München', 'name:en': 'Munich', 'name:de': 'München', name_en: 'Munich', class: 'city' };
const moscow = { name: 'Москва', 'name:latin': 'Moskva', 'name:de': 'Moskau', 'name:nonlatin': 'Москва', ref: 'M1' };
const taipei = { name: '臺北市', 'name:zh': '台北市', 'name:zh-Hant': '臺北市', 'name:latin': 'Taipei' };

describe('the language transform', () => {
  test('language= is two or three lowercase letters, optionally a region or script; anything else is the documented 400', () => {
    for (const good of ['de', 'gsw', 'pt-BR', 'zh-Hant', 'sr-Latn']) assert.equal(parseLanguage(good), good);
    assert.equal(parseLanguage(undefined), null);
    assert.equal(parseLanguage(['en', 'fr']), 'fr', 'the last of repeated values');
    for (const bad of ['', 'DE', 'english', 'de_DE', 'de-', 'de-Latn-RS', 'e', '../x']) {
      assert.throws(
        () => parseLanguage(bad),
        (error: unknown) => error instanceof ApiError && error.message === 'Invalid language' && error.statusCode === 400,
        bad,
      );
    }
  });

  test('names show in the language, else in Latin script, else as they are', () => {
    const style = styleWith(['coalesce', ['get', 'name'], ['get', 'name:latin']], ['get', 'name_en'], ['get', 'name:latin']);
    for (const layer of [0, 1, 2]) {
      assert.equal(shown(localizeStyle(style, 'en'), layer, munich), 'Munich');
      assert.equal(shown(localizeStyle(style, 'de'), layer, moscow), 'Moskau');
      assert.equal(shown(localizeStyle(style, 'fr'), layer, moscow), 'Moskva', 'no French name: Latin');
      assert.equal(shown(localizeStyle(style, 'fr'), layer, { name: 'Ulm' }), 'Ulm', 'no Latin either: the name');
    }
    assert.equal(shown(localizeStyle(style, 'zh-Hant'), 0, taipei), '臺北市');
    assert.equal(shown(localizeStyle(style, 'zh-Hans'), 0, taipei), '台北市', 'the bare language before Latin');
    assert.equal(shown(style, 0, moscow), 'Москва', 'the style itself is untouched');
  });

  test('other fields stay; legacy tokens and concatenations show the name once', () => {
    const style = styleWith(
      ['get', 'housenumber'],
      '{name:latin}\n{name:nonlatin}',
      '{name} ({ref})',
      ['concat', ['get', 'name:latin'], ' ', ['get', 'name:nonlatin']],
      ['case', ['has', 'ref'], ['concat', ['get', 'name'], '\n', ['get', 'ref']], ['get', 'name']],
      { stops: [[10, '{ref}'], [14, '{name}']] },
    );
    const german = localizeStyle(style, 'de');
    assert.equal(german.layers[0], style.layers[0], 'a layer without names is the same object');
    assert.equal(shown(german, 1, moscow), 'Moskau');
    assert.equal(shown(german, 2, moscow), 'Moskau (M1)');
    assert.equal(shown(german, 3, moscow), 'Moskau');
    assert.equal(shown(german, 4, moscow), 'Moskau\nM1');
    assert.deepEqual((german.layers[5] as { layout: { 'text-field': { stops: unknown[][] } } }).layout['text-field'].stops[0], [10, '{ref}']);
    assert.notEqual((german.layers[5] as { layout: { 'text-field': { stops: unknown[][] } } }).layout['text-field'].stops[1]![1], '{name}');
    const plain = styleWith(['get', 'ref']);
    assert.equal(localizeStyle(plain, 'de'), plain, 'a style without names is the same object');
  });

  test('a rewritten style is kept per style and language', () => {
    const style = styleWith(['get', 'name']);
    assert.equal(localizedStyle(style, null), style);
    assert.equal(localizedStyle(style, 'de'), localizedStyle(style, 'de'));
    assert.notEqual(localizedStyle(style, 'de'), localizedStyle(style, 'fr'));
  });
});

describe('language= through the routes (the streets style over the test town, whose lake is Moossee, in English Lake Moos)', () => {
  let server: TestServer;
  let dir: string;
  let key: string;
  before(async () => {
    const maps = await writeStreetMaps('town');
    dir = maps.dir;
    server = await startTestServer(testConfig({ maps: { definitions: { streets: maps.definitions.streets } as never } }));
    key = (await server.meridian.keys.create((await newAccount(server.meridian)).accountId, {})).token;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const get = (url: string) => server.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${key}` });
  // The lake's name in the middle of the image, nothing else with a name in another language.
  const image = (query: string) => get(`/api/maps/streets/static/8.2894,47.2072,14/400x400.png${query}`);

  test('a static image in English differs from one in German, which the town has no names in (so it shows the local names)', async () => {
    const [plain, german, english] = await Promise.all([image(''), image('?language=de'), image('?language=en')]);
    for (const response of [plain, german, english]) assert.equal(response.statusCode, 200, response.body);
    assert.ok(german.rawPayload.equals(plain.rawPayload), 'German falls back to name:latin, the same names');
    const [a, b] = await Promise.all([english, plain].map((response) => sharp(response.rawPayload).raw().toBuffer({ resolveWithObject: true })));
    const differing: [number, number][] = [];
    for (let i = 0; i < a!.data.length; i += a!.info.channels) {
      if (a!.data.compare(b!.data, i, i + a!.info.channels, i, i + a!.info.channels) !== 0) differing.push([(i / a!.info.channels) % 400, Math.floor(i / a!.info.channels / 400)]);
    }
    assert.ok(differing.length > 50, `English shows Lake Moos: ${differing.length} pixels differ`);
    assert.ok(differing.every(([x, y]) => Math.abs(x - 200) < 60 && Math.abs(y - 200) < 20), 'only where the name of the lake is');
  });

  test('style.json shows the name in the language, with its fallbacks', async () => {
    const response = await get('/maps/streets/style.json?language=en');
    assert.equal(response.statusCode, 200, response.body);
    const water = response.json().layers.find((layer: { id: string }) => layer.id === 'water-label');
    assert.deepEqual(water.layout['text-field'], ['coalesce', ['get', 'name:en'], ['get', 'name:latin'], ['get', 'name']]);
    const plain = (await get('/maps/streets/style.json')).json().layers.find((layer: { id: string }) => layer.id === 'water-label');
    assert.deepEqual(plain.layout['text-field'], ['coalesce', ['get', 'name'], ['get', 'name:latin']]);
  });

  test('a malformed language is 400 with the documented body, on both routes', async () => {
    for (const url of ['/api/maps/streets/static/8.3165,47.2205,14/100x100.png?language=German', '/maps/streets/style.json?language=de_DE']) {
      const response = await get(url);
      assert.equal(response.statusCode, 400, url);
      assert.deepEqual(response.json(), { errors: [{ message: 'Invalid language' }] });
    }
  });
});
