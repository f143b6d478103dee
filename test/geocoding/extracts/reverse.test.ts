/**
 * Reverse lookups over imported extracts: a point on a street of each sample names that street, a
 * point at a building its address, before the world's place and country. Points from osmium's
 * export of the samples.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { LineString, MultiPolygon } from 'geojson';
import { requirePeers } from '../../peers.js';
import { osmiumFeatures, SAMPLE_FILES, startSamplesServer, type SamplesServer } from './samples.js';

let samples: SamplesServer;
before(async () => {
  requirePeers('osmSamples');
  samples = await startSamplesServer();
});
after(() => samples?.server.close());

/** The middle of the first segment of the street's first way, as osmium gives it. */
function onStreet(file: string, name: string): [number, number] {
  const way = osmiumFeatures(file).find((f) => f.properties.name === name && f.properties.highway && f.geometry.type === 'LineString')!;
  const [a, b] = (way.geometry as LineString).coordinates as [number, number][];
  return [(a![0] + b![0]) / 2, (a![1] + b![1]) / 2];
}

test('a point on a street of each sample: that street, then its place, region and country', async () => {
  for (const [file, street, place, region, country] of [
    [SAMPLE_FILES.kirchberg, 'Haydnstraße', 'Kirchberg an der Iller', 'Baden-Württemberg', 'Germany'],
    [SAMPLE_FILES['west-oakland'], 'Willow Street', 'Oakland', 'California', 'United States'],
  ] as const) {
    const [lon, lat] = onStreet(file, street);
    const { status, body } = await samples.get(`/geocoding/${lon},${lat}.json?types=street,place,country`);
    assert.equal(status, 200);
    assert.deepEqual(body.features.map((f: { text: string }) => f.text), [street, place, country]);
    assert.equal(body.features[0].place_name, `${street}, ${place}, ${region}, ${country}`);
    assert.match(body.attribution, /OpenStreetMap contributors/);
  }
});

test('a point at a building: its address first', async () => {
  const building = osmiumFeatures(SAMPLE_FILES.kirchberg).find((f) => f.properties['addr:street'] === 'Haydnstraße' && f.properties['addr:housenumber'] === '5' && f.geometry.type === 'MultiPolygon')!;
  const ring = (building.geometry as MultiPolygon).coordinates[0]![0]!.slice(1);
  const lon = ring.reduce((sum, p) => sum + p[0]!, 0) / ring.length;
  const lat = ring.reduce((sum, p) => sum + p[1]!, 0) / ring.length;
  const { body } = await samples.get(`/geocoding/${lon},${lat}.json`);
  assert.deepEqual(body.features[0].place_type, ['address']);
  assert.equal(body.features[0].place_name, 'Haydnstraße 5, Kirchberg an der Iller, Baden-Württemberg, Germany');
  assert.deepEqual(body.features.at(-1).place_type, ['country']);
});

test('far from every extract: the world alone, without OpenStreetMap in the attribution', async () => {
  const { body } = await samples.get('/geocoding/8.5417,47.3769.json');
  assert.ok(body.features.some((f: { text: string }) => f.text === 'Zürich'));
  assert.ok(body.features.every((f: { properties: { ref: string } }) => !f.properties.ref.startsWith('osm:')));
  assert.doesNotMatch(body.attribution, /OpenStreetMap/);
});
