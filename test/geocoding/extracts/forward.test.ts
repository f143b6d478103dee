/**
 * Forward search over the streets, addresses and points of interest of imported extracts, ranked
 * with the world's places; expected names and positions from osmium's export of the samples.
 */

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { LineString, MultiPolygon, Point } from 'geojson';
import { requirePeers } from '../../peers.js';
import { addSampleMap, metres, metresToLines, osmiumFeatures, SAMPLE_FILES, startSamplesServer, type SamplesServer } from './samples.js';

let samples: SamplesServer;
before(async () => {
  requirePeers('osmSamples');
  samples = await startSamplesServer();
});
after(() => samples?.server.close());

const kirchberg = () => osmiumFeatures(SAMPLE_FILES.kirchberg);
const oakland = () => osmiumFeatures(SAMPLE_FILES['west-oakland']);
const linesNamed = (features: ReturnType<typeof kirchberg>, name: string) =>
  features.filter((f) => f.properties.name === name && f.properties.highway && f.geometry.type === 'LineString').map((f) => (f.geometry as LineString).coordinates);

test('a street by its name, as typed: with ß or ss, Str., a typo, a prefix; one feature with its place and country', async () => {
  const haydn = linesNamed(kirchberg(), 'Haydnstraße');
  assert.equal(haydn.length, 1);
  for (const query of ['Haydnstraße', 'haydnstrasse', 'Haydnstr.', 'Haydnstrase', 'haydnstr']) {
    const { status, body } = await samples.get(`/geocoding/${encodeURIComponent(query)}.json`);
    // As a whole word (not a prefix), the short form matches as the long one does.
    if (query !== 'Haydnstrase') assert.equal((await samples.get(`/geocoding/${encodeURIComponent(query)}.json?autocomplete=false`)).body.features[0]?.relevance, 1, query);
    assert.equal(status, 200);
    const [first] = body.features;
    assert.equal(first.text, 'Haydnstraße', query);
    assert.deepEqual(first.place_type, ['street'], query);
    assert.equal(first.place_name, 'Haydnstraße, Kirchberg an der Iller, Baden-Württemberg, Germany', query);
    assert.equal(first.properties.kind, 'road');
    assert.equal(first.properties.map, 'kirchberg');
    assert.equal(first.properties.country_code, 'de');
    assert.match(first.properties.ref, /^osm:way\/\d+$/);
    assert.ok(metresToLines(first.center, haydn) < 1, `${query}: the centre lies on the street's way`);
    assert.match(body.attribution, /OpenStreetMap contributors/);
  }
});

test('a street merged from its ways, named with its place: "Willow Street, Oakland", "Willow St", and 7th Street once with the box of all its ways', async () => {
  const features = oakland();
  for (const query of ['Willow Street, Oakland', 'Willow St Oakland', 'wilow street oakland', 'Willow St']) {
    const { body } = await samples.get(`/geocoding/${encodeURIComponent(query)}.json`);
    const [first] = body.features;
    assert.equal(first.text, 'Willow Street', query);
    // Each word matched: `St` as Street, Oakland as the street's place (0.9 of a word).
    assert.ok(first.relevance > 0.9 || query.startsWith('wilow'), `${query}: ${first.relevance}`);
    assert.deepEqual(first.place_type, ['street'], query);
    assert.equal(first.place_name, 'Willow Street, Oakland, California, United States', query);
    assert.deepEqual(first.context.map((item: { id: string }) => item.id.split('.')[0]), ['municipality', 'region', 'country']);
  }
  // "St" after a name is Street: the query is a street's, so the street comes before the town of
  // Willow Street, Pennsylvania (GeoNames, 7,000 people), which the full word still finds first;
  // before a name it is Saint: "St Louis" is the city (38.63°N, 90.20°W).
  const town = (await samples.get('/geocoding/Willow%20Street.json')).body.features[0];
  assert.deepEqual([town.place_type[0], town.properties.country_code], ['locality', 'us']);
  assert.ok(Math.abs(town.center[1] - 39.98) < 0.1 && Math.abs(town.center[0] + 76.27) < 0.1, `Willow Street, Pennsylvania: ${town.center}`);
  const louis = (await samples.get('/geocoding/St%20Louis.json')).body.features[0];
  assert.ok(Math.abs(louis.center[1] - 38.63) < 0.2 && Math.abs(louis.center[0] + 90.2) < 0.2, `St Louis: ${louis.place_name} ${louis.center}`);
  const seventh = linesNamed(features, '7th Street');
  assert.ok(seventh.length > 1, 'the sample has 7th Street in several ways');
  const { body } = await samples.get('/geocoding/7th%20Street.json?types=street');
  assert.equal(body.features.filter((f: { text: string }) => f.text === '7th Street').length, 1);
  const all = seventh.flat();
  const box = [Math.min(...all.map((p) => p[0]!)), Math.min(...all.map((p) => p[1]!)), Math.max(...all.map((p) => p[0]!)), Math.max(...all.map((p) => p[1]!))];
  body.features[0].bbox.forEach((value: number, i: number) => assert.ok(Math.abs(value - box[i]!) < 1e-6, `bbox[${i}]`));
});

