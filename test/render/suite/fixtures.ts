/**
 * Writes test/fixtures/render/_data, the data the render cases share, from nothing but code (run it
 * again and every byte comes out the same):
 *   *.geojson                 the "card" layers (polygons, rows, segments, zigzags, points) and world
 *   vector/{z}/{x}/{y}.pbf    the card layers as MVT, zooms 0-6
 *   world/{z}/{x}/{y}.pbf     the world layer as MVT, zooms 0-3 (continents, graticule, antimeridian)
 *   raster512/, raster256/    colour blocks and a 1-px grid, 512- and 256-px PNG tiles, zooms 0-6
 *   dem-terrarium/, dem-mapbox/  synthetic hills in both raster-dem encodings, 256-px tiles at zoom 6
 *   sprites/sprite*, extra*  two sprites (1x and @2x) built from the SVGs of test/fixtures/sprites/
 *   town/                     the test town in the OpenMapTiles and Protomaps schemas, as PMTiles
 *                             archives with the styles that draw them (test/render/town/build.ts)
 * and leaves alone _data/streets, the real OpenStreetMap data of street-fixtures.ts.
 *
 * The card is the 256 x 256 view at zoom 5 centred on tile 5/16/15 (CARD_CENTER): its features are
 * laid out in that view's pixels so that a case at the canonical view shows them at known places.
 * Everything on the card lies inside that one tile, so zooms 0-5 need one tile and zoom 6 four.
 *
 * Run: npx tsc -p . && node dist/test/render/suite/fixtures.js
 */

import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import sharp from 'sharp';
import type { Feature, FeatureCollection, Geometry, Position } from 'geojson';
import { buildSprite } from '../../../src/tools/sprite/build.js';
import { project, unproject } from '../../../src/render/view/viewport.js';
import { buildTown } from '../town/build.js';
import { fixturesDir } from './cases.js';

const dataDir = path.join(fixturesDir, '_data');

/** The canonical view: zoom 5, centred on tile 5/16/15, whose pixels lay out the card. */
const CARD_ZOOM = 5;
const CARD_TILE = { x: 16, y: 15 };
const CARD_SIZE = 256;
const cardOrigin = [(CARD_TILE.x + 0.5) * 512 - CARD_SIZE / 2, (CARD_TILE.y + 0.5) * 512 - CARD_SIZE / 2] as const;
const CARD_CENTER = unproject((CARD_TILE.x + 0.5) * 512, (CARD_TILE.y + 0.5) * 512, CARD_ZOOM);

type Properties = Record<string, string | number | boolean>;

/** The position at pixel (x, y) of the canonical view, rounded to 1e-7 degrees (about a centimetre). */
function card(x: number, y: number): Position {
  const [lon, lat] = unproject(cardOrigin[0] + x, cardOrigin[1] + y, CARD_ZOOM);
  return [round7(lon), round7(lat)];
}

function round7(value: number): number {
  return Math.round(value * 1e7) / 1e7;
}

function feature(id: number, geometry: Geometry, properties: Properties): Feature {
  return { type: 'Feature', id, properties, geometry };
}

function ring(points: [number, number][]): Position[] {
  const positions = points.map(([x, y]) => card(x, y));
  return [...positions, positions[0]!];
}

function square(x: number, y: number, size: number): Position[] {
  return ring([[x, y], [x + size, y], [x + size, y + size], [x, y + size]]);
}

const PALETTE = ['#e63946', '#f4a261', '#2a9d8f', '#457b9d', '#8338ec', '#ffb703', '#06d6a0'];

/** Six 64-px shapes in 3 columns x 2 rows: square, square with a hole, diamond, triangle, star, two squares. */
function polygons(): Feature[] {
  return Array.from({ length: 6 }, (_, index) => {
    const [row, col] = [Math.floor(index / 3), index % 3];
    const [x, y] = [24 + 72 * col, 40 + 96 * row];
    const id = index + 1;
    const star = Array.from({ length: 10 }, (_, k): [number, number] => {
      const angle = (k * Math.PI) / 5 - Math.PI / 2;
      const radius = k % 2 === 0 ? 32 : 13;
      return [x + 32 + radius * Math.cos(angle), y + 32 + radius * Math.sin(angle)];
    });
    const geometries: Geometry[] = [
      { type: 'Polygon', coordinates: [square(x, y, 64)] },
      { type: 'Polygon', coordinates: [square(x, y, 64), square(x + 20, y + 20, 24).reverse()] },
      { type: 'Polygon', coordinates: [ring([[x + 32, y], [x + 64, y + 32], [x + 32, y + 64], [x, y + 32]])] },
      { type: 'Polygon', coordinates: [ring([[x, y + 64], [x + 32, y], [x + 64, y + 64]])] },
      { type: 'Polygon', coordinates: [ring(star)] },
      { type: 'MultiPolygon', coordinates: [[square(x, y, 28)], [square(x + 36, y + 36, 28)]] },
    ];
    const properties: Properties = { id, row, col, kind: 'abc'[col]!, rank: id, height: id * 20, color: PALETTE[index]! };
    if (id % 2 === 1) properties.label = `shape ${id}`;
    return feature(id, geometries[index]!, properties);
  });
}

