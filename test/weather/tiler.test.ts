import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { openArchive } from '../../src/platform/pmtiles.js';
import { bilinear, quantize, renderTile, tilePyramid, type GriddedField } from '../../src/weather/tiler.js';
import { buildKeyframe } from '../../src/weather/tileset.js';
import { defaultVariables } from '../../src/weather/variables.js';
import { tempDir } from '../scratch.js';
import { globalField } from './fields.js';
import { pixelCentreMetres, pixelCentres, projLonLat, TILE_PIXELS as tileSize, type LonLat } from './proj.js';

const decode = (channel: number, min: number, max: number) => min + (channel / 255) * (max - min);
/** a - b in degrees of longitude, in [-180, 180). */
const lonDifference = (a: number, b: number) => ((((a - b) % 360) + 540) % 360) - 180;

test('quantize is the inverse of the catalog decoding within one step, and clamps', () => {
  for (const value of [-127, -50.3, 0, 12.7, 128]) {
    assert.ok(Math.abs(decode(quantize(value, -127, 128), -127, 128) - value) <= 255 / 255 / 2 + 1e-9);
  }
  assert.equal(quantize(-500, -127, 128), 0);
  assert.equal(quantize(500, -127, 128), 255);
});

test('bilinear interpolation is exact on a linear field and wraps across the antimeridian', () => {
  const field = globalField(1, (lon, lat) => lat + (lon >= 180 ? lon - 360 : lon) * 0);
  assert.ok(Math.abs(bilinear(field, field.channels[0]!, 10.25, 30.5) - (90 - 30.5)) < 1e-6);
  const ramp = globalField(1, (lon) => lon);
  // Between 359°E and 0°E the values 359 and 0 are neighbours: wrapping blends them.
  assert.ok(Math.abs(bilinear(ramp, ramp.channels[0]!, 359.5, 10) - 179.5) < 1e-4);
  assert.ok(Number.isNaN(bilinear(ramp, ramp.channels[0]!, 10, 181)));
});

test('a missing neighbour gives the nearest value instead of no data', () => {
  const field = globalField(1, (lon) => (lon === 11 ? Number.NaN : 5));
  assert.equal(bilinear(field, field.channels[0]!, 10.2, 10), 5);
  assert.ok(Number.isNaN(bilinear(field, field.channels[0]!, 10.8, 10.2)));
});

test('tile pixels decode to the field value where PROJ puts their centre, within one quantisation step', async () => {
  const range = { min: -127, max: 128 };
  const value = (lon: number, lat: number) => 40 * Math.sin((lat * Math.PI) / 90) + 10 * Math.cos((lon * Math.PI) / 180);
  // Bilinear interpolation on the 1° grid strays from the smooth field by at most h²/8 * |f''|.
  const interpolation = (40 * (Math.PI / 90) ** 2 + 10 * (Math.PI / 180) ** 2) / 8;
  const field = globalField(1, value);
  const step = (range.max - range.min) / 255;
  for (const [z, x, y] of [[0, 0, 0], [2, 1, 1], [3, 7, 2]] as const) {
    const pixels = renderTile(field, range, z, x, y)!;
    const png = await sharp(pixels, { raw: { width: tileSize, height: tileSize, channels: 4 } }).png().toBuffer();
    const decoded = await sharp(png).raw().toBuffer();
    const samples = [[0, 0], [100, 200], [511, 511], [256, 17]] as const;
    const centres = pixelCentres(z, x, y, samples);
    samples.forEach(([px, py], k) => {
      const { lon, lat } = centres[k]!;
      const at = (py * tileSize + px) * 4;
      assert.equal(decoded[at + 3], 255);
      const error = Math.abs(decode(decoded[at]!, range.min, range.max) - value(lon, lat));
      assert.ok(error <= step / 2 + interpolation + 1e-6, `${z}/${x}/${y} ${px},${py}: off by ${error}`);
    });
  }
});

