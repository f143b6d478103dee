/** Draws a render case with our renderer, as the suite and the baseline recorder both do. */

import path from 'node:path';
import { loadMap } from '../../../src/maps/registry.js';
import { renderMap } from '../../../src/render/renderer.js';
import { compileStyle } from '../../../src/render/style/style.js';
import type { TileCache } from '../../../src/render/source/cache.js';
import type { PlacedLabel } from '../../../src/render/symbol/placement.js';
import type { RenderCase } from './cases.js';

export interface Rendering {
  /** width x height RGBA, straight alpha, as canvas getImageData gives. */
  pixels: Uint8ClampedArray;
  width: number;
  height: number;
  /** The labels our placement placed. */
  labels: PlacedLabel[];
}

export async function renderCase(renderCase: RenderCase, cache: TileCache): Promise<Rendering> {
  const { name, dir, view } = renderCase;
  // Map ids allow neither '@' nor '.': the id only names the map in errors.
  const map = await loadMap(name.replace(/[^A-Za-z0-9_-]/g, '_'), { style: path.relative(dir, renderCase.style) }, dir, { cache });
  try {
    const labels: PlacedLabel[] = [];
    const canvas = await renderMap(compileStyle(map.style), map.sources, view, { images: await map.images(view.pixelRatio), labels });
    const { width, height } = canvas;
    return { pixels: canvas.getContext('2d').getImageData(0, 0, width, height).data, width, height, labels };
  } finally {
    await map.close();
  }
}
