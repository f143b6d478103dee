import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { namedFlavor } from '@protomaps/basemaps';
import { defaultConfig } from '../../../src/config.js';
import { MapRegistry } from '../../../src/maps/registry.js';
import { openArchive, writeArchive } from '../../../src/platform/pmtiles.js';
import { compileStyle } from '../../../src/render/style/style.js';
import { addArchive, idFromArchive } from '../../../src/tools/osm/add.js';
import { ArchiveError } from '../../../src/tools/osm/added-archive.js';
import { MapsUsageError } from '../../../src/tools/osm/publish.js';
import { acquireLock } from '../../../src/platform/storage/lock.js';
import { repoRoot } from '../../render/suite/cases.js';
import { colours, pmtilesHeaderExtent, renderPng } from './street-maps.js';
import { freePort, tempDir } from '../../scratch.js';

const town = path.join(repoRoot, 'test/fixtures/render/_data/town');
const TOWN_OMT = path.join(town, 'openmaptiles.pmtiles');
const TOWN_PROTOMAPS = path.join(town, 'protomaps.pmtiles');
const KIRCHBERG_MBTILES = path.join(repoRoot, 'test/fixtures/osm/kirchberg.mbtiles');
const TOWN_CENTER: [number, number] = [8.3165, 47.2212];

/** A maps folder with the world map (the fixture cut of it), as after setup. */
function mapsFolder(): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'world'));
  copyFileSync(path.join(repoRoot, 'test/fixtures/osm/world.pmtiles'), path.join(dir, 'world', 'world.pmtiles'));
  return dir;
}

/** The maps folder's definitions and version folders: what a failed add must leave as it was. */
function published(dir: string): string[] {
  const versions = existsSync(path.join(dir, 'osm')) ? readdirSync(path.join(dir, 'osm'), { recursive: true, encoding: 'utf8' }).filter((entry) => !entry.endsWith('.lock')) : [];
  return [...readdirSync(dir).filter((name) => name.endsWith('.json')), ...versions].sort();
}

async function withRegistry<T>(dir: string, use: (registry: MapRegistry) => Promise<T>): Promise<T> {
  const registry = await MapRegistry.open({ dataDir: dir, maps: { ...defaultConfig.maps, dir } });
  try {
    assert.deepEqual(registry.loadErrors(), []);
    return await use(registry);
  } finally {
    await registry.close();
  }
}

function render(registry: MapRegistry, id: string, center: [number, number], zoom: number): Promise<Buffer> {
  return renderPng(registry.get(id)!, center, zoom);
}


const styleOf = (dir: string, id: string) => {
  const definition = JSON.parse(readFileSync(path.join(dir, `${id}.json`), 'utf8')) as { style: string };
  return { file: path.join(dir, definition.style), style: JSON.parse(readFileSync(path.join(dir, definition.style), 'utf8')) as Record<string, unknown> & { layers: Layer[] } };
};

interface Layer {
  id: string;
  'source-layer'?: string;
  filter?: unknown;
  layout?: Record<string, unknown>;
}

/**
 * The images an `icon-image` value can name, evaluated here from the expression (not from the
 * module's own list): `["get", "kind"]` is any POI kind the layer's filter lets through (less those
 * a `match` took), and a `concat` of a shield prefix, the ref's length and "char" any length up to 5.
 */
function iconNames(value: unknown, kinds: readonly string[]): string[] {
  if (typeof value === 'string') return value === '' ? [] : [value];
  const [op, ...args] = value as [string, ...unknown[]];
  const each = (items: unknown[]) => items.flatMap((item) => iconNames(item, kinds));
  switch (op) {
    case 'get':
      assert.equal(args[0], 'kind');
      return [...kinds];
    case 'match': {
      // The fallback sees only the kinds no branch took.
      const labels = args.slice(1, -1).filter((_, i) => i % 2 === 0).flat();
      const rest = kinds.filter((kind) => !labels.includes(kind));
      return [...each(args.slice(1, -1).filter((_, i) => i % 2 === 1)), ...iconNames(args[args.length - 1], rest)];
    }
    case 'case':
      return each([...args.slice(0, -1).filter((_, i) => i % 2 === 1), args[args.length - 1]]);
    case 'step':
      return each(args.slice(1).filter((_, i) => i % 2 === 0));
    case 'concat': {
      assert.equal(args[2], 'char');
      return [1, 2, 3, 4, 5].flatMap((n) => iconNames(args[0], kinds).map((prefix) => `${prefix}${n}char`));
    }
    default:
      throw new Error(`icon-image operator ${op}`);
  }
}