/**
 * The geometry of the tiles, checked against PROJ: each render samples a field whose R channel is
 * the latitude minus that PROJ gives one pixel row, and whose G channel is the longitude minus that
 * of one pixel column, both encoded within ±4 pixel widths. Bilinear interpolation is exact on these
 * (linear) fields, so a decoded pixel is where the tiler sampled the grid, to a 255th of 8 pixel widths.
 */
const sampled = [0, 1, 97, 255, 256, 383, 510, 511];
const geometryTiles = [
  [0, 0, 0], // the whole world
  [1, 1, 0], // north-east quarter
  [3, 7, 2], // along the antimeridian, west of it
  [5, 0, 31], // the south-west corner of the world, down to 85°S
  [8, 135, 90], // central Europe
  [10, 511, 511], // just north-west of 0°N 0°E, where the grid's columns wrap
  [12, 2147, 1430], // the deepest weather zoom
] as const;

function assertGeometry(separable: boolean): void {
  for (const [z, x, y] of geometryTiles) {
    const pixelWidth = 360 / (tileSize * 2 ** z);
    const window = 4 * pixelWidth;
    const range = { min: -window, max: window };
    // Half a quantisation step, and float32 storage of the grid values and weights.
    const tolerance = window / 255 + 1e-6;
    const points = sampled.flatMap((py) => sampled.map((px) => [px, py] as const));
    const proj = pixelCentres(z, x, y, points);
    const at = (px: number, py: number): LonLat => proj[sampled.indexOf(py) * sampled.length + sampled.indexOf(px)]!;
    const where = (px: number, py: number) => `${separable ? 'regular' : 'general'} grid, tile ${z}/${x}/${y} pixel ${px},${py}`;
    /** The error in pixels (a pixel is `pixelWidth * cos(lat)` high), and whether the value ran out of the window. */
    const pixels = (error: number, size: number, channel: number) =>
      `${(error / size).toFixed(3)} px${channel === 0 || channel === 255 ? ' or more' : ''}`;
    for (const line of sampled) {
      const rowLat = at(0, line).lat;
      const columnLon = at(line, 0).lon;
      const grid = globalField(1, (_lon, lat) => lat - rowLat, (lon) => lonDifference(lon, columnLon));
      const tile = renderTile(separable ? grid : { ...grid, separable: null }, range, z, x, y)!;
      for (const other of sampled) {
        // The latitude at row `line`, column `other`.
        const inRow = (line * tileSize + other) * 4;
        assert.equal(tile[inRow + 3], 255, `${where(other, line)} has data`);
        const lat = rowLat + decode(tile[inRow]!, range.min, range.max);
        const expectedLat = at(other, line).lat;
        assert.ok(
          Math.abs(lat - expectedLat) <= tolerance,
          `${where(other, line)}: sampled at latitude ${lat}, PROJ says ${expectedLat} ` +
            `(${pixels(lat - expectedLat, pixelWidth * Math.cos((expectedLat * Math.PI) / 180), tile[inRow]!)})`,
        );
        // The longitude at column `line`, row `other`.
        const inColumn = (other * tileSize + line) * 4;
        const lon = columnLon + decode(tile[inColumn + 1]!, range.min, range.max);
        const expectedLon = at(line, other).lon;
        const lonError = lonDifference(lon, expectedLon);
        assert.ok(
          Math.abs(lonError) <= tolerance,
          `${where(line, other)}: sampled at longitude ${lon}, PROJ says ${expectedLon} (${pixels(lonError, pixelWidth, tile[inColumn + 1]!)})`,
        );
      }
    }
  }
}

test('tile pixels sample the grid at the longitude and latitude PROJ gives their centres (regular grids)', () => {
  assertGeometry(true);
});

test('tile pixels sample the grid at the longitude and latitude PROJ gives their centres (any grid, through locate)', () => {
  assertGeometry(false);
});

