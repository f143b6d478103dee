/**
 * @oneDatabase the database only checks the key; what is tested is the street-map import (files and tilemaker).
 */

import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader } from 'pbf';
import { openArchive } from '../../../src/platform/pmtiles.js';
import { MapRegistry } from '../../../src/maps/registry.js';
import { ExtractError } from '../../../src/tools/osm/extract.js';
import { idFromFile, importExtract } from '../../../src/tools/osm/import.js';
import { MapsUsageError } from '../../../src/tools/osm/publish.js';
import { acquireLock } from '../../../src/platform/storage/lock.js';
import { repoRoot } from '../../render/suite/cases.js';
import { testConfig } from '../../helpers.js';
import { tempDir } from '../../scratch.js';
import { KIRCHBERG, OAKLAND, requirePeers } from '../../peers.js';

before(() => requirePeers('osmSamples', 'gshhgFull'));

/** A maps folder with the world map (the fixture cut of it) beside where imports go. */
function mapsFolder(): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'world'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/osm/world.pmtiles'), path.join(dir, 'world', 'world.pmtiles'));
  return dir;
}

const definitionOf = (dir: string, id: string) => JSON.parse(readFileSync(path.join(dir, `${id}.json`), 'utf8')) as { style: string };

test('an extract becomes three maps over one PMTiles archive, which load and carry the sea and the streets', async () => {
  const dir = mapsFolder();
  const result = await importExtract(OAKLAND, { mapsDir: dir });
  assert.deepEqual(result.maps, ['west-oakland', 'west-oakland-light', 'west-oakland-dark']);
  assert.deepEqual(result.bounds, [-122.30258, 37.80615, -122.29825, 37.80914]);
  assert.equal(result.input.nodes, 446);

  const archive = await openArchive(result.archive);
  assert.equal(archive.maxZoom, 14);
  // Zoom 14 over the extract: its streets; zoom 11 west of it: San Francisco Bay, from GSHHG.
  const street = new VectorTile(new PbfReader((await archive.tile(14, 2625, 6330))!));
  assert.ok(street.layers.transportation!.length > 5);
  const bay = new VectorTile(new PbfReader((await archive.tile(11, 327, 791))!));
  const water = bay.layers.water!;
  assert.ok(Array.from({ length: water.length }, (_, i) => water.feature(i).properties.class).includes('ocean'));
  await archive.close();

  const registry = await MapRegistry.open({ dataDir: dir, maps: { ...testConfig().maps, dir } });
  try {
    assert.deepEqual(registry.loadErrors(), []);
    assert.deepEqual(registry.ids(), ['west-oakland', 'west-oakland-dark', 'west-oakland-light']);
    const sources = registry.get('west-oakland')!.style.sources as Record<string, { url?: string; bounds?: number[] }>;
    assert.deepEqual(sources.openmaptiles!.bounds, result.bounds);
  } finally {
    await registry.close();
  }
});

test('importing again replaces the maps atomically; a failed import leaves them serving; older versions go', async () => {
  const dir = mapsFolder();
  await importExtract(KIRCHBERG, { mapsDir: dir, id: 'kirchberg', maxzoom: 13 });
  const first = definitionOf(dir, 'kirchberg').style;

  const bad = path.join(tempDir(), 'broken.osm');
  writeFileSync(bad, '<?xml version="1.0"?>\n<osm version="0.6"><node id="1" lat="48.1" lon="10.0"');
  await assert.rejects(importExtract(bad, { mapsDir: dir, id: 'kirchberg' }), ExtractError);
  assert.equal(definitionOf(dir, 'kirchberg').style, first);
  assert.ok(existsSync(path.join(dir, path.dirname(first), 'openmaptiles.pmtiles')));

  await importExtract(KIRCHBERG, { mapsDir: dir, id: 'kirchberg', maxzoom: 13 });
  const second = definitionOf(dir, 'kirchberg').style;
  assert.notEqual(second, first);
  await importExtract(KIRCHBERG, { mapsDir: dir, id: 'kirchberg', maxzoom: 13 });
  const third = definitionOf(dir, 'kirchberg').style;
  // The previous version stays for servers still reading it; the one before goes; no partial folder is left.
  const versions = readdirSync(path.join(dir, 'osm', 'kirchberg')).filter((name) => !name.startsWith('.')).sort();
  assert.deepEqual(versions, [path.basename(path.dirname(second)), path.basename(path.dirname(third))].sort());
});

test('one import of an id at a time, and bad options are refused before any work', async () => {
  const dir = mapsFolder();
  mkdirSync(path.join(dir, 'osm', 'busy'), { recursive: true });
  const release = acquireLock(path.join(dir, 'osm', 'busy', '.lock'));
  try {
    await assert.rejects(importExtract(KIRCHBERG, { mapsDir: dir, id: 'busy' }), /another import of "busy" is running/);
  } finally {
    release();
  }
  await assert.rejects(importExtract(KIRCHBERG, { mapsDir: dir, id: 'no spaces' }), MapsUsageError);
  await assert.rejects(importExtract(KIRCHBERG, { mapsDir: dir, maxzoom: 15 }), /--maxzoom must be an integer from 0 to 14/);
  await assert.rejects(importExtract(KIRCHBERG, { mapsDir: dir, minzoom: 9, maxzoom: 8 }), /--minzoom \(9\) is above --maxzoom \(8\)/);
  assert.equal(idFromFile('/x/West-Oakland.osm.bz2'), 'west-oakland');
  assert.equal(idFromFile('planet_10.068,48.135_10.071,48.137.osm'), 'planet_10-068-48-135_10-071-48-137');
});

function layerCounts(data: Uint8Array | null): Record<string, number> {
  if (!data) return {};
  const { layers } = new VectorTile(new PbfReader(data));
  return Object.fromEntries(Object.entries(layers).map(([name, layer]) => [name, layer.length]));
}

test('an import with a store folder for tilemaker (--store) gives the same maps', async () => {
  const dir = mapsFolder();
  const store = tempDir();
  const stored = await importExtract(KIRCHBERG, { mapsDir: dir, id: 'stored', maxzoom: 13, store });
  const plain = await importExtract(KIRCHBERG, { mapsDir: dir, id: 'plain', maxzoom: 13 });
  assert.equal(stored.tiles, plain.tiles);
  const [a, b] = await Promise.all([openArchive(stored.archive), openArchive(plain.archive)]);
  for (let z = 0; z <= 13; z++) {
    const n = 2 ** z;
    const x = Math.floor(((10.0695 + 180) / 360) * n);
    const y = Math.floor(((1 - Math.asinh(Math.tan((48.136 * Math.PI) / 180)) / Math.PI) / 2) * n);
    // tilemaker's threads order features differently from run to run: compare what each layer holds.
    const [left, right] = await Promise.all([a.tile(z, x, y), b.tile(z, x, y)]);
    assert.deepEqual(layerCounts(left), layerCounts(right), `tile ${z}/${x}/${y}`);
  }
  await Promise.all([a.close(), b.close()]);
});