/** The POI kinds a layer's filter lets through: the literal list of its `in` test on `kind`. */
function filterKinds(filter: unknown): string[] {
  if (!Array.isArray(filter)) return [];
  if (filter[0] === 'in' && JSON.stringify(filter[1]) === '["get","kind"]' && Array.isArray(filter[2]) && filter[2][0] === 'literal') return filter[2][1] as string[];
  return filter.flatMap(filterKinds);
}

test('an OpenMapTiles archive gets the street styles over a copy of it, drawn over the world map', async () => {
  const dir = mapsFolder();
  const result = await addArchive(TOWN_OMT, { mapsDir: dir, id: 'town' });
  assert.deepEqual(result.maps, ['town', 'town-light', 'town-dark']);
  assert.equal(result.schema, 'openmaptiles');
  // Tiles hold no index of names: nothing for geocoding, and the result says so.
  assert.match(result.geocoding, /^not indexed: .*maps import/);
  assert.equal(existsSync(path.join(path.dirname(result.archive), 'geocoding.v8')), false);
  // A copy: its own file with the same bytes, not a link to the original.
  assert.deepEqual(readFileSync(result.archive), readFileSync(TOWN_OMT));
  assert.notEqual(statSync(result.archive).ino, statSync(TOWN_OMT).ino);
  const { style } = styleOf(dir, 'town');
  assert.deepEqual(style.sources, {
    openmaptiles: { type: 'vector', url: 'pmtiles://openmaptiles.pmtiles' },
    world: { type: 'vector', url: 'pmtiles://../../../world/world.pmtiles' },
  });
  // The maps' bounds and centre are the archive's, as its header gives them (PMTiles v3 layout).
  const header = pmtilesHeaderExtent(TOWN_OMT);
  for (const id of result.maps) {
    const definition = JSON.parse(readFileSync(path.join(dir, `${id}.json`), 'utf8')) as { bounds: number[]; center: number[]; schema: string };
    assert.deepEqual([definition.bounds, definition.center, definition.schema], [header.bounds, header.center, 'openmaptiles'], id);
  }
  await withRegistry(dir, async (registry) => {
    assert.deepEqual(registry.ids(), ['town', 'town-dark', 'town-light']);
    assert.deepEqual([registry.get('town')!.bounds, registry.get('town')!.center], [header.bounds, header.center]);
    const pixels = await colours(await render(registry, 'town', TOWN_CENTER, 15));
    assert.ok(pixels.size > 10, `the town at zoom 15 has ${pixels.size} colours`);
  });
  assert.equal(idFromArchive('/data/Town Centre.pmtiles', ['']), 'town-centre');
});

test('a Protomaps v4 archive gets the five flavours, with local glyphs and a sprite holding every image they name', async () => {
  const dir = mapsFolder();
  const result = await addArchive(TOWN_PROTOMAPS, { mapsDir: dir });
  assert.equal(result.schema, 'protomaps');
  assert.deepEqual(result.maps, ['protomaps', 'protomaps-dark', 'protomaps-white', 'protomaps-grayscale', 'protomaps-black']);
  for (const id of result.maps) {
    const { file, style } = styleOf(dir, id);
    assert.doesNotMatch(JSON.stringify(style), /https?:/, `${id} fetches nothing from the web`);
    assert.equal(style.glyphs, 'meridian://fonts/{fontstack}/{range}.pbf');
    assert.deepEqual(compileStyle(style as unknown as StyleSpecification).warnings, [], `${id} draws every property`);
    const index = JSON.parse(readFileSync(path.join(path.dirname(file), `${style.sprite as string}.json`), 'utf8')) as Record<string, unknown>;
    for (const layer of style.layers) {
      const image = layer.layout?.['icon-image'];
      if (image === undefined) continue;
      for (const name of iconNames(image, filterKinds(layer.filter))) assert.ok(name in index, `${id}/${layer.id}: no image "${name}" in the sprite`);
    }
  }
  // Light has POIs, so its sprite has their icons; black has none.
  assert.ok(iconNamesIn(dir, 'protomaps').includes('cafe'));
  assert.ok(!iconNamesIn(dir, 'protomaps-black').includes('cafe'));
  await withRegistry(dir, async (registry) => {
    for (const [id, flavour] of [['protomaps', 'light'], ['protomaps-dark', 'dark']] as const) {
      const earth = namedFlavor(flavour).earth.toLowerCase();
      const pixels = await colours(await render(registry, id, TOWN_CENTER, 14));
      assert.ok((pixels.get(earth) ?? 0) > 1000, `${id}: the flavour's land colour ${earth} covers ${pixels.get(earth) ?? 0} pixels`);
    }
  });
});