test('an address with its number before or after the street, at its building', async () => {
  const building = kirchberg().find((f) => f.properties['addr:street'] === 'Haydnstraße' && f.properties['addr:housenumber'] === '5' && f.geometry.type === 'MultiPolygon')!;
  const ring = (building.geometry as MultiPolygon).coordinates[0]![0]!;
  for (const query of ['Haydnstraße 5', '5 Haydnstrasse', 'haydnstr 5']) {
    const { body } = await samples.get(`/geocoding/${encodeURIComponent(query)}.json`);
    const [first] = body.features;
    assert.deepEqual(first.place_type, ['address'], query);
    assert.equal(first.text, 'Haydnstraße');
    assert.equal(first.address, '5');
    assert.equal(first.place_name, 'Haydnstraße 5, Kirchberg an der Iller, Baden-Württemberg, Germany');
    assert.equal(first.properties.ref, `osm:way/${building.properties['@id']}`);
    // Inside the building's outline: within its box, and nearer its corners than the building is wide.
    const xs = ring.map((p) => p[0]!);
    const ys = ring.map((p) => p[1]!);
    assert.ok(first.center[0] >= Math.min(...xs) && first.center[0] <= Math.max(...xs) && first.center[1] >= Math.min(...ys) && first.center[1] <= Math.max(...ys), query);
  }
  const cafe = oakland().find((f) => f.properties['addr:housenumber'] === '1612')!;
  const { body } = await samples.get('/geocoding/1612%207th%20Street.json');
  assert.equal(body.features[0].place_name, '1612 7th Street, Oakland, California, United States');
  assert.ok(metres(body.features[0].center, (cafe.geometry as Point).coordinates) < 0.5);
});

test('a point of interest by name, with its class, without its apostrophe and with a typo', async () => {
  const features = oakland();
  const cafe = features.find((f) => f.properties.name === 'Revolution Cafe')!;
  for (const query of ['Revolution Cafe', 'revolution café', 'Revolutoin Cafe']) {
    const { body } = await samples.get(`/geocoding/${encodeURIComponent(query)}.json`);
    const [first] = body.features;
    assert.equal(first.text, 'Revolution Cafe', query);
    assert.deepEqual(first.place_type, ['poi']);
    assert.deepEqual(first.properties.categories, ['cafe']);
    assert.equal(first.properties.osm_tag, 'amenity=cafe');
    assert.ok(metres(first.center, (cafe.geometry as Point).coordinates) < 0.5);
  }
  const { body } = await samples.get('/geocoding/esthers%20orbit%20room.json');
  assert.equal(body.features[0].text, "Esther's Orbit Room");
});

test('ranked with the world: a city alone is the city; types filter both', async () => {
  const city = await samples.get('/geocoding/Oakland.json');
  assert.deepEqual(city.body.features[0].place_type, ['municipality']);
  assert.equal(city.body.features[0].place_name, 'Oakland, California, United States');
  const addresses = await samples.get('/geocoding/Haydnstrasse.json?types=address&limit=10');
  assert.ok(addresses.body.features.length > 0);
  assert.ok(addresses.body.features.every((f: { place_type: string[] }) => f.place_type[0] === 'address'));
  const roads = await samples.get('/geocoding/Haydnstrasse.json?types=road');
  assert.deepEqual(roads.body.features.map((f: { place_type: string[] }) => f.place_type[0]), ['street']);
  const none = await samples.get('/geocoding/Haydnstrasse.json?types=poi');
  assert.deepEqual(none.body.features, []);
  const countries = await samples.get('/geocoding/Haydnstrasse.json?country=us');
  assert.deepEqual(countries.body.features, []);
});

test('the indexes follow the maps: a map removed and reloaded is no longer searched, added back it is', async () => {
  const { server, mapsDir } = samples;
  rmSync(path.join(mapsDir, 'west-oakland.json'));
  await server.server.reloadMaps('test');
  const gone = await samples.get('/geocoding/Willow%20Street.json?types=street');
  assert.deepEqual(gone.body.features, []);
  assert.deepEqual(server.server.geocoder.extractMaps(), ['kirchberg']);
  await addSampleMap(mapsDir, 'west-oakland', server.meridian.config.dataDir);
  await server.server.reloadMaps('test');
  const back = await samples.get('/geocoding/Willow%20Street.json?types=street');
  assert.equal(back.body.features[0].text, 'Willow Street');
  assert.match(samples.log.text, /geocoding: imported maps searched/);
});
