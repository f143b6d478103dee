import assert from 'node:assert/strict';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile';
import { validateStyleMin, type StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { PbfReader } from 'pbf';
import { parseDefinition } from '../../../src/maps/definition.js';
import { buildWorld, stylePath, type BuiltWorld } from '../../../src/tools/world/build.js';
import { layerSpecs } from '../../../src/tools/world/layers.js';
import { openArchive, type Archive } from '../../../src/platform/pmtiles.js';
import { progressOn } from '../../../src/platform/progress.js';

// A small world, zooms 0 to 3 from the coarser data: the top part and the parts below are both cut.
const maxzoom = 3;
let dir: string;
let built: BuiltWorld;
let archive: Archive;
/** What the build's progress wrote, as off a terminal. */
let progressText = '';

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'meridian-world-'));
  built = await buildWorld(dir, { maxzoom, progress: progressOn({ write: (text: string) => (progressText += text) }) });
  archive = await openArchive(built.archive);
});

after(async () => {
  await archive?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('the build shows its phases and how far the cutting is, to 100%', () => {
  const lines = progressText.trim().split('\n');
  assert.equal(lines[0], 'Reading Natural Earth and GSHHG…');
  const cutting = lines.filter((line) => line.startsWith('Cutting tiles'));
  const percents = cutting.flatMap((line) => /: (\d+)%/.exec(line)?.[1] ?? []).map(Number);
  assert.ok(percents.length >= 3, `several steps: ${cutting.join(' | ')}`);
  assert.deepEqual(percents, [...percents].sort((a, b) => a - b), 'never backwards');
  assert.ok(percents.some((percent) => percent > 0 && percent < 100), 'steps between the ends');
  assert.ok(lines.some((line) => /^Cutting tiles: done in \d+ s$/.test(line)), lines.join('\n'));
  assert.ok(lines.some((line) => line.startsWith('Writing the archive')));
});

async function tile(z: number, x: number, y: number): Promise<VectorTile> {
  const data = await archive.tile(z, x, y);
  assert.ok(data, `tile ${z}/${x}/${y}`);
  return new VectorTile(new PbfReader(data));
}

function features(vt: VectorTile, layer: string): VectorTileFeature[] {
  const l = vt.layers[layer];
  return l ? Array.from({ length: l.length }, (_, i) => l.feature(i)) : [];
}

test('the build writes the definition, the style and the archive where the definition says', async () => {
  assert.equal(built.definition, path.join(dir, 'world.json'));
  const definition = parseDefinition(JSON.parse(await readFile(built.definition, 'utf8')));
  assert.equal(definition.style, 'world/style.json');
  assert.match(definition.attribution ?? '', /Natural Earth/);
  assert.deepEqual([definition.minzoom, definition.maxzoom], [0, 22]);
  assert.equal(path.resolve(dir, definition.style as string), built.style);
  assert.equal(built.archive, path.join(path.dirname(built.style), 'world.pmtiles'));
  // Zooms 0 to 3 have 85 tiles, less those of open ocean.
  assert.ok(built.tiles > 40 && built.tiles < 85, String(built.tiles));
  assert.ok(built.bytes > 0);
});

test('the archive holds gzipped vector tiles of zooms 0 to maxzoom and lists its layers', async () => {
  assert.equal(archive.tileType, 'mvt');
  assert.equal(archive.tileCompression, 'gzip');
  assert.deepEqual([archive.minZoom, archive.maxZoom], [0, maxzoom]);
  const metadata = (await archive.metadata()) as { vector_layers: { id: string }[] };
  assert.deepEqual(metadata.vector_layers.map((layer) => layer.id), layerSpecs.map((spec) => spec.id));
  // The first stored tile, at the header's data offset, starts with gzip's magic number.
  const file = await open(built.archive);
  try {
    const header = Buffer.alloc(127);
    await file.read(header, 0, 127, 0);
    const magic = Buffer.alloc(2);
    await file.read(magic, 0, 2, Number(header.readBigUInt64LE(56)));
    assert.deepEqual([...magic], [0x1f, 0x8b]);
  } finally {
    await file.close();
  }
});

test('tile 0/0/0 has the land, named and tinted countries, borders, coastlines and lakes', async () => {
  const vt = await tile(0, 0, 0);
  for (const layer of ['land', 'countries', 'boundaries', 'coastline', 'lakes']) {
    assert.ok(features(vt, layer).length > 0, layer);
    assert.equal(vt.layers[layer]!.extent, 4096);
  }
  const countries = features(vt, 'countries');
  const names = countries.map((f) => f.properties.name);
  for (const name of ['France', 'Brazil', 'Australia', 'Russia', 'Antarctica']) assert.ok(names.includes(name), name);
  const brazil = countries.find((f) => f.properties.name === 'Brazil')!;
  assert.equal(brazil.properties.iso_n3, '076');
  assert.equal(brazil.type, 3);
  for (const { properties } of countries) {
    assert.ok(Number.isInteger(properties.color) && (properties.color as number) >= 0 && (properties.color as number) < 5);
  }
  assert.equal(features(vt, 'boundaries')[0]!.type, 2);
  assert.equal(features(vt, 'coastline')[0]!.type, 2);
});

test('rivers appear at zoom 3 and not before, with their class and rank', async () => {
  for (const [z, x, y] of [[0, 0, 0], [1, 1, 0], [2, 2, 1]] as const) assert.equal((await tile(z, x, y)).layers.rivers, undefined);
  // Zoom 3 over Europe and western Russia: the Volga and the Danube are major rivers.
  const rivers = features(await tile(3, 4, 2), 'rivers');
  assert.ok(rivers.length > 0);
  for (const { properties, type } of rivers) {
    assert.equal(type, 2);
    assert.equal(properties.class, 'river');
    assert.equal(properties.rank, 1);
  }
});

test('names: oceans from zoom 1, countries and the largest capitals by zoom 2, cities by population', async () => {
  assert.equal((await tile(0, 0, 0)).layers.marine, undefined);
  const oceans = features(await tile(1, 0, 0), 'marine').map((f) => f.properties.name);
  assert.ok(oceans.includes('Pacific Ocean') && oceans.includes('Atlantic Ocean'), oceans.join());
  assert.ok(!oceans.includes('North Sea'));
  // Zoom 3 over Europe: Paris (a capital of 2 million), France and the North Sea.
  const europe = await tile(3, 4, 2);
  const places = features(europe, 'places');
  const paris = places.find((f) => f.properties.name === 'Paris');
  assert.ok(paris, places.map((f) => f.properties.name).join());
  assert.equal(paris.type, 1);
  assert.equal(paris.properties.class, 'capital');
  assert.ok((paris.properties.population as number) > 2_000_000);
  assert.ok(features(europe, 'country_labels').some((f) => f.properties.name === 'France'));
  assert.ok(features(europe, 'marine').some((f) => f.properties.name === 'North Sea'));
  // Ranks order the places by population, the most populous first.
  const ranked = [...places].sort((a, b) => (a.properties.rank as number) - (b.properties.rank as number));
  const populations = ranked.map((f) => f.properties.population as number);
  assert.deepEqual(populations, [...populations].sort((a, b) => b - a));
});

test('no tile carries the build-internal minzoom tag', async () => {
  for (const [z, x, y] of [[0, 0, 0], [2, 2, 1], [3, 4, 2], [3, 2, 3]] as const) {
    const vt = await tile(z, x, y);
    for (const name of Object.keys(vt.layers)) {
      for (const { properties } of features(vt, name)) assert.ok(!('_minzoom' in properties), `${z}/${x}/${y} ${name}`);
    }
  }
});

test('tiles of open ocean are not stored: the style draws water where there is no tile', async () => {
  // The South Pacific, far from any island.
  assert.equal(await archive.tile(3, 1, 5), null);
  assert.ok(await archive.tile(3, 4, 2));
});

test('the style is valid, reads the archive through pmtiles:// and uses only layers the archive has', async () => {
  const style = JSON.parse(await readFile(built.style, 'utf8')) as StyleSpecification;
  assert.deepEqual(validateStyleMin(style), []);
  const committed = JSON.parse(await readFile(stylePath, 'utf8')) as StyleSpecification;
  assert.deepEqual(style.layers, committed.layers);
  const source = style.sources.world as { type: string; url: string; maxzoom: number; tileSize: number; attribution: string };
  assert.deepEqual(
    { type: source.type, url: source.url, maxzoom: source.maxzoom, tileSize: source.tileSize },
    { type: 'vector', url: 'pmtiles://world.pmtiles', maxzoom, tileSize: 512 },
  );
  // Text comes from the font catalog by name; the placeholder only satisfies the style spec.
  assert.equal(style.glyphs, 'meridian://fonts/{fontstack}/{range}.pbf');
  const metadata = (await archive.metadata()) as { vector_layers: { id: string }[] };
  for (const layer of style.layers) {
    assert.ok(['background', 'fill', 'line', 'symbol'].includes(layer.type), layer.id);
    if ('source-layer' in layer) {
      assert.ok(metadata.vector_layers.some((v) => v.id === layer['source-layer']), `${layer.id} reads ${layer['source-layer']}`);
    }
  }
});
