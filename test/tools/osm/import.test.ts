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
import { idFromFile, importExtract, type ImportResult } from '../../../src/tools/osm/import.js';
import { MapsUsageError } from '../../../src/tools/osm/publish.js';
import { acquireLock } from '../../../src/platform/storage/lock.js';
import { repoRoot } from '../../render/suite/cases.js';
import { newAccount, startTestServer, testConfig } from '../../helpers.js';
import { tempDir } from '../../scratch.js';
import { KIRCHBERG, OAKLAND, requirePeers } from '../../peers.js';
import { annexLimits, matrixLimits } from '../../maps/raster/raster-maps.js';
import { colours, osmiumDataExtent, pmtilesHeaderExtent, readStyle } from './street-maps.js';
import { osmiumFeatures } from '../../geocoding/extracts/samples.js';
import { writeGeocodingIndex } from '../../../src/geocoding/extracts/import.js';

before(() => requirePeers('osmSamples', 'gshhgFull'));

/** A maps folder with the world map (the fixture cut of it) beside where imports go. */
function mapsFolder(): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'world'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/osm/world.pmtiles'), path.join(dir, 'world', 'world.pmtiles'));
  return dir;
}

const definitionOf = (dir: string, id: string) => JSON.parse(readFileSync(path.join(dir, `${id}.json`), 'utf8')) as { style: string; bounds?: number[]; schema?: string };

/** West Oakland imported once, for the tests that read what the import made. */
let oaklandImport: Promise<{ dir: string; result: ImportResult }> | undefined;
function oakland(): Promise<{ dir: string; result: ImportResult }> {
  oaklandImport ??= (async () => {
    const dir = mapsFolder();
    return { dir, result: await importExtract(OAKLAND, { mapsDir: dir, geocodingIndex: (options) => writeGeocodingIndex({ ...options, dataDir: tempDir() }) }) };
  })();
  return oaklandImport;
}

test('an extract becomes three maps over one PMTiles archive, which load and carry the sea and the streets', async () => {
  const { dir, result } = await oakland();
  assert.deepEqual(result.maps, ['west-oakland', 'west-oakland-light', 'west-oakland-dark']);
  // The data's extent, not the smaller box the file's header declares (-122.30258,37.80615,-122.29825,37.80914).
  const extent = osmiumDataExtent(OAKLAND);
  assert.deepEqual(result.bounds, extent);
  assert.deepEqual(pmtilesHeaderExtent(result.archive).bounds, extent);
  for (const id of result.maps) assert.deepEqual(definitionOf(dir, id).bounds, extent, id);
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
    // The geocoding index is published in the maps' version folder, where all three maps' styles are.
    assert.ok(existsSync(path.join(registry.get('west-oakland')!.folder, 'geocoding.v8')));
    assert.equal(registry.get('west-oakland-dark')!.folder, registry.get('west-oakland')!.folder);
    // One street per named street (all in one place, Oakland): 7th Street's several ways are one entry.
    const named = new Set(osmiumFeatures(OAKLAND).filter((f) => f.properties.highway && f.properties.name && f.geometry.type === 'LineString').map((f) => f.properties.name));
    assert.equal(result.geocoding.street, named.size);
    const map = registry.get('west-oakland')!;
    const sources = map.style.sources as Record<string, { url?: string; bounds?: number[] }>;
    assert.deepEqual(sources.openmaptiles!.bounds, extent);
    assert.deepEqual(map.bounds, extent);
    assert.equal(map.schema, 'openmaptiles');
    // The archive opens where the maps do, at a zoom it has.
    const [lon, lat, zoom] = map.center;
    const round = (value: number) => Math.round(value * 1e6) / 1e6;
    assert.deepEqual(pmtilesHeaderExtent(result.archive).center.map(round), [lon, lat, Math.min(zoom, archive.maxZoom)].map(round));
  } finally {
    await registry.close();
  }
});

/** Web Mercator x and y of a point as fractions of the world (0 at 180° W and at the north edge). */
const mercator = (lon: number, lat: number) => [(lon + 180) / 360, (1 - Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) / Math.PI) / 2] as const;

/**
 * Where a map over `bounds` should open: the middle of the box in Web Mercator, at the deepest whole
 * zoom of the 512-px pyramid whose 1024x768 view holds the whole box.
 */
