/**
 * `npm run bench:static`, encoders: which PNG encoder and settings suit our images (issue 34). A
 * `meridian serve` process draws real static maps (`world`, and the street maps `kirchberg` and
 * `west-oakland` of the quick start), their pixels are read back (PNG is lossless: they are the
 * pixels the server encoded), and each candidate encodes every image, taking turns (each round starting
 * with the next one): ours (`encodePixels`: `src/maps/static/png.ts` on libdeflate up to 512x512,
 * sharp beyond), sharp (libvips, libpng and zlib-ng) at several levels with and without adaptive
 * row filters, png.ts's rows compressed by libdeflate and by Node's zlib at several levels, Skia's own encoder (the
 * canvas's `encode('png')`, which would save reading the pixels out of the canvas), and fast-png
 * (pure JavaScript). Time is the median of `MERIDIAN_BENCH_REPEAT` encodes; every output is decoded
 * again and must give back the same pixels, or the candidate is marked inexact.
 */

import { createCanvas, ImageData, type Canvas } from '@napi-rs/canvas';
import { encode as fastPngEncode } from 'fast-png';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { encodePixels } from '../src/maps/static/encode.js';
import { deflate } from '../src/maps/static/deflate.js';
import { encodePng } from '../src/maps/static/png.js';
import { createKey, percentile, root, saveResults, startInstance, timedGet } from './instance.js';
import { worldMaps } from './world.js';

sharp.cache(false);
const repeat = Number(process.env.MERIDIAN_BENCH_REPEAT ?? 24);

interface Image {
  name: string;
  pixels: Buffer;
  width: number;
  height: number;
  /** The pixels in a canvas, as a render hands its canvas over: what Skia's encoder starts from. */
  canvas: Canvas;
}

type Encoder = (image: Image) => Promise<Buffer>;

const sharpPng = (compressionLevel: number, adaptiveFiltering: boolean): Encoder => (image) =>
  sharp(image.pixels, { raw: { width: image.width, height: image.height, channels: 4 } }).png({ compressionLevel, adaptiveFiltering }).toBuffer();

/** png.ts's rows (RGB when opaque, no filters) compressed by libdeflate or by Node's zlib. */
const libdeflatePng = (level: number): Encoder => async ({ pixels, width, height }) => encodePng(pixels, width, height, (rows) => deflate(rows, level));
const zlibPng = (level: number): Encoder => async ({ pixels, width, height }) => encodePng(pixels, width, height, (rows) => deflateSync(rows, { level, memLevel: 9 }));

const candidates: { name: string; encode: Encoder }[] = [
  { name: 'ours (encodePixels)', encode: (image) => encodePixels(new Uint8ClampedArray(image.pixels.buffer, image.pixels.byteOffset, image.pixels.byteLength), image.width, image.height, 'png') },
  { name: 'sharp level 3, no filters', encode: sharpPng(3, false) },
  { name: 'sharp level 1, no filters', encode: sharpPng(1, false) },
  { name: 'sharp level 2, no filters', encode: sharpPng(2, false) },
  { name: 'sharp level 6, no filters', encode: sharpPng(6, false) },
  { name: 'png.ts, node:zlib level 3', encode: zlibPng(3) },
  { name: 'png.ts, node:zlib level 4', encode: zlibPng(4) },
  { name: 'png.ts, libdeflate level 1', encode: libdeflatePng(1) },
  { name: 'png.ts, libdeflate level 2', encode: libdeflatePng(2) },
  { name: 'png.ts, libdeflate level 4', encode: libdeflatePng(4) },
  { name: 'png.ts, libdeflate level 6', encode: libdeflatePng(6) },
  { name: 'sharp level 2, adaptive filters', encode: sharpPng(2, true) },
  { name: 'sharp level 6, adaptive filters', encode: sharpPng(6, true) },
  // Only the encode is timed: a render would hand its canvas over as it is.
  { name: 'Skia (canvas.encode png)', encode: (image) => image.canvas.encode('png') },
  { name: 'fast-png (JavaScript)', encode: async (image) => Buffer.from(fastPngEncode({ width: image.width, height: image.height, data: new Uint8Array(image.pixels), channels: 4, depth: 8 })) },
];

function canvasOf(pixels: Buffer, width: number, height: number): Canvas {
  const canvas = createCanvas(width, height);
  canvas.getContext('2d').putImageData(new ImageData(new Uint8ClampedArray(pixels), width, height), 0, 0);
  return canvas;
}

async function pixelsOf(png: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

const world = await worldMaps();
const streets = path.join(root, 'data/maps');
if (!existsSync(path.join(streets, 'kirchberg.json'))) throw new Error(`no street maps in ${streets}: run bash scripts/prepare-data.sh first`);
const instance = await startInstance({ MERIDIAN_MAPS_DIR: streets });
const images: Image[] = [];
try {
  const key = await createKey(instance);
  const views: [string, string, string][] = [
    ['world', '10,50,3', '512x512'],
    ['world', '10,50,5', '1024x768@2x'],
    ['kirchberg', '10.0695,48.136,16', '512x512'],
    // The size of a raster tile.
    ['kirchberg', '10.0695,48.136,16', '256x256'],
    ['west-oakland', '-122.3004,37.8076,16', '512x512'],
    ['west-oakland', '-122.3004,37.8076,15', '1024x768@2x'],
  ];
  for (const [map, center, size] of views) {
    const url = `${instance.base}/api/maps/${map}/static/${center}/${size}.png?key=${key}`;
    await timedGet(url);
    const png = Buffer.from(await (await fetch(url)).arrayBuffer());
    const { data, width, height } = await pixelsOf(png);
    images.push({ name: `${map} ${size}`, pixels: data, width, height, canvas: canvasOf(data, width, height) });
  }
} finally {
  await instance.stop();
  if (world.temporary) rmSync(world.dir, { recursive: true, force: true });
}

const rows: { image: string; encoder: string; p50: number; bytes: number; exact: boolean }[] = [];
for (const image of images) {
  const times = candidates.map(() => [] as number[]);
  const outputs: Buffer[] = [];
  for (let round = 0; round < repeat; round++) {
    // Each round starts with the next candidate, so that none always pays for following the image's setup.
    for (let turn = 0; turn < candidates.length; turn++) {
      const i = (round + turn) % candidates.length;
      const candidate = candidates[i]!;
      const start = performance.now();
      outputs[i] = await candidate.encode(image);
      times[i]!.push(performance.now() - start);
    }
  }
  for (const [i, candidate] of candidates.entries()) {
    const back = await pixelsOf(outputs[i]!);
    rows.push({ image: image.name, encoder: candidate.name, p50: percentile(times[i]!, 50), bytes: outputs[i]!.length, exact: back.data.equals(image.pixels) });
  }
}

console.log(`PNG encoders on our images: median of ${repeat} encodes each, taking turns; bytes; exact = decodes to the same pixels`);
for (const image of images) {
  const ours = rows.find((row) => row.image === image.name && row.encoder.startsWith('ours'))!;
  console.log(`\n${image.name}`);
  for (const row of rows.filter((r) => r.image === image.name)) {
    console.log(`  ${row.encoder.padEnd(34)} ${row.p50.toFixed(2).padStart(7)} ms ${(row.p50 / ours.p50).toFixed(2).padStart(5)}x  ${String(row.bytes).padStart(8)} B ${(row.bytes / ours.bytes).toFixed(2).padStart(5)}x  ${row.exact ? 'exact' : 'NOT EXACT'}`);
  }
}
saveResults('static-encoders', { repeat, rows });