function iconNamesIn(dir: string, id: string): string[] {
  const { file, style } = styleOf(dir, id);
  return Object.keys(JSON.parse(readFileSync(path.join(path.dirname(file), `${style.sprite as string}.json`), 'utf8')) as object);
}

test('an MBTiles file is converted to PMTiles with the same tiles, its compression told from them', async () => {
  const dir = mapsFolder();
  const result = await addArchive(KIRCHBERG_MBTILES, { mapsDir: dir });
  assert.deepEqual(result.maps, ['kirchberg', 'kirchberg-light', 'kirchberg-dark']);
  const db = new Database(KIRCHBERG_MBTILES, { readonly: true });
  const archive = await openArchive(result.archive);
  try {
    assert.equal(archive.tileType, 'mvt');
    assert.equal(archive.tileCompression, 'gzip');
    const rows = db.prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data FROM tiles').all() as { z: number; x: number; row: number; data: Buffer }[];
    assert.equal(archive.maxZoom, Math.max(...rows.map((row) => row.z)));
    const { gunzipSync } = await import('node:zlib');
    for (const { z, x, row, data } of rows.filter((_, i) => i % 7 === 0)) {
      assert.deepEqual(Buffer.from((await archive.tile(z, x, 2 ** z - 1 - row))!), gunzipSync(data), `tile ${z}/${x}/${row}`);
    }
    const metadata = (await archive.metadata()) as { vector_layers: { id: string }[] };
    assert.ok(metadata.vector_layers.some((layer) => layer.id === 'transportation'));
  } finally {
    db.close();
    await archive.close();
  }
  // Bounds and centre from the file's metadata rows, in the maps and in the converted archive's header.
  const metadata = new Database(KIRCHBERG_MBTILES, { readonly: true });
  const rows = new Map((metadata.prepare("SELECT name, value FROM metadata WHERE name IN ('bounds', 'center')").all() as { name: string; value: string }[]).map((row) => [row.name, row.value.split(',').map(Number)]));
  metadata.close();
  assert.deepEqual(pmtilesHeaderExtent(result.archive), { bounds: rows.get('bounds'), center: rows.get('center') });
  await withRegistry(dir, async (registry) => {
    assert.deepEqual(registry.ids(), ['kirchberg', 'kirchberg-dark', 'kirchberg-light']);
    assert.deepEqual([registry.get('kirchberg')!.bounds, registry.get('kirchberg')!.center, registry.get('kirchberg')!.schema], [rows.get('bounds'), rows.get('center'), 'openmaptiles']);
  });
});

/** An MBTiles file of raster tiles made here: zooms 0 and 1, every tile one colour, `size` pixels wide. */
async function rasterMbtiles(file: string, size: number, colour: string): Promise<void> {
  const png = await sharp({ create: { width: size, height: size, channels: 3, background: colour } }).png().toBuffer();
  const db = new Database(file);
  db.exec('CREATE TABLE metadata (name TEXT, value TEXT); CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)');
  const meta = db.prepare('INSERT INTO metadata VALUES (?, ?)');
  for (const [name, value] of [['name', 'flat'], ['format', 'png'], ['attribution', 'Made in the test']]) meta.run(name, value);
  const insert = db.prepare('INSERT INTO tiles VALUES (?, ?, ?, ?)');
  insert.run(0, 0, 0, png);
  for (let x = 0; x < 2; x++) for (let y = 0; y < 2; y++) insert.run(1, x, y, png);
  db.close();
}