/** Seven horizontal lines, 32 px apart, running past both edges of the view. */
function rows(): Feature[] {
  return Array.from({ length: 7 }, (_, row) =>
    feature(row + 1, { type: 'LineString', coordinates: [card(-40, 32 * (row + 1)), card(296, 32 * (row + 1))] }, {
      row,
      class: ['major', 'minor', 'path'][row % 3]!,
      width: row + 1,
      color: PALETTE[row]!,
    }),
  );
}

/** Five short horizontal segments whose ends are in view, for caps. */
function segments(): Feature[] {
  return Array.from({ length: 5 }, (_, segment) =>
    feature(segment + 1, { type: 'LineString', coordinates: [card(72, 48 + 40 * segment), card(184, 48 + 40 * segment)] }, { segment }),
  );
}

/** Three identical zigzags whose turns go from wide to very sharp (miter lengths about 1.3 to 6). */
function zigzags(): Feature[] {
  const xs = [24, 88, 128, 152, 166, 174];
  return Array.from({ length: 3 }, (_, zig) => {
    const middle = 52 + 76 * zig;
    const points = xs.map((x, k): [number, number] => [x, middle + (k % 2 === 0 ? 24 : -24)]);
    points.push([232, middle - 24]);
    return feature(zig + 1, { type: 'LineString', coordinates: points.map(([x, y]) => card(x, y)) }, { zig });
  });
}

/** A 5 x 5 grid of points 40 px apart. */
function points(): Feature[] {
  return Array.from({ length: 25 }, (_, n) => {
    const [row, col] = [Math.floor(n / 5), n % 5];
    const properties: Properties = { n, row, col, kind: 'abcde'[col]!, size: 2 + 2 * row, flag: n % 3 === 0, color: PALETTE[col]! };
    if ((row + col) % 2 === 0) properties.label = `point ${n}`;
    return feature(n + 1, { type: 'Point', coordinates: card(48 + 40 * col, 48 + 40 * row) }, properties);
  });
}

/** A wobbly blob of radius `r` degrees around lon, lat. */
function blob(lon: number, lat: number, r: number): Position[] {
  const ring = Array.from({ length: 36 }, (_, k): Position => {
    const angle = (k * 2 * Math.PI) / 36;
    const radius = r * (1 + 0.25 * Math.sin(3 * angle) + 0.1 * Math.cos(5 * angle));
    return [round7(lon + radius * Math.cos(angle)), round7(lat + radius * Math.sin(angle))];
  });
  return [...ring, ring[0]!];
}

/**
 * Continents, a band around the south of the world, an island and a route across the antimeridian
 * (longitudes beyond 180, which the tiler wraps), points on both sides of it and a 30° graticule.
 */
function world(): Feature[] {
  const continents: [string, number, number, number][] = [
    ['north', -100, 45, 20],
    ['south', -60, -15, 15],
    ['middle', 15, 10, 22],
    ['east', 95, 45, 25],
    ['down', 135, -25, 12],
  ];
  const features: Feature[] = continents.map(([name, lon, lat, r], k) =>
    feature(k + 1, { type: 'Polygon', coordinates: [blob(lon, lat, r)] }, { kind: 'land', name }),
  );
  features.push(
    feature(10, { type: 'Polygon', coordinates: [[[-180, -70], [180, -70], [180, -80], [-180, -80], [-180, -70]]] }, { kind: 'land', name: 'band' }),
    feature(11, { type: 'Polygon', coordinates: [[[172, -6], [188, -6], [188, 8], [180, 3], [172, 8], [172, -6]]] }, { kind: 'land', name: 'island' }),
    feature(12, { type: 'LineString', coordinates: [[150, -10], [170, -2], [190, 6], [210, 15]] }, { kind: 'route' }),
  );
  [[179, 0], [-179, 2], [175, -4], [-175, 6]].forEach(([lon, lat], k) => {
    features.push(feature(20 + k, { type: 'Point', coordinates: [lon!, lat!] }, { kind: 'port', n: k }));
  });
  for (let lon = -180; lon < 180; lon += 30) {
    features.push(feature(1000 + lon + 180, { type: 'LineString', coordinates: [[lon, -80], [lon, 80]] }, { kind: 'meridian', value: lon }));
  }
  for (let lat = -60; lat <= 60; lat += 30) {
    features.push(feature(2000 + lat + 90, { type: 'LineString', coordinates: [[-180, lat], [180, lat]] }, { kind: 'parallel', value: lat }));
  }
  return features;
}

