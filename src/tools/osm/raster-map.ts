/**
 * The map over an archive of raster tiles (PNG, JPEG or WebP): the tiles as they are, in one raster
 * layer. The tile size, which neither PMTiles nor MBTiles records, is the width of one of its tiles
 * (256 when no tile was found to measure): a wrong size would draw the map at the wrong scale.
 */

import path from 'node:path';
import sharp from 'sharp';
import type { Progress } from '../../platform/progress.js';
import { writeJson } from '../write-json.js';
import type { PublishedStyle } from './publish.js';

export const RASTER_SUFFIXES = [''];
const DEFAULT_TILE_SIZE = 256;

export async function tileSizeOf(sample: Uint8Array | null): Promise<number> {
  if (!sample) return DEFAULT_TILE_SIZE;
  const { width } = await sharp(sample).metadata();
  return width ?? DEFAULT_TILE_SIZE;
}

export function rasterStyle(source: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 8,
    name: 'Raster',
    sources: { raster: source },
    layers: [{ id: 'raster', type: 'raster', source: 'raster' }],
  };
}

/** Writes the raster style over `source` (a raster source on the archive, with its tile size) into `dir`. */
export async function writeRasterMap(dir: string, source: Record<string, unknown>, progress: Progress): Promise<PublishedStyle[]> {
  progress.phase('Style');
  await writeJson(path.join(dir, 'raster.json'), rasterStyle(source));
  return [{ style: 'raster.json', suffix: '' }];
}
