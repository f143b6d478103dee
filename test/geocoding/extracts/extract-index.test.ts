/**
 * The extract index built, as `maps import` builds it (osmium, then the index), from small
 * OpenStreetMap files written here: the samples of python-osmnx-doc have no `addr:interpolation`
 * way (`osmium tags-filter … w/addr:interpolation` keeps none of either) and no street in two
 * places (each has one place). Expected positions are computed here from the files' coordinates
 * with great-circle arithmetic, not by the code under test.
 */

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { extractFeatureOf } from '../../../src/geocoding/extracts/features.js';
import { rankExtract } from '../../../src/geocoding/extracts/forward.js';
import type { ExtractIndex } from '../../../src/geocoding/extracts/extract-index.js';
import { readExtractIndex } from '../../../src/geocoding/extracts/index-file.js';
import { worldIndexFor, writeGeocodingIndex } from '../../../src/geocoding/extracts/import.js';
import type { GeocodingFeature } from '../../../src/geocoding/features.js';
import { queryWords, type SearchOptions } from '../../../src/geocoding/parameters.js';
import type { PlaceIndex } from '../../../src/geocoding/place-index.js';
import { requirePeers } from '../../peers.js';
import { tempDir } from '../../scratch.js';
import { osmiumDataExtent } from '../../tools/osm/street-maps.js';

type Node = [id: number, lat: number, lon: number, tags?: Record<string, string>];
type Way = [id: number, nodes: number[], tags: Record<string, string>];