function collection(features: Feature[]): FeatureCollection {
  return { type: 'FeatureCollection', features };
}

/** Tiles z/x/y of zoom `z` within the card tile (its ancestor above zoom 5, its descendants below). */
function cardTiles(z: number): [number, number, number][] {
  if (z <= CARD_ZOOM) return [[z, CARD_TILE.x >> (CARD_ZOOM - z), CARD_TILE.y >> (CARD_ZOOM - z)]];
  const scale = 2 ** (z - CARD_ZOOM);
  const tiles: [number, number, number][] = [];
  for (let y = CARD_TILE.y * scale; y < (CARD_TILE.y + 1) * scale; y++) {
    for (let x = CARD_TILE.x * scale; x < (CARD_TILE.x + 1) * scale; x++) tiles.push([z, x, y]);
  }
  return tiles;
}

function writeFile(relative: string, data: string | Uint8Array): void {
  const file = path.join(dataDir, relative);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, data);
}

/** Cuts named layers into MVT tiles (4096 extent, as most tilers do) and writes those with features. */
function writeVectorTiles(folder: string, layers: Record<string, Feature[]>, maxZoom: number): number {
  const indexes = Object.entries(layers).map(
    ([name, features]) => [name, new GeoJSONVT(collection(features), { maxZoom, indexMaxZoom: maxZoom, extent: 4096, buffer: 64 })] as const,
  );
  let count = 0;
  for (let z = 0; z <= maxZoom; z++) {
    for (let y = 0; y < 2 ** z; y++) {
      for (let x = 0; x < 2 ** z; x++) {
        const tile: Record<string, NonNullable<ReturnType<GeoJSONVT['getTile']>>> = {};
        for (const [name, index] of indexes) {
          const layer = index.getTile(z, x, y);
          if (layer && layer.features.length > 0) tile[name] = layer;
        }
        if (Object.keys(tile).length === 0) continue;
        writeFile(`${folder}/${z}/${x}/${y}.pbf`, fromGeojsonVt(tile, { version: 2, extent: 4096 }));
        count++;
      }
    }
  }
  return count;
}

async function png(pixels: Uint8Array, size: number): Promise<Buffer> {
  return sharp(pixels, { raw: { width: size, height: size, channels: 3 } }).png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer();
}

function hex(color: string): [number, number, number] {
  const value = Number.parseInt(color.slice(1), 16);
  return [value >> 16, (value >> 8) & 255, value & 255];
}

/** Light and dark greys, primaries and pastels, so that every raster adjustment shows. */
const RASTER_PALETTE = ['#f2f2f2', '#1a1a1a', '#808080', '#e63946', '#2a9d8f', '#264653', '#e9c46a', '#f4a261', '#457b9d', '#a8dadc', '#8338ec', '#3a86ff'].map(hex);

/**
 * A raster tile: 32-px blocks of palette colours and a darker line every 16 px, both counted in
 * pixels of the whole world at the tile's zoom, so that neighbouring tiles continue each other and a
 * misplaced tile shows.
 */
async function rasterTile(x: number, y: number, size: number): Promise<Buffer> {
  const pixels = new Uint8Array(size * size * 3);
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const [gx, gy] = [x * size + col, y * size + row];
      const [bx, by] = [gx >> 5, gy >> 5];
      const color = RASTER_PALETTE[hash(bx, by) % RASTER_PALETTE.length]!;
      const shade = gx % 16 === 0 || gy % 16 === 0 ? 0.6 : 1;
      const offset = (row * size + col) * 3;
      for (let channel = 0; channel < 3; channel++) pixels[offset + channel] = Math.round(color[channel]! * shade);
    }
  }
  return png(pixels, size);
}

/** An integer hash of two integers, so that neighbouring blocks get unrelated colours. */
function hash(a: number, b: number): number {
  let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 12)) >>> 0;
}

