import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { backfillBorder, decodeDem } from '../../../src/render/tile/dem.js';
import { prepareSlopes } from '../../../src/render/layers/hillshade.js';
import type { RasterTile } from '../../../src/render/source/source.js';
import { MemorySource, near, pixel, render, view } from '../sources.js';
import { createCanvas, loadImage } from '@napi-rs/canvas';

/** A DEM tile of `size` pixels whose height (metres) at pixel (x, y) is `height(x, y)`. */
async function demTile(size: number, height: (x: number, y: number) => number, encoding: 'terrarium' | 'mapbox'): Promise<RasterTile> {
  const canvas = createCanvas(size, size);
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(size, size);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const h = height(x, y);
      const o = (y * size + x) * 4;
      if (encoding === 'terrarium') {
        const v = h + 32768;
        image.data[o] = Math.floor(v / 256);
        image.data[o + 1] = Math.floor(v % 256);
        image.data[o + 2] = Math.round((v - Math.floor(v)) * 256);
      } else {
        const v = Math.round((h + 10000) * 10);
        image.data[o] = (v >> 16) & 255;
        image.data[o + 1] = (v >> 8) & 255;
        image.data[o + 2] = v & 255;
      }
      image.data[o + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  const decoded = await loadImage(await canvas.encode('png'));
  const pixels = ctx.getImageData(0, 0, size, size).data;
  return { kind: 'raster', image: decoded, width: size, height: size, pixels: () => pixels };
}

/** Tile 6/32/31 fills a 256x256 view at zoom 5 (raster-dem rounds 5 + log2(512/256) to 6). */
const RIDGE_VIEW = view(5, [2.8125, 2.81103792], 256, 256);
let ridgeTile: RasterTile | undefined;

/** A ridge along the tile's middle: rising 400 m a pixel eastwards on the west side, falling on the east side. */
function ridge(): MemorySource {
  return new MemorySource(() => ridgeTile!, { kind: 'raster-dem', tileSize: 256, minzoom: 6, maxzoom: 6, encoding: 'terrarium' });
}

const style = (dem: MemorySource, paint: Record<string, unknown> = {}) =>
  ({
    sources: { dem: { type: 'raster-dem', tiles: ['memory://{z}/{x}/{y}'], encoding: dem.encoding } },
    layers: [{ id: 'h', type: 'hillshade', source: 'dem', paint }],
  }) as never;

/** Luminance-ish darkness of a pixel composited on white: 0 white, 255 black. */
const darkness = ([r, , , a]: number[]): number => (255 - r!) * (a! / 255);

before(async () => {
  ridgeTile = await demTile(256, (x) => 30000 - Math.abs(x - 128) * 400, 'terrarium');
});

test('hillshade lights a west-facing slope and shades an east-facing one, for the default illumination', async () => {
  // A ridge along the tile's middle: rising eastwards on the west side, falling on the east side.
  const dem = ridge();
  const canvas = await render(style(dem), { dem }, RIDGE_VIEW);
  const west = pixel(canvas, 64, 128);
  const east = pixel(canvas, 192, 128);
  // Light from 335°: the default white highlight dominates west of the ridge, the black shadow east.
  assert.ok(west[3]! > 100 && east[3]! > 100, `${west} ${east}`);
  assert.ok(west[0]! > east[0]! + 40, `west-facing ${west} should be lighter than east-facing ${east}`);
  // Flat ground is not shaded at all.
  const flat = new MemorySource(new Map([['6/32/31', await demTile(256, () => 100, 'terrarium')]]), { kind: 'raster-dem', tileSize: 256, minzoom: 6, maxzoom: 6, encoding: 'terrarium' });
  assert.equal(pixel(await render(style(flat), { dem: flat }, RIDGE_VIEW), 64, 128)[3], 0);
});

test('terrarium and mapbox encodings of the same heights shade alike', async () => {
  const heights = (x: number, y: number): number => 500 + Math.sin(x / 20) * 300 + y * 5;
  const views = view(5, [2.8125, 2.81103792], 256, 256);
  const results = [];
  for (const encoding of ['terrarium', 'mapbox'] as const) {
    const dem = new MemorySource(new Map([['6/32/31', await demTile(256, heights, encoding)]]), { kind: 'raster-dem', tileSize: 256, minzoom: 6, maxzoom: 6, encoding });
    results.push(await render(style(dem), { dem }, views));
  }
  for (const [x, y] of [[40, 40], [128, 100], [200, 220]] as const) {
    const [a, b] = [pixel(results[0]!, x, y), pixel(results[1]!, x, y)];
    assert.ok(near(darkness(a), darkness(b), 3), `${x},${y}: ${a} vs ${b}`);
  }
});

test('hillshade-exaggeration 0 draws nothing; shadow and highlight colours are used', async () => {
  const dem = ridge();
  const none = await render(style(dem, { 'hillshade-exaggeration': 0 }), { dem }, RIDGE_VIEW);
  assert.equal(pixel(none, 64, 128)[3], 0);
  const colored = await render(style(dem, { 'hillshade-highlight-color': 'rgb(255, 0, 0)', 'hillshade-shadow-color': 'rgb(0, 0, 255)' }), { dem }, RIDGE_VIEW);
  const [west, east] = [pixel(colored, 64, 128), pixel(colored, 192, 128)];
  assert.ok(west[0]! > west[2]! && east[2]! > east[0]!, `${west} ${east}`);
});

test('the prepared slope at a tile edge uses the neighbouring tile\'s border when it is there', () => {
  const size = 8;
  const pixels = (offset: number): Uint8ClampedArray => {
    const data = new Uint8ClampedArray(size * size * 4);
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        // terrarium: height = r * 256 + g - 32768, rising by 256 m a pixel eastwards across both tiles.
        const o = (y * size + x) * 4;
        data[o] = 128 + offset + x;
        data[o + 3] = 255;
      }
    }
    return data;
  };
  const left = decodeDem(pixels(0), size, 'terrarium');
  const right = decodeDem(pixels(size), size, 'terrarium');
  const alone = prepareSlopes(left, 10);
  backfillBorder(left, right, 1, 0);
  const joined = prepareSlopes(left, 10);
  const size2 = size + 2;
  const east = (slopes: Uint8Array, y: number): number => slopes[(y * size2 + size) * 2]!;
  const inner = (slopes: Uint8Array, y: number): number => slopes[(y * size2 + size - 2) * 2]!;
  // Without the neighbour the edge pixel sees half the slope (its border repeats the edge).
  assert.ok(east(alone, 4) < inner(alone, 4));
  assert.equal(east(joined, 4), inner(joined, 4));
});
