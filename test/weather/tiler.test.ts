import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { pixelLatitude, pixelLongitude, tileSize } from '../../src/weather/mercator.js';
import { bilinear, quantize, renderTile, tilePyramid, type GriddedField } from '../../src/weather/tiler.js';
import { globalField } from './fields.js';

const decode = (channel: number, min: number, max: number) => min + (channel / 255) * (max - min);

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

test('tile pixels decode to the field value at their centre within one quantisation step', async () => {
  const range = { min: -127, max: 128 };
  const field = globalField(1, (lon, lat) => 40 * Math.sin((lat * Math.PI) / 90) + 0.1 * lon);
  for (const [z, x, y] of [[0, 0, 0], [2, 1, 1], [3, 7, 2]] as const) {
    const pixels = renderTile(field, range, z, x, y)!;
    const png = await sharp(pixels, { raw: { width: tileSize, height: tileSize, channels: 4 } }).png().toBuffer();
    const decoded = await sharp(png).raw().toBuffer();
    for (const [px, py] of [[0, 0], [100, 200], [511, 511], [256, 17]] as const) {
      const lon = pixelLongitude(x * tileSize + px, z);
      const lat = pixelLatitude(y * tileSize + py, z);
      const expected = bilinear(field, field.channels[0]!, field.separable!.column(lon), field.separable!.row(lat));
      const at = (py * tileSize + px) * 4;
      assert.equal(decoded[at + 3], 255);
      const step = (range.max - range.min) / 255;
      assert.ok(Math.abs(decode(decoded[at]!, range.min, range.max) - expected) <= step / 2 + 1e-6, `${z}/${x}/${y} ${px},${py}`);
    }
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