/** Hills [x, y, sigma x, sigma y, rotation, metres] in card pixels: round and long ones, a ridge, a crater. */
const HILLS: [number, number, number, number, number, number][] = [
  [70, 80, 22, 22, 0, 4000],
  [172, 66, 14, 14, 0, 3000],
  [150, 176, 26, 18, 0.5, 3500],
  [56, 196, 10, 10, 0, 2000],
  [205, 200, 40, 7, Math.PI / 5, 2500],
  [118, 128, 10, 10, 0, -1500],
  [110, 60, 8, 8, 0, 1800],
  [210, 120, 12, 20, -0.4, 2800],
  [40, 140, 9, 14, 0.3, 1600],
  [95, 210, 6, 6, 0, 1200],
];

/** Height in metres at card pixel x, y: 200 m plus the hills, below sea level in the crater. */
function height(x: number, y: number): number {
  let metres = 200;
  for (const [cx, cy, sx, sy, angle, peak] of HILLS) {
    const [dx, dy] = [x - cx, y - cy];
    const [u, v] = [dx * Math.cos(angle) + dy * Math.sin(angle), -dx * Math.sin(angle) + dy * Math.cos(angle)];
    metres += peak * Math.exp(-(u * u) / (2 * sx * sx) - (v * v) / (2 * sy * sy));
  }
  return metres;
}

/**
 * A 256-px DEM tile of `height` in whole metres (as SRTM-like data comes), encoded as terrarium or
 * mapbox RGB. Finer steps would only make bigger files: MapLibre keeps slopes in 8 bits, whose steps
 * show as faint rings whatever the input precision.
 */
async function demTile(z: number, x: number, y: number, encoding: 'terrarium' | 'mapbox'): Promise<Buffer> {
  const size = 256;
  const pixels = new Uint8Array(size * size * 3);
  const scale = 2 ** (CARD_ZOOM - z) * (512 / size);
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) {
      const metres = Math.round(height((x * size + col + 0.5) * scale - cardOrigin[0], (y * size + row + 0.5) * scale - cardOrigin[1]));
      const value = encoding === 'terrarium' ? (metres + 32768) * 256 : (metres + 10000) * 10;
      const rgb = [value >> 16, (value >> 8) & 255, value & 255];
      pixels.set(rgb, (row * size + col) * 3);
    }
  }
  return png(pixels, size);
}

async function main(): Promise<void> {
  // streets/ is street-fixtures.ts's: made from OpenStreetMap samples by tilemaker, not by code.
  mkdirSync(dataDir, { recursive: true });
  for (const entry of readdirSync(dataDir)) if (entry !== 'streets') rmSync(path.join(dataDir, entry), { recursive: true, force: true });
  const card = { polygons: polygons(), rows: rows(), segments: segments(), zigzags: zigzags(), points: points() };
  const worldFeatures = world();
  for (const [name, features] of Object.entries({ ...card, world: worldFeatures })) {
    writeFile(`${name}.geojson`, `${JSON.stringify(collection(features))}\n`);
  }
  const counts: Record<string, number> = {
    vector: writeVectorTiles('vector', card, 6),
    world: writeVectorTiles('world', { world: worldFeatures }, 3),
  };
  for (const size of [512, 256]) {
    counts[`raster${size}`] = 0;
    for (let z = 0; z <= 6; z++) {
      for (const [tz, x, y] of cardTiles(z)) {
        writeFile(`raster${size}/${tz}/${x}/${y}.png`, await rasterTile(x, y, size));
        counts[`raster${size}`]!++;
      }
    }
  }
  for (const encoding of ['terrarium', 'mapbox'] as const) {
    counts[`dem-${encoding}`] = 0;
    for (const [z, x, y] of cardTiles(6)) {
      writeFile(`dem-${encoding}/${z}/${x}/${y}.png`, await demTile(z, x, y, encoding));
      counts[`dem-${encoding}`]!++;
    }
  }
  for (const name of ['default', 'extra']) {
    const built = await buildSprite(path.join(fixturesDir, '../sprites', name), path.join(dataDir, 'sprites', name === 'default' ? 'sprite' : name));
    counts[`sprite ${name} images`] = built.images;
  }
  for (const archive of await buildTown(path.join(dataDir, 'town'))) {
    counts[`town/${path.basename(archive.file)}`] = archive.tiles;
  }
  const [cx, cy] = project(CARD_CENTER[0], CARD_CENTER[1], CARD_ZOOM);
  console.log(`card centre ${CARD_CENTER.join(', ')} (world px ${cx}, ${cy} at zoom ${CARD_ZOOM})`);
  console.log(`tiles written: ${Object.entries(counts).map(([name, count]) => `${name} ${count}`).join(', ')}`);
}

await main();
