/**
 * PNG files of RGBA pixels: 8-bit RGB when every pixel is opaque, RGBA otherwise, no row filters,
 * one IDAT chunk compressed by libdeflate (deflate.ts), the checksums from Node zlib's `crc32` (Node
 * 20.15 or newer).
 *
 * For images up to 512x512 device pixels (static images of that size, raster tiles) this takes 0.6x
 * the time Node's zlib took at level 4 for as many bytes (up to 0.5% more, up to 5% fewer), and
 * 0.3-0.7x the time of sharp at level 3 for 8-44% fewer bytes; sharp's libvips pipeline also varies
 * (2 to 13.5 ms for the same 512 image in runs minutes apart). Larger images go to sharp, whose
 * zlib-ng compresses large uniform areas (sea, empty land) faster: 0.5-0.9x libdeflate's time at
 * 1024x768@2x, for 19-52% more bytes (`bench/static-encoders.ts`,
 * docs/benchmarks.md, PNG encoders).
 */

import { crc32 } from 'node:zlib';
import { deflate } from './deflate.js';

/** The largest image, in device pixels, this encoder is used for (see the module comment). */
export const ZLIB_PNG_MAX_PIXELS = 512 * 512;
/**
 * libdeflate's level: 1 gave the bytes of Node's zlib at 4 in 0.6x its time; 2 to 6 up to 14% fewer
 * bytes in 1.2-1.7x level 1's time.
 */
const DEFLATE_LEVEL = 1;

/** Compresses the filtered rows to a zlib stream; libdeflate by default (`bench/static-encoders.ts` tries others). */
export type RowCompressor = (rows: Buffer) => Uint8Array;
const compressRows: RowCompressor = (rows) => deflate(rows, DEFLATE_LEVEL);

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A chunk's length, type and CRC around its data. */
const CHUNK_FRAME = 12;
const HEADER_LENGTH = 13;

/** The filtered rows of the last image (compressed before encodePng returns). */
let rowsBuffer = Buffer.alloc(0);

/**
 * `pixels`: width × height RGBA, unpremultiplied, row after row (as `getImageData` reads them).
 * An opaque image is written as RGB (colour type 2), any other as RGBA (6).
 */
export function encodePng(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number, compress = compressRows): Buffer {
  const stride = width * 4;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0) || pixels.byteLength !== stride * height) {
    throw new RangeError(`${pixels.byteLength} bytes are not ${width}x${height} RGBA pixels`);
  }
  // Each row behind its filter byte, 0 (none), in a buffer kept from one image to the next: a new
  // one each time is memory the kernel hands out and zeroes page by page as the rows are copied in
  // (1.6 ms of a 512x512 image in a CPU profile of the render thread, against 0.1 ms for the copy).
  const length = (stride + 1) * height;
  if (rowsBuffer.length < length) rowsBuffer = Buffer.allocUnsafe(length);
  const opaque = opaqueRows(pixels, width, height, rowsBuffer);
  const rows = opaque ? rowsBuffer.subarray(0, (width * 3 + 1) * height) : rgbaRows(pixels, width, height, rowsBuffer);
  const data = compress(rows);
  // Every byte of it is written below.
  const file = Buffer.allocUnsafe(SIGNATURE.length + 3 * CHUNK_FRAME + HEADER_LENGTH + data.length);
  SIGNATURE.copy(file, 0);
  let at = writeChunk(file, SIGNATURE.length, 'IHDR', HEADER_LENGTH, (body) => {
    body.writeUInt32BE(width, 0);
    body.writeUInt32BE(height, 4);
    // Bit depth 8, colour type 2 (RGB) or 6 (RGBA), deflate, filter method 0, no interlace.
    body.set([8, opaque ? 2 : 6, 0, 0, 0], 8);
  });
  at = writeChunk(file, at, 'IDAT', data.length, (body) => body.set(data));
  writeChunk(file, at, 'IEND', 0, () => {});
  return file;
}

/**
 * Writes the RGB rows of an opaque image into `rows`; false, with `rows` half written, at the
 * first pixel that is not opaque. A style's background makes most map images opaque, and a
 * quarter fewer bytes to deflate saves more time (0.6-0.9 ms of 4 for a 512x512 image) than this
 * pass costs over the RGBA copy: 2-3% less time for a whole PNG, 2.4% fewer bytes.
 *
 * Four pixels at a time, as 32-bit words (little-endian: R, G, B, A from the low byte up), their
 * alphas checked together and their colours written as three words: 0.28 ms for a 512x512 image
 * against 0.82 ms byte by byte (a twentieth of a render thread's time under load, in `perf`).
 */
function opaqueRows(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number, rows: Buffer): boolean {
  const from = new DataView(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  const to = new DataView(rows.buffer, rows.byteOffset, rows.byteLength);
  const quads = width >> 2;
  for (let y = 0, s = 0, d = 0; y < height; y++) {
    rows[d++] = 0;
    for (let q = 0; q < quads; q++, s += 16, d += 12) {
      const p0 = from.getUint32(s, true);
      const p1 = from.getUint32(s + 4, true);
      const p2 = from.getUint32(s + 8, true);
      const p3 = from.getUint32(s + 12, true);
      if ((p0 & p1 & p2 & p3) >>> 24 !== 255) return false;
      to.setUint32(d, (p0 & 0xffffff) | (p1 << 24), true);
      to.setUint32(d + 4, ((p1 >>> 8) & 0xffff) | (p2 << 16), true);
      to.setUint32(d + 8, ((p2 >>> 16) & 0xff) | (p3 << 8), true);
    }
    for (let x = quads << 2; x < width; x++, s += 4, d += 3) {
      if (pixels[s + 3] !== 255) return false;
      rows[d] = pixels[s]!;
      rows[d + 1] = pixels[s + 1]!;
      rows[d + 2] = pixels[s + 2]!;
    }
  }
  return true;
}

/** The RGBA rows, each behind its filter byte, in `rows`; returns the part of it they fill. */
function rgbaRows(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number, rows: Buffer): Buffer {
  const stride = width * 4;
  const source = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
  for (let y = 0, at = 0; y < height; y++, at += stride + 1) {
    rows[at] = 0;
    source.copy(rows, at + 1, y * stride, (y + 1) * stride);
  }
  return rows.subarray(0, (stride + 1) * height);
}

/** Writes a chunk at `at`, its data by `fill`; returns where the next one starts. */
function writeChunk(file: Buffer, at: number, type: string, length: number, fill: (body: Buffer) => void): number {
  file.writeUInt32BE(length, at);
  file.write(type, at + 4, 'latin1');
  fill(file.subarray(at + 8, at + 8 + length));
  // The CRC covers the type and the data.
  file.writeUInt32BE(crc32(file.subarray(at + 4, at + 8 + length)), at + 8 + length);
  return at + CHUNK_FRAME + length;
}
