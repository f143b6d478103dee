/**
 * Encoding a rendered canvas as the requested format; the settings are fixed, so equal images give
 * equal bytes.
 *
 *  - PNG: up to 512x512 device pixels `png.ts` (libdeflate, level 1: fewer bytes than sharp, in
 *    less time), larger sharp (libvips) at zlib level 3 without row filters (faster there)
 *    (`bench/static-encoders.ts`, docs/benchmarks.md). For sharp, level 3 took 0.62-1.02x level 2's
 *    time for 1-7% fewer bytes, level 1 a little less time for 21-80% more bytes, level 6 up to 1.9x
 *    the time for 2-12% fewer; adaptive filtering (every filter tried on every row) 3-5x the time,
 *    Skia's own encoder 1.5-9x and fast-png 4-22x.
 * JPEG and WebP go to sharp:
 *  - JPEG: quality 90 without optimised Huffman tables (a second pass over the image for a few
 *    per cent fewer bytes). JPEG has no alpha: the canvas must come opaque (renderStaticImage
 *    draws JPEG images over white), and its alpha channel is dropped.
 *
 * libvips' operation cache is off: every image is new, so it would only hold up to 50 MiB of
 * results nobody asks for again.
 *
 * The canvas goes back to the pool once its pixels are read. The pixel copy belongs to the native
 * side (a structured-clone "transfer" of it copies all 12 MiB of a 1024x768@2x image rather than
 * detaching it), so it is simply dropped once encoded.
 */

import type { Canvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { releaseCanvas } from '../../render/paint/canvas-pool.js';
import type { Format } from '../image-format.js';
import { encodePng, ZLIB_PNG_MAX_PIXELS } from './png.js';

sharp.cache(false);

export async function encodeImage(canvas: Canvas, format: Format): Promise<Buffer> {
  const { width, height } = canvas;
  const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  releaseCanvas(canvas);
  return encodePixels(pixels, width, height, format);
}

/** RGBA pixels (unpremultiplied, as `getImageData` reads them) in the format. */
export async function encodePixels(pixels: Uint8ClampedArray, width: number, height: number, format: Format): Promise<Buffer> {
  if (format === 'png' && width * height <= ZLIB_PNG_MAX_PIXELS) return encodePng(pixels, width, height);
  const raw = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  const image = sharp(raw, { raw: { width, height, channels: 4 } });
  switch (format) {
    case 'png':
      return image.png({ compressionLevel: 3, adaptiveFiltering: false }).toBuffer();
    case 'jpg':
      return image.removeAlpha().jpeg({ quality: 90, optimiseCoding: false }).toBuffer();
    case 'webp':
      return image.webp({ quality: 90 }).toBuffer();
  }
}