function osmXml(nodes: Node[], ways: Way[]): string {
  const tags = (t: Record<string, string> = {}) => Object.entries(t).map(([k, v]) => `<tag k="${k}" v="${v}"/>`).join('');
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<osm version="0.6" generator="meridian test">`,
    ...nodes.map(([id, lat, lon, t]) => `<node id="${id}" version="1" lat="${lat}" lon="${lon}">${tags(t)}</node>`),
    ...ways.map(([id, refs, t]) => `<way id="${id}" version="1">${refs.map((ref) => `<nd ref="${ref}"/>`).join('')}${tags(t)}</way>`),
    `</osm>`,
  ].join('\n');
}

const street = 'Teststraße';
const address = (number: string) => ({ 'addr:housenumber': number, 'addr:street': street });
// An odd range 1..9 along a way that bends (east, then north); an even range 2..10 along a straight
// one, with 6 also mapped as a node of its own; the village they are in.
const NODES: Node[] = [
  [1, 48.0, 10.0, address('1')],
  [2, 48.0, 10.001],
  [3, 48.001, 10.001, address('9')],
  [4, 48.0, 10.002, address('2')],
  [5, 48.0, 10.006, address('10')],
  [6, 48.0003, 10.0041, address('6')],
  [7, 48.0005, 10.0015, { place: 'village', name: 'Aheim' }],
  // Two villages 3 km apart on one street: one way runs from the first into the second.
  [20, 48.1, 10.0, { place: 'village', name: 'Westdorf' }],
  [21, 48.1, 10.04, { place: 'village', name: 'Ostdorf' }],
  ...[9.995, 10.005, 10.015, 10.025, 10.035, 10.045].map((lon, i): Node => [30 + i, 48.1, lon]),
  [40, 48.101, 10.0],
  [41, 48.101, 10.003],
];
const WAYS: Way[] = [
  [100, [1, 2, 3], { 'addr:interpolation': 'odd' }],
  [101, [4, 5], { 'addr:interpolation': 'even' }],
  [200, [30, 31, 32, 33, 34, 35], { highway: 'residential', name: 'Lindenstraße' }],
  [201, [40, 41], { highway: 'residential', name: 'Lindenstraße' }],
];

let index: ExtractIndex;
let world: PlaceIndex;
before(async () => {
  requirePeers('osmSamples');
  const dir = tempDir();
  const file = path.join(dir, 'fixture.osm');
  writeFileSync(file, osmXml(NODES, WAYS));
  const dataDir = tempDir();
  const written = await writeGeocodingIndex({ pbf: file, id: 'fixture', bounds: osmiumDataExtent(file) as [number, number, number, number], partial: dir, work: tempDir(), dataDir });
  const read = await readExtractIndex(written.file);
  if ('problem' in read) throw new Error(read.problem);
  index = read.index;
  world = await worldIndexFor(dataDir);
});

const options: SearchOptions = { limit: 10, languages: [], proximity: null, bbox: null, countries: null, kinds: null, autocomplete: false, fuzzyMatch: false };
function search(query: string, more: Partial<SearchOptions> = {}): GeocodingFeature[] {
  return rankExtract(index, queryWords(query), { ...options, ...more }).map((r) => extractFeatureOf(r.index, r.entry, r.relevance, [], world, r.index.nameText[r.name]));
}

/** Great-circle metres. */
function metres(a: readonly number[], b: readonly number[]): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((b[1]! - a[1]!) * rad) / 2) ** 2 + Math.cos(a[1]! * rad) * Math.cos(b[1]! * rad) * Math.sin(((b[0]! - a[0]!) * rad) / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.sqrt(h));
}

/** The point `share` of the way along a line of [lon, lat] points. */
function along(line: number[][], share: number): number[] {
  const lengths = line.slice(1).map((p, i) => metres(line[i]!, p));
  let left = share * lengths.reduce((sum, l) => sum + l, 0);
  for (let i = 0; i < lengths.length; i++) {
    if (left <= lengths[i]! || i === lengths.length - 1) {
      const t = left / lengths[i]!;
      return [line[i]![0]! + t * (line[i + 1]![0]! - line[i]![0]!), line[i]![1]! + t * (line[i + 1]![1]! - line[i]![1]!)];
    }
    left -= lengths[i]!;
  }
  throw new Error('empty line');
}

const lonLat = (id: number) => {
  const node = NODES.find((n) => n[0] === id)!;
  return [node[2], node[1]];
};

test('addr:interpolation: a number between the ends is an address at its share of the way', () => {
  const odd = [1, 2, 3].map(lonLat);
  for (const [number, share] of [
    ['5', 0.5],
    ['3', 0.25],
    ['7', 0.75],
  ] as const) {
    const [first] = search(`${street} ${number}`);
    assert.ok(first, number);
    assert.deepEqual(first.place_type, ['address'], number);
    assert.equal(first.text, street);
    assert.equal(first.address, number);
    assert.equal(first.properties.accuracy, 'interpolated');
    assert.equal(first.properties.ref, 'osm:way/100');
    // The fixture's towns are made up: between the town and the country comes whatever region the world places there.
    assert.match(first.place_name, new RegExp(`^${street} ${number}, Aheim, (.+, )?Germany$`));
    const expected = along(odd, share);
    assert.ok(metres(first.center, expected) < 0.5, `${number}: ${first.center} is ${metres(first.center, expected).toFixed(2)} m from ${expected}`);
  }
  // Even numbers along the straight way; 6 is mapped as a node of its own and stays that node.
  const four = search(`${street} 4`)[0]!;
  assert.equal(four.address, '4');
  assert.ok(metres(four.center, along([4, 5].map(lonLat), 0.25)) < 0.5);
  const six = search(`${street} 6`).filter((f) => f.address === '6');
  assert.equal(six.length, 1);
  assert.equal(six[0]!.properties.accuracy, undefined);
  assert.equal(six[0]!.properties.ref, 'osm:node/6');
  // Only numbers strictly between the ends, of the way's parity.
  const numbers = search(street, { limit: 10, kinds: new Set(['address']) })
    .filter((f) => f.properties.accuracy === 'interpolated')
    .map((f) => Number(f.address))
    .sort((a, b) => a - b);
  assert.deepEqual(numbers, [3, 4, 5, 7, 8]);
});

test('a street through two places: one feature per place, each with its own context and the box of its part', () => {
  const streets = search('Lindenstraße', { kinds: new Set(['street']) });
  assert.deepEqual(streets.map((f) => f.context[0]!.text).sort(), ['Ostdorf', 'Westdorf']);
  assert.equal(new Set(streets.map((f) => f.id)).size, 2, `ids: ${streets.map((f) => f.id)}`);
  // Both villages reach as far (2 km): the way leaves Westdorf halfway between them.
  const between = (lonLat(20)[0]! + lonLat(21)[0]!) / 2;
  const west = streets.find((f) => f.context[0]!.text === 'Westdorf')!;
  const east = streets.find((f) => f.context[0]!.text === 'Ostdorf')!;
  assert.ok(Math.abs(west.bbox![0] - 9.995) < 1e-9 && Math.abs(west.bbox![2] - between) < 0.0005, `Westdorf's part: ${west.bbox}`);
  assert.ok(Math.abs(west.bbox![3] - 48.101) < 1e-9, `Westdorf's street holds its other way too: ${west.bbox}`);
  assert.ok(Math.abs(east.bbox![0] - between) < 0.0005 && Math.abs(east.bbox![2] - 10.045) < 1e-9, `Ostdorf's part: ${east.bbox}`);
  assert.ok(metres(west.center, lonLat(20)) < metres(west.center, lonLat(21)));
  assert.ok(metres(east.center, lonLat(21)) < metres(east.center, lonLat(20)));
  assert.match(east.place_name, /^Lindenstraße, Ostdorf, (.+, )?Germany$/);
});
