/**
 * Tile bytes to decoded tiles: Mapbox Vector Tiles (gzipped or not, told by the gzip magic bytes,
 * since archives and servers do not always say) into features with their geometry loaded, and
 * PNG, JPEG or WebP into images ready to draw.
 */

import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { VectorTile as MvtTile } from '@mapbox/vector-tile';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { PbfReader } from 'pbf';
import { tileRing, type RasterTile, type TileFeature, type TileLayer, type VectorTile } from './source.js';

const gunzipAsync = promisify(gunzip);

/** Which property becomes the feature id: one for every layer, or one per layer (MapLibre's promoteId). */
export type PromoteId = string | Record<string, string>;

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

export async function decodeVector(bytes: Uint8Array, promoteId?: PromoteId): Promise<VectorTile> {
  const raw = isGzip(bytes) ? new Uint8Array(await gunzipAsync(bytes)) : bytes;
  const mvt = new MvtTile(new PbfReader(raw));
  const layers = new Map<string, TileLayer>();
  for (const [name, layer] of Object.entries(mvt.layers)) {
    const idProperty = typeof promoteId === 'string' ? promoteId : promoteId?.[name];
    const features: TileFeature[] = [];
    for (let i = 0; i < layer.length; i++) {
      const feature = layer.feature(i);
      // Type 0 (unknown geometry) has no drawing in MapLibre either.
      if (feature.type === 0) continue;
      const promoted = idProperty === undefined ? undefined : feature.properties[idProperty];
      const id = typeof promoted === 'number' || typeof promoted === 'string' ? promoted : feature.id;
      features.push({
        ...(id === undefined ? {} : { id }),
        type: feature.type,
        properties: feature.properties,
        geometry: feature.loadGeometry().map(tileRing),
      });
    }
    layers.set(name, { extent: layer.extent, features });
  }
  return { kind: 'vector', layers };
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
