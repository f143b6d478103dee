/**
 * Renders the reference image of render cases with MapLibre GL JS in headless Chromium and writes
 * it as the case's expected.png.
 *
 *   npx tsc -p . && node dist/test/maps/render-suite/references.js [case...]
 *
 * Without names every case is rendered. A local HTTP server serves maplibre-gl's dist folder and
 * test/fixtures/render; the relative URLs of each style are rewritten to point at it, as our side
 * resolves them against the case folder. A case whose map reports an error, or that does not become
 * idle in time, fails and keeps its old reference; so does one with an error in the page. (MapLibre
 * throws some style errors where no 'error' event reports them, e.g. a vector source whose tileSize
 * is not 512: the map then never becomes idle.)
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { launchChromium } from '../chromium.js';
import { fixturesDir, listCases, repoRoot, type RenderCase } from './cases.js';

const maplibreDist = path.join(repoRoot, 'node_modules/maplibre-gl/dist');
const IDLE_TIMEOUT_MS = 30_000;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.mjs': 'text/javascript',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.geojson': 'application/json',
  '.pbf': 'application/x-protobuf',
  '.png': 'image/png',
  '.map': 'application/json',
};

/**
 * The page's script: renders one style in a fresh map in a fresh container and reads the canvas once
 * the map is idle (all tiles loaded, nothing left to animate).
 */
const RENDER_SCRIPT = `
import * as maplibregl from '/maplibre/maplibre-gl.mjs';
window.renderCase = async ({ style, center, zoom, width, height, pixelRatio, timeout }) => {
  const container = document.createElement('div');
  container.style.width = width + 'px';
  container.style.height = height + 'px';
  document.body.append(container);
  const errors = [];
  const map = new maplibregl.Map({
    container, style, center, zoom, pixelRatio,
    interactive: false,
    fadeDuration: 0,
    attributionControl: false,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.on('error', (event) => errors.push(String(event.error?.message ?? event.error)));
  await new Promise((resolve) => {
    const timer = setTimeout(() => { errors.push('not idle after ' + timeout + ' ms'); resolve(); }, timeout);
    map.once('idle', () => { clearTimeout(timer); resolve(); });
  });
  const dataUrl = map.getCanvas().toDataURL('image/png');
  map.remove();
  container.remove();
  return { dataUrl, errors };
};
`;

const PAGE = '<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}</style><script type="module" src="/render.mjs"></script></head><body></body></html>';

/** Serves the page, /maplibre/* and /fixtures/*; remembers requests that found nothing. */
function serve(missing: string[]): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const [root, rest] = pathname.startsWith('/maplibre/')
      ? [maplibreDist, pathname.slice('/maplibre/'.length)]
      : pathname.startsWith('/fixtures/')
        ? [fixturesDir, pathname.slice('/fixtures/'.length)]
        : [null, pathname];
    if (root === null) {
      const page = { '/': ['text/html', PAGE], '/render.mjs': ['text/javascript', RENDER_SCRIPT] }[pathname];
      if (page) response.writeHead(200, { 'content-type': page[0]! }).end(page[1]);
      else response.writeHead(404).end();
      return;
    }
    const file = path.resolve(root, rest);
    try {
      if (!file.startsWith(root + path.sep)) throw new Error('outside');
      const body = readFileSync(file);
      response.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      missing.push(pathname);
      response.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      resolve({ server, origin: `http://127.0.0.1:${address.port}` });
    });
  });
}

/** A relative URL of the case's style as a URL of the server; the {z}/{x}/{y} of templates stay as they are. */
function absolute(url: string, origin: string, caseName: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  return origin + path.posix.normalize(`/fixtures/${caseName}/${url}`);
}

/** The case's style with tiles, TileJSON urls and GeoJSON data files pointing at the server. */
function styleFor(renderCase: RenderCase, origin: string): unknown {
  const style = JSON.parse(readFileSync(path.join(renderCase.dir, 'style.json'), 'utf8')) as { sources?: Record<string, Record<string, unknown>> };
  for (const source of Object.values(style.sources ?? {})) {
    if (Array.isArray(source.tiles)) source.tiles = source.tiles.map((tile: string) => absolute(tile, origin, renderCase.name));
    if (typeof source.url === 'string') source.url = absolute(source.url, origin, renderCase.name);
    if (typeof source.data === 'string') source.data = absolute(source.data, origin, renderCase.name);
  }
  return style;
}

interface Rendered {
  dataUrl: string;
  errors: string[];
}

async function render(page: Page, style: unknown, renderCase: RenderCase): Promise<Rendered> {
  const { center, zoom, width, height, pixelRatio } = renderCase.view;
  const options = { style, center, zoom, width, height, pixelRatio, timeout: IDLE_TIMEOUT_MS };
  return (await page.evaluate(`window.renderCase(${JSON.stringify(options)})`)) as Rendered;
}

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
      const { dataUrl, errors } = await render(page, styleFor(renderCase, origin), renderCase);
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
