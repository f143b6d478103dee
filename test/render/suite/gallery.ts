/**
 * Side-by-side images for the documentation: MapLibre GL JS's reference (left) and Meridian's
 * render (right) of chosen render cases, written to docs/images/render-<case>.png.
 *
 *   npm run render:gallery [case...]
 */

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { loadMap } from '../../../src/maps/registry.js';
import { renderMap } from '../../../src/render/renderer.js';
import { compileStyle } from '../../../src/render/style/style.js';
import { TileCache } from '../../../src/render/source/cache.js';
import { listCases, repoRoot } from './cases.js';

const DEFAULT_CASES = ['town-omt-z14', 'town-protomaps-z16', 'symbol-icon-text-fit', 'symbol-line', 'symbol-rtl'];
const GAP = 8;

const outDir = path.join(repoRoot, 'docs/images');
mkdirSync(outDir, { recursive: true });
const cache = new TileCache(64 * 1024 * 1024);
const names = process.argv.slice(2);
for (const renderCase of listCases(names.length > 0 ? names : DEFAULT_CASES)) {
  const { name, dir, view } = renderCase;
  const map = await loadMap(name.replace(/[^A-Za-z0-9_-]/g, '_'), { style: path.relative(dir, renderCase.style) }, dir, { cache });
  try {
    const canvas = await renderMap(compileStyle(map.style), map.sources, view, { images: await map.images(view.pixelRatio) });
    const ours = await sharp(canvas.toBuffer('image/png')).png().toBuffer();
    const { width, height } = canvas;
    const file = path.join(outDir, `render-${name}.png`);
    await sharp({ create: { width: 2 * width + GAP, height, channels: 4, background: '#ffffff' } })
      .composite([
        { input: path.join(dir, 'expected.png'), left: 0, top: 0 },
        { input: ours, left: width + GAP, top: 0 },
      ])
      .png({ compressionLevel: 9, palette: true })
      .toFile(file);
    console.log(`wrote ${path.relative(repoRoot, file)}`);
  } finally {
    await map.close();
  }
}