function openingView([west, south, east, north]: number[]): number[] {
  const [x0, y0] = mercator(west!, north!);
  const [x1, y1] = mercator(east!, south!);
  const [x, y] = [(x0 + x1) / 2, (y0 + y1) / 2];
  let zoom = 0;
  while ((x1 - x0) * 512 * 2 ** (zoom + 1) <= 1024 && (y1 - y0) * 512 * 2 ** (zoom + 1) <= 768) zoom++;
  return [x * 360 - 180, (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI, zoom];
}

const close = (actual: number[], expected: number[], what: string) =>
  assert.ok(actual.length === expected.length && actual.every((value, i) => Math.abs(value - expected[i]!) < 1e-9), `${what}: ${actual} against ${expected}`);

test("clients get the data's extent and where the map opens: /maps, style.json, TileJSON, WMTS; an image north of the header's box has its streets", async () => {
  const { dir } = await oakland();
  const extent = osmiumDataExtent(OAKLAND);
  // The world map beside it, as after setup: it keeps the world's bounds.
  writeFileSync(path.join(dir, 'world.json'), JSON.stringify({ style: { version: 8, sources: { world: { type: 'vector', url: 'pmtiles://world/world.pmtiles' } }, layers: [] } }));
  const server = await startTestServer(testConfig({ maps: { dir } }));
  try {
    const { accountId } = await newAccount(server.meridian);
    const key = (await server.meridian.keys.create(accountId, {})).token;
    const get = async (url: string) => {
      const response = await server.server.public.inject(`${url}${url.includes('?') ? '&' : '?'}key=${key}`);
      assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
      return response;
    };

    type Summary = { id: string; name: string; bounds: number[]; center: number[]; schema: string | null; thumbnail: string; minzoom: number; maxzoom: number };
    const maps = new Map(((await get('/maps')).json() as { maps: Summary[] }).maps.map((map) => [map.id, map]));
    const listed = maps.get('west-oakland')!;
    const view = openingView(extent);
    assert.deepEqual(listed.bounds, extent);
    close(listed.center, view, 'centre');
    assert.equal(listed.center[2], 14);
    assert.deepEqual([listed.name, listed.schema, listed.minzoom, listed.maxzoom], ['west-oakland streets', 'openmaptiles', 0, 22]);
    assert.equal(listed.thumbnail, `http://localhost:80/api/maps/west-oakland/static/${extent.join(',')}/256x192.png?key=${key}`);
    const thumbnail = await get(new URL(listed.thumbnail).pathname);
    assert.equal(thumbnail.headers['content-type'], 'image/png');
    assert.ok((await colours(thumbnail.rawPayload)).size > 10, 'the thumbnail shows the streets');
    assert.equal(maps.get('west-oakland-dark')!.schema, 'openmaptiles');
    const world = maps.get('world')!;
    assert.ok(world.bounds[0]! <= -180 && world.bounds[2]! >= 180 && world.bounds[1]! < -85 && world.bounds[3]! > 85, `world: ${world.bounds}`);
    close(world.center.slice(1), [0, 0], 'world centre');
    assert.equal(world.schema, null);

    const style = (await get('/maps/west-oakland/style.json')).json() as { center: number[]; zoom: number };
    close([...style.center, style.zoom], view, 'style.json');

    const vector = (await get('/maps/west-oakland/sources/openmaptiles.json')).json() as { bounds: number[]; center: number[]; maxzoom: number };
    assert.deepEqual(vector.bounds, extent);
    close(vector.center, view, 'vector TileJSON');
    for (const [prefix, shift] of [['', 0], ['/256', 1]] as const) {
      const raster = (await get(`/maps/west-oakland${prefix}/tiles.json`)).json() as { bounds: number[]; center: number[] };
      assert.deepEqual(raster.bounds, extent, `raster TileJSON${prefix}`);
      close(raster.center, [view[0]!, view[1]!, view[2]! + shift], `raster TileJSON${prefix}`);
    }

    // WMTS: the bounding box, and per matrix the tiles the box touches.
    const xml = (await get('/maps/west-oakland/WMTSCapabilities.xml')).body;
    const text = (name: string) => new RegExp(`<ows:${name}>([^<]*)</ows:${name}>`).exec(xml)![1]!;
    assert.deepEqual([...text('LowerCorner').split(' '), ...text('UpperCorner').split(' ')].map(Number), extent);
    for (const [set, maxzoom] of [['GoogleMapsCompatible', 23], ['WebMercatorQuad512', 22]] as const) {
      const limits = matrixLimits(xml, set);
      assert.equal(limits.length, maxzoom + 1, set);
      for (const limit of limits) assert.deepEqual(limit, annexLimits(extent, limit[0]!), `${set} matrix ${limit[0]}`);
    }

    // North of the header's box (37.80914), where the streets stopped on a straight line when the
    // maps' bounds were the header's: Campbell and Willow Street cross this view.
    const image = await get('/api/maps/west-oakland/static/-122.2920,37.8120,16/512x512.png?attribution=false');
    const roadColour = (readStyle('streets').layers.find((layer) => layer.id === 'road-minor') as { paint: { 'line-color': string } }).paint['line-color'];
    const road = (await colours(image.rawPayload)).get(roadColour) ?? 0;
    assert.ok(road > 100, `${road} pixels of the streets' colour ${roadColour}`);
  } finally {
    await server.close();
  }
});

test('importing again replaces the maps atomically; a failed import leaves them serving; older versions go', async () => {
  const dir = mapsFolder();
  await importExtract(KIRCHBERG, { mapsDir: dir, id: 'kirchberg', maxzoom: 13, geocodingIndex: (options) => writeGeocodingIndex({ ...options, dataDir: tempDir() }) });
  const first = definitionOf(dir, 'kirchberg').style;
  // Here the data lies inside the header's box (10.068,48.135,10.071,48.137): the data's extent all the same.
  assert.deepEqual(definitionOf(dir, 'kirchberg').bounds, osmiumDataExtent(KIRCHBERG));

  const bad = path.join(tempDir(), 'broken.osm');
  writeFileSync(bad, '<?xml version="1.0"?>\n<osm version="0.6"><node id="1" lat="48.1" lon="10.0"');
  await assert.rejects(importExtract(bad, { mapsDir: dir, id: 'kirchberg' }), ExtractError);
  assert.equal(definitionOf(dir, 'kirchberg').style, first);
  assert.ok(existsSync(path.join(dir, path.dirname(first), 'openmaptiles.pmtiles')));
  assert.ok(existsSync(path.join(dir, path.dirname(first), 'geocoding.v8')), 'the index stays with the maps a failed import left serving');

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
