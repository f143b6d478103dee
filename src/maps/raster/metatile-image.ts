/**
 * A metatile drawn and cut into its tiles, each encoded on its own (in a render thread): the map
 * alone, without attribution (raster clients show it from the TileJSON or the capabilities).
 */

import { releaseCanvas } from '../../render/paint/canvas-pool.js';
import type { Format } from '../image-format.js';
import type { LoadedMap } from '../registry.js';
import { encodePixels } from '../static/encode.js';
import { drawMap } from '../draw-map.js';
import { metatileViewport, tilesOf, type Metatile } from './metatile.js';

export interface MetatileJob {
  metatile: Metatile;
  format: Format;
  /** The language of the labels (language.ts); null for the style's own. */
  language: string | null;
}

/** The metatile's tiles, encoded, in `tilesOf` order. */
export async function renderMetatile(map: LoadedMap, job: MetatileJob): Promise<Buffer[]> {
  const canvas = await drawMap(map, metatileViewport(job.metatile), job.format, job.language);
  const ctx = canvas.getContext('2d');
  const pixels = tilesOf(job.metatile).map(({ crop }) => ({ crop, data: ctx.getImageData(crop.x, crop.y, crop.width, crop.height).data }));
  releaseCanvas(canvas);
  return Promise.all(pixels.map(({ crop, data }) => encodePixels(data, crop.width, crop.height, job.format)));
}
