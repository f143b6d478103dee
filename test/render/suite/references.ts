/**
 * Renders the reference image of render cases with MapLibre GL JS in headless Chromium
 * (maplibre-page.ts) and writes it as the case's expected.png.
 *
 *   npx tsc -p . && node dist/test/render/suite/references.js [case...]
 *
 * Without names every case is rendered. The relative URLs of each style resolve from the style's
 * folder, as our side resolves them. For a case with symbol layers, the labels MapLibre placed go
 * to labels.json beside expected.png. A case whose map reports an error, or that does not become
 * idle in time, fails and keeps its old reference; so does one with an error in the page. (MapLibre
 * throws some style errors where no 'error' event reports them, e.g. a vector source whose tileSize
 * is not 512: the map then never becomes idle.)
 */

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { launchChromium } from '../../chromium.js';
import { listCases } from './cases.js';
import { render, serve, styleFor } from './maplibre-page.js';

async function main(): Promise<void> {
  const cases = listCases(process.argv.slice(2));
  const missing: string[] = [];
  const { server, origin } = await serve(missing);
  const browser = await launchChromium();
  const failures: string[] = [];
  try {
    const page = await browser.newPage({ deviceScaleFactor: 1, viewport: { width: 1024, height: 1024 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(`page error: ${error.message}`));
    await page.goto(`${origin}/`);
    await page.waitForFunction('typeof window.renderCase === "function"');
    for (const renderCase of cases) {
      const started = performance.now();
      missing.length = 0;
      pageErrors.length = 0;
      const { dataUrl, errors, labels } = await render(page, styleFor(renderCase.style, origin), renderCase.view);
      errors.push(...pageErrors);
      const { width, height, pixelRatio } = renderCase.view;
      const image = sharp(Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64'));
      const { width: actualWidth, height: actualHeight } = await image.metadata();
      if (actualWidth !== width * pixelRatio || actualHeight !== height * pixelRatio) {
        errors.push(`canvas is ${actualWidth}x${actualHeight}, want ${width * pixelRatio}x${height * pixelRatio}`);
      }
      const notFound = missing.length > 0 ? ` (not found: ${[...new Set(missing)].join(' ')})` : '';
      if (errors.length > 0) {
        failures.push(renderCase.name);
        console.error(`FAIL ${renderCase.name}: ${errors.join('; ')}${notFound}`);
        continue;
      }
      const png = await image.png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer();
      writeFileSync(path.join(renderCase.dir, 'expected.png'), png);
      if (labels.length > 0) writeFileSync(path.join(renderCase.dir, 'labels.json'), `${JSON.stringify(labels, null, 1)}\n`);
      console.log(`${renderCase.name}: ${png.length} bytes, ${Math.round(performance.now() - started)} ms${notFound}`);
    }
  } finally {
    await browser.close();
    server.close();
  }
  console.log(`${cases.length - failures.length} of ${cases.length} references written`);
  if (failures.length > 0) process.exitCode = 1;
}

await main();
