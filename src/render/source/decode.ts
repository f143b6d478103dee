/**
 * Tile bytes to decoded tiles: Mapbox Vector Tiles (gzipped or not, told by the gzip magic bytes,
 * since archives and servers do not always say) into features with their geometry loaded, and
 * PNG, JPEG or WebP into images ready to draw.
 */

import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { readMvt, type PromoteId } from './mvt.js';
import type { RasterTile, VectorTile } from './source.js';

const gunzipAsync = promisify(gunzip);

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export async function decodeVector(bytes: Uint8Array, promoteId?: PromoteId): Promise<VectorTile> {
  const raw = isGzip(bytes) ? new Uint8Array(await gunzipAsync(bytes)) : bytes;
  return { kind: 'vector', layers: readMvt(raw, promoteId) };
}

export async function decodeRaster(bytes: Uint8Array): Promise<RasterTile> {
  const image = await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const { width, height } = image;
  if (!(width > 0 && height > 0)) throw new Error('the image has no pixels');
  let pixels: Uint8ClampedArray | undefined;
  return {
    kind: 'raster',
    image,
    width,
    height,
    pixels() {
      if (!pixels) {
        const ctx = createCanvas(width, height).getContext('2d');
        ctx.drawImage(image, 0, 0);
        pixels = ctx.getImageData(0, 0, width, height).data;
      }
      return pixels;
    },
  };
}