test('raster tiles get one raster style at their own tile size', async () => {
  const dir = mapsFolder();
  const file = path.join(tempDir(), 'flat.mbtiles');
  await rasterMbtiles(file, 512, '#3a7d44');
  const result = await addArchive(file, { mapsDir: dir });
  assert.deepEqual(result.maps, ['flat']);
  assert.equal(result.schema, 'raster');
  const { style } = styleOf(dir, 'flat');
  assert.deepEqual(style.sources, { raster: { type: 'raster', url: 'pmtiles://raster.pmtiles', tileSize: 512 } });
  const archive = await openArchive(result.archive);
  assert.equal(archive.tileType, 'png');
  assert.equal(archive.tileCompression, 'none');
  await archive.close();
  await withRegistry(dir, async (registry) => {
    const pixels = await colours(await render(registry, 'flat', [0, 0], 1));
    assert.equal(pixels.get('#3a7d44'), 256 * 256);
  });
});

/**
 * An HTTP server on 127.0.0.1 serving files by range requests as a static host does, or failing as
 * asked: `/full/<name>` answers ranges with 200 and the whole file, `/short/<name>` serves the first
 * half of the file as if it were all of it.
 */
async function rangeServer(files: Record<string, string>): Promise<{ base: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.url} ${request.headers.range ?? ''}`);
    const [, mode, name] = /^\/(?:(full|short)\/)?(.+)$/.exec(request.url ?? '') ?? [];
    const file = name ? files[name] : undefined;
    if (!file) return response.writeHead(404, 'Not Found').end();
    let bytes = readFileSync(file);
    if (mode === 'short') bytes = bytes.subarray(0, bytes.length >> 1);
    const range = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
    if (!range || mode === 'full') return response.writeHead(200, { 'content-length': bytes.length }).end(bytes);
    const start = Number(range[1]);
    const end = Math.min(range[2] ? Number(range[2]) : bytes.length - 1, bytes.length - 1);
    if (start >= bytes.length) return response.writeHead(416, { 'content-range': `bytes */${bytes.length}` }).end();
    response.writeHead(206, { 'content-range': `bytes ${start}-${end}/${bytes.length}`, 'content-length': end - start + 1 }).end(bytes.subarray(start, end + 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server, requests };
}

test('a remote archive is read by range requests at add time and stays remote: the styles point at its URL', async () => {
  const dir = mapsFolder();
  const { base, requests } = await rangeServer({ 'town.pmtiles': TOWN_PROTOMAPS });
  const url = `${base}/town.pmtiles`;
  const result = await addArchive(url, { mapsDir: dir });
  assert.deepEqual(result.maps, ['town', 'town-dark', 'town-white', 'town-grayscale', 'town-black']);
  assert.equal(result.archive, url);
  assert.equal(result.bytes, null);
  assert.ok(requests.length > 0 && requests.every((line) => / bytes=\d+-\d+$/.test(line)), requests.join('\n'));
  const { file, style } = styleOf(dir, 'town');
  assert.deepEqual(style.sources, { protomaps: { type: 'vector', url: `pmtiles://${url}` } });
  assert.deepEqual(readdirSync(path.dirname(file)).filter((name) => name.endsWith('.pmtiles')), []);
  await withRegistry(dir, async (registry) => {
    const earth = namedFlavor('light').earth.toLowerCase();
    const pixels = await colours(await render(registry, 'town', TOWN_CENTER, 14));
    assert.ok((pixels.get(earth) ?? 0) > 1000);
  });
});

