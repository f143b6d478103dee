import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { listenWarm, LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

let server: TestServer;
let key: string;
let keyId: string;
const log = new LogCapture();

before(async () => {
  server = await startTestServer(testConfig({ logLevel: 'info', geocoding: { buildIndex: true } }), { logStream: log });
  const { accountId } = await newAccount(server.meridian);
  const created = await server.meridian.keys.create(accountId, {});
  key = created.token;
  keyId = created.id;
  await server.server.geocoder.ready;
});
after(() => server.close());

async function get(url: string, options: { key?: string | null; headers?: Record<string, string> } = {}) {
  const token = options.key === undefined ? key : options.key;
  const full = token === null ? url : `${url}${url.includes('?') ? '&' : '?'}key=${encodeURIComponent(token)}`;
  const response = await server.server.public.inject({ method: 'GET', url: full, headers: options.headers ?? {} });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

test('/ready reports the index', async () => {
  await listenWarm(server.server);
  const ready = await server.server.public.inject({ method: 'GET', url: '/ready' });
  assert.equal(ready.json().geocoding_index, 'built');
});

describe('GET /geocoding/{query}.json', () => {
  test('forward: a GeoJSON FeatureCollection in MapTiler’s shape', async () => {
    const { status, body } = await get('/geocoding/Zurich.json');
    assert.equal(status, 200);
    assert.equal(body.type, 'FeatureCollection');
    assert.deepEqual(body.query, ['zurich']);
    assert.match(body.attribution, /GeoNames/);
    assert.equal(body.features.length, 5, 'limit defaults to 5');
    const [first] = body.features;
    assert.equal(first.type, 'Feature');
    assert.equal(first.text, 'Zürich');
    assert.equal(first.place_name, 'Zürich, Switzerland');
    assert.deepEqual(first.place_type, ['municipality']);
    assert.equal(first.relevance, 1);
    assert.equal(first.id, `municipality.${first.properties.ref.split(':')[1]}`);
    assert.match(first.properties.ref, /^geonames:\d+$/);
    assert.equal(first.properties.country_code, 'ch');
    assert.deepEqual(first.geometry, { type: 'Point', coordinates: first.center });
    // Zürich's centre is at about 8.54°E, 47.37°N.
    assert.ok(Math.abs(first.center[0] - 8.54) < 0.1 && Math.abs(first.center[1] - 47.37) < 0.1);
    // Its canton (ISO 3166-2 CH-ZH), left out of place_name since it is named after the city, then its country.
    assert.deepEqual(first.context.map((item: { ref: string }) => item.ref), ['iso:CH-ZH', 'iso:CH']);
    assert.deepEqual(first.context[1], { id: 'country.CH', text: 'Switzerland', ref: 'iso:CH', country_code: 'ch' });
  });

  test('parameters: limit, language, types, country, bbox, autocomplete, fuzzyMatch', async () => {
    const one = await get('/geocoding/paris.json?limit=1&language=de');
    assert.equal(one.body.features.length, 1);
    assert.equal(one.body.features[0].place_name, 'Paris, Île-de-France, Frankreich');
    const country = await get('/geocoding/Deutschland.json?types=country&language=en');
    assert.equal(country.body.features[0].text, 'Germany');
    assert.equal(country.body.features[0].matching_text, 'Deutschland');
    assert.equal(country.body.features[0].bbox.length, 4);
    assert.deepEqual(country.body.features[0].context, []);
    const canada = await get('/geocoding/paris.json?country=ca,us');
    assert.ok(canada.body.features.every((f: { properties: { country_code: string } }) => ['ca', 'us'].includes(f.properties.country_code)));
    const boxed = await get('/geocoding/paris.json?bbox=-100,30,-90,40');
    assert.ok(boxed.body.features.length > 0 && boxed.body.features.every((f: { center: number[] }) => f.center[0] >= -100 && f.center[0] <= -90));
    const prefix = await get('/geocoding/zur.json?autocomplete=false&fuzzyMatch=false');
    assert.ok(!prefix.body.features.some((f: { text: string }) => f.text === 'Zürich'));
    const accepted = await get('/geocoding/germany.json?limit=1', { headers: { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.8' } });
    assert.equal(accepted.body.features[0].text, 'Allemagne', 'Accept-Language when language is absent');
    const none = await get('/geocoding/germany.json?limit=1&language=', { headers: { 'accept-language': 'fr' } });
    assert.equal(none.body.features[0].text, 'Germany', 'an empty language: no preference');
  });

  test('reverse: what is at a point, most detailed first', async () => {
    // The Eiffel Tower.
    const { status, body } = await get('/geocoding/2.2945,48.8584.json');
    assert.equal(status, 200);
    assert.deepEqual(body.query, [2.2945, 48.8584]);
    const types = body.features.map((f: { place_type: string[] }) => f.place_type[0]);
    assert.equal(types.at(-1), 'country');
    assert.equal(body.features.at(-1).text, 'France');
    assert.ok(body.features.some((f: { text: string }) => f.text === 'Paris'));
    const countryOnly = await get('/geocoding/2.2945,48.8584.json?types=country');
    assert.deepEqual(countryOnly.body.features.map((f: { text: string }) => f.text), ['France']);
    const sea = await get('/geocoding/-40,30.json');
    assert.deepEqual(sea.body.features, []);
  });

  test('bad input is 400 with the error body, never 500', async () => {
    const cases: [string, RegExp][] = [
      ['/geocoding/.json', /query/i],
      ['/geocoding/%20%2C%20.json', /Query is empty/],
      [`/geocoding/${'a'.repeat(257)}.json`, /too long/],
      ['/geocoding/200,10.json', /out of range/],
      ['/geocoding/10,-91.json', /out of range/],
      ['/geocoding/paris.json?limit=0', /limit/],
      ['/geocoding/paris.json?limit=11', /limit/],
      ['/geocoding/paris.json?limit=abc', /limit/],
      ['/geocoding/paris.json?types=planet', /Unknown type "planet"/],
      ['/geocoding/paris.json?language=xx', /Unknown language "xx"/],
      ['/geocoding/paris.json?language=english', /Unknown language/],
      ['/geocoding/paris.json?country=zz', /Unknown country "zz"/],
      ['/geocoding/paris.json?country=fra', /Unknown country "fra"/],
      ['/geocoding/paris.json?proximity=1', /Invalid proximity/],
      ['/geocoding/paris.json?proximity=1,95', /out of range/],
      ['/geocoding/paris.json?bbox=1,2,3', /Invalid bbox/],
      ['/geocoding/paris.json?bbox=0,50,10,40', /Invalid bbox/],
      ['/geocoding/paris.json?autocomplete=maybe', /autocomplete/],
    ];
    for (const [url, message] of cases) {
      const { status, body } = await get(url);
      assert.equal(status, 400, url);
      assert.equal(body.errors.length, 1, url);
      assert.match(body.errors[0].message, message, url);
    }
  });

  test('the key gate: missing and wrong keys are refused; usage is counted as geocoding', async () => {
    for (const token of [null, 'not-a-key']) {
      const { status, body } = await get('/geocoding/paris.json', { key: token });
      assert.equal(status, 403);
      assert.deepEqual(body, { errors: [{ message: 'Key is missing, invalid or restricted' }] });
    }
    await server.meridian.usage.flush();
    const rows = await server.meridian.db.query<{ area: string; requests: string }>('SELECT area, requests FROM api_key_usage WHERE key_id = $1', [keyId]);
    assert.deepEqual(rows.map((row) => row.area), ['geocoding']);
    assert.ok(Number(rows[0]!.requests) > 10);
    assert.ok(!log.text.includes(key), 'the key is never logged');
  });
});
