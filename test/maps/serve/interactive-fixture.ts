/**
 * A small map for the interactive-map route tests, written to a temporary folder: a gzipped and a
 * plain vector PMTiles archive, a PNG MBTiles file, a folder of terrarium DEM tiles, GeoJSON from
 * a file and inline, and two sprites (one with @2x files, one without). Map `test` has the
 * sprite as one URL, map `arrays` as the array form.
 */

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { createCanvas } from '@napi-rs/canvas';
import type { LightMyRequestResponse } from 'fastify';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { tempDir } from '../../scratch.js';
import { collection, mvtPyramid, point, solidImage, writeMbtiles, writePmtiles, type ZxyTile } from '../../render/source/fixtures.js';

export interface FixtureMap {
  dir: string;
  /** Map definitions for `maps.definitions`. */
  definitions: Record<string, { style: string }>;
  /** The tiles as stored in places.pmtiles (gzipped) and plain.pmtiles. */
  gzipped: ZxyTile[];
  plain: ZxyTile[];
  raster: ZxyTile[];
  dem: Uint8Array;
  labels: string;
  sprites: Record<string, Buffer>;
}

export const places = collection(point(-120, 40, { name: 'west' }), point(120, -40, { name: 'east' }));

function spriteSheet(color: string, pixelRatio: number): { json: Buffer; png: Buffer } {
  const size = 8 * pixelRatio;
  const canvas = createCanvas(size, size);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = color;
  ctx.fillRect(0, 0, size, size);
  const json = { dot: { x: 0, y: 0, width: size, height: size, pixelRatio } };
  return { json: Buffer.from(JSON.stringify(json)), png: canvas.toBuffer('image/png') };
}

export async function writeFixtureMap(): Promise<FixtureMap> {
  const dir = tempDir();
  const plain = mvtPyramid(places, 3);
  const gzipped = plain.map((tile) => ({ ...tile, data: gzipSync(tile.data) }));
  await writePmtiles(path.join(dir, 'places.pmtiles'), gzipped, 'mvt', { attribution: '© Places', vector_layers: [{ id: 'places', fields: { name: 'String' } }] }, 'gzip');
  await writePmtiles(path.join(dir, 'plain.pmtiles'), plain, 'mvt');
  const raster = [
    { z: 0, x: 0, y: 0, data: solidImage('red') },
    { z: 1, x: 1, y: 0, data: solidImage('blue') },
  ];
  writeMbtiles(path.join(dir, 'raster.mbtiles'), raster, { format: 'png', minzoom: '0', maxzoom: '1', attribution: '© Raster' });
  const dem = solidImage('rgb(128, 0, 0)', 'png', 256);
  mkdirSync(path.join(dir, 'dem/0/0'), { recursive: true });
  writeFileSync(path.join(dir, 'dem/0/0/0.png'), dem);
  const labels = JSON.stringify(collection(point(10, 10, { name: 'ten' })));
  writeFileSync(path.join(dir, 'labels.geojson'), labels);

  mkdirSync(path.join(dir, 'sprites'));
  const sprites: Record<string, Buffer> = {};
  const sheets = { 'basic.': spriteSheet('#ff0000', 1), 'icons.': spriteSheet('#00ff00', 1), 'icons@2x.': spriteSheet('#0000ff', 2) };
  for (const [base, sheet] of Object.entries(sheets)) {
    for (const format of ['json', 'png'] as const) {
      sprites[`${base}${format}`] = sheet[format];
      writeFileSync(path.join(dir, 'sprites', `${base}${format}`), sheet[format]);
    }
  }

  const style = {
    version: 8,
    sprite: 'sprites/basic',
    glyphs: 'fonts/{fontstack}/{range}.pbf',
    sources: {
      places: { type: 'vector', url: 'pmtiles://places.pmtiles' },
      plain: { type: 'vector', url: 'pmtiles://plain.pmtiles', attribution: 'Plain' },
      // The western quarter of the world: tiles elsewhere are outside its bounds.
      bounded: { type: 'vector', url: 'pmtiles://plain.pmtiles', bounds: [-180, -60, -90, 60] },
      raster: { type: 'raster', url: 'mbtiles://raster.mbtiles', tileSize: 256, scheme: 'xyz' },
      dem: { type: 'raster-dem', tiles: ['dem/{z}/{x}/{y}.png'], encoding: 'terrarium', tileSize: 256, maxzoom: 0 },
      labels: { type: 'geojson', data: 'labels.geojson' },
      inline: { type: 'geojson', data: JSON.parse(labels) as object, maxzoom: 10 },
    },
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': '#e0e8f0' } },
      { id: 'places', type: 'circle', source: 'places', 'source-layer': 'places' },
      { id: 'labels', type: 'circle', source: 'labels' },
    ],
  };
  writeFileSync(path.join(dir, 'style.json'), JSON.stringify(style));
  const arrays = { ...style, sprite: [{ id: 'default', url: 'sprites/basic' }, { id: 'icons', url: 'sprites/icons' }] };
  writeFileSync(path.join(dir, 'arrays.json'), JSON.stringify(arrays));
  return {
    dir,
    definitions: { test: { style: path.join(dir, 'style.json') }, arrays: { style: path.join(dir, 'arrays.json') } },
    gzipped,
    plain,
    raster,
    dem,
    labels,
    sprites,
  };
}

/** A test server serving the fixture map, with a key of its own and a GET that carries it. */
export interface FixtureServer {
  fixture: FixtureMap;
  server: TestServer;
  key: string;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function startFixtureServer(overrides: Parameters<typeof testConfig>[0] = {}): Promise<FixtureServer> {
  const fixture = await writeFixtureMap();
  const server = await startTestServer(testConfig({ ...overrides, maps: { definitions: fixture.definitions as never } }));
  const key = (await server.meridian.keys.create((await newAccount(server.meridian)).accountId, {})).token;
  return {
    fixture,
    server,
    key,
    get: (url, headers = {}) => server.server.public.inject({ method: 'GET', url: `${url}?key=${encodeURIComponent(key)}`, headers }),
    async close() {
      await server.close();
      rmSync(fixture.dir, { recursive: true, force: true });
    },
  };
}