test('bad archives and URLs are refused with the file or URL and the problem, and nothing is published', async () => {
  const dir = mapsFolder();
  await addArchive(TOWN_OMT, { mapsDir: dir, id: 'town' });
  const before = published(dir);
  const work = tempDir();
  const write = (name: string, bytes: Uint8Array | string) => {
    const file = path.join(work, name);
    writeFileSync(file, bytes);
    return file;
  };
  const pmtiles = readFileSync(TOWN_OMT);
  const mbtiles = readFileSync(KIRCHBERG_MBTILES);
  const notMbtiles = path.join(work, 'other.mbtiles');
  new Database(notMbtiles).exec('CREATE TABLE things (a)').close();
  const protomapsV3 = path.join(work, 'v3.pmtiles');
  await writeArchive(protomapsV3, [{ z: 0, x: 0, y: 0, data: new Uint8Array([0x1a, 0x00]) }], {
    tileType: 'mvt',
    minZoom: 0,
    maxZoom: 0,
    bounds: [-180, -85, 180, 85],
    center: [0, 0, 0],
    metadata: { name: 'Protomaps Basemap', version: '3.7.1', vector_layers: ['earth', 'natural', 'water', 'roads', 'places', 'physical_line'].map((id) => ({ id, fields: {} })) },
  });
  const { base } = await rangeServer({ 'town.pmtiles': TOWN_OMT, 'notes.pmtiles': path.join(repoRoot, 'package.json') });
  const closed = `http://127.0.0.1:${await freePort()}/town.pmtiles`;

  const cases: [string, RegExp][] = [
    [write('notes.pmtiles', 'not tiles at all\n'), /notes\.pmtiles is neither a PMTiles archive nor an MBTiles file/],
    [write('empty.pmtiles', ''), /empty\.pmtiles is empty/],
    [path.join(work, 'missing.pmtiles'), /cannot read .*missing\.pmtiles: ENOENT/],
    [write('cut.pmtiles', pmtiles.subarray(0, pmtiles.length - 1000)), /cut\.pmtiles is truncated: \d+ bytes, where its header needs \d+/],
    [write('cut.mbtiles', mbtiles.subarray(0, mbtiles.length >> 1)), /cut\.mbtiles is truncated: \d+ bytes, where its SQLite header needs \d+/],
    [notMbtiles, /other\.mbtiles is an SQLite database but not an MBTiles file: it has no metadata and no tiles table/],
    [path.join(repoRoot, 'test/fixtures/osm/world.pmtiles'), /world\.pmtiles: no known schema \(its layers are land, countries, lakes, rivers, coastline, boundaries, marine, country_labels, places\)/],
    [protomapsV3, /v3\.pmtiles is a Protomaps basemap of version 3\.7\.1; the Protomaps styles draw version 4/],
    [`${base}/gone.pmtiles`, new RegExp(`${base}/gone\\.pmtiles: HTTP 404 Not Found`)],
    [`${base}/full/town.pmtiles`, /full\/town\.pmtiles: the server does not answer range requests/],
    [`${base}/short/town.pmtiles`, /short\/town\.pmtiles is truncated/],
    [`${base}/notes.pmtiles`, /notes\.pmtiles is not a PMTiles archive/],
    [closed, new RegExp(`cannot read ${closed.replaceAll('.', '\\.')}: ECONNREFUSED`)],
  ];
  for (const [input, message] of cases) {
    await assert.rejects(addArchive(input, { mapsDir: dir, id: 'town' }), (error: Error) => {
      assert.ok(error instanceof ArchiveError, `${input}: ${error.message}`);
      assert.match(error.message, message);
      return true;
    });
  }
  assert.deepEqual(published(dir), before);
});

test('one build of an id at a time, whichever command runs it; a bad --id is refused', async () => {
  const dir = mapsFolder();
  mkdirSync(path.join(dir, 'osm', 'busy'), { recursive: true });
  const release = acquireLock(path.join(dir, 'osm', 'busy', '.lock'));
  try {
    await assert.rejects(addArchive(TOWN_OMT, { mapsDir: dir, id: 'busy' }), /another import of "busy" is running/);
  } finally {
    release();
  }
  await assert.rejects(addArchive(TOWN_OMT, { mapsDir: dir, id: 'no spaces' }), MapsUsageError);
  // Protomaps' longest suffix, -grayscale, leaves 54 characters.
  await assert.rejects(addArchive(TOWN_PROTOMAPS, { mapsDir: dir, id: 'p'.repeat(55) }), /--id must be 1 to 54 of/);
  assert.deepEqual(published(dir), ['busy']);
});