test('every tile of a keyframe archive, decoded from PNG, holds the latitude and longitude PROJ gives its pixels', async () => {
  // A two-channel variable whose channels are latitude (R) and longitude (G), in degrees.
  const variable = { ...defaultVariables.find((v) => v.id === 'wind-10m')!, min: -180, max: 180 };
  const field = globalField(1, (_lon, lat) => lat, (lon) => lonDifference(lon, 0));
  const step = (variable.max - variable.min) / 255;
  const directory = tempDir();
  const maxZoom = 3;
  try {
    const time = new Date('2026-01-01T00:00:00Z');
    const keyframe = await buildKeyframe(directory, field, { variable, model: 'test', attribution: 'test', referenceTime: time, validTime: time, maxZoom, format: 'png' });
    const archive = await openArchive(path.join(directory, keyframe.archive));
    try {
      const samples = [0, 100, 255, 256, 411, 511].flatMap((py) => [0, 100, 255, 256, 411, 511].map((px) => [px, py] as const));
      const tiles = [];
      for (let z = 0; z <= maxZoom; z++) for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) tiles.push({ z, x, y });
      // One cs2cs run for the pixels of every tile, in tile order.
      const centres = projLonLat(tiles.flatMap(({ z, x, y }) => samples.map(([px, py]) => pixelCentreMetres(z, x, y, px, py))));
      let checked = 0;
      for (const [t, { z, x, y }] of tiles.entries()) {
        const data = await archive.tile(z, x, y);
        assert.ok(data, `tile ${z}/${x}/${y} is in the archive`);
        const pixels = await sharp(Buffer.from(data)).ensureAlpha().raw().toBuffer();
        samples.forEach(([px, py], k) => {
          const { lon, lat } = centres[t * samples.length + k]!;
          const at = (py * tileSize + px) * 4;
          const where = `tile ${z}/${x}/${y} pixel ${px},${py}`;
          assert.equal(pixels[at + 3], 255, where);
          const decodedLat = decode(pixels[at]!, variable.min, variable.max);
          assert.ok(Math.abs(decodedLat - lat) <= step / 2 + 1e-6, `${where}: latitude ${decodedLat}, PROJ says ${lat}`);
          // The G channel jumps from 180 to -180 between the grid columns either side of the antimeridian.
          if (Math.abs(lon) > 179) return;
          const decodedLon = decode(pixels[at + 1]!, variable.min, variable.max);
          assert.ok(Math.abs(decodedLon - lon) <= step / 2 + 1e-6, `${where}: longitude ${decodedLon}, PROJ says ${lon}`);
          checked++;
        });
      }
      assert.ok(checked > 2500, `checked ${checked} pixels`);
    } finally {
      await archive.close();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});

test('two-channel fields put u in R and v in G', () => {
  const field = globalField(1, () => 10, () => -20);
  const pixels = renderTile(field, { min: -75, max: 75 }, 0, 0, 0)!;
  assert.equal(pixels[0], quantize(10, -75, 75));
  assert.equal(pixels[1], quantize(-20, -75, 75));
  assert.equal(pixels[2], 0);
});

test('a regional field makes tiles only where it has data, transparent elsewhere', async () => {
  const base = globalField(1, () => 1);
  const regional: GriddedField = {
    ...base,
    wrapsI: false,
    bounds: { west: 10, south: 40, east: 20, north: 50 },
    separable: null,
    locate: (lon, lat) => (lon >= 10 && lon <= 20 && lat >= 40 && lat <= 50 ? { i: lon, j: 90 - lat } : { i: Number.NaN, j: Number.NaN }),
  };
  const tiles = await tilePyramid(regional, { min: 0, max: 2 }, 3, 'png');
  assert.deepEqual(
    tiles.map((t) => `${t.z}/${t.x}/${t.y}`).sort(),
    // At zoom 3 the region straddles rows 2 and 3 (the row boundary is at 40.98°N).
    ['0/0/0', '1/1/0', '2/2/1', '3/4/2', '3/4/3'],
  );
  const pixels = renderTile(regional, { min: 0, max: 2 }, 0, 0, 0)!;
  assert.equal(pixels[3], 0, 'outside the region: alpha 0');
});
