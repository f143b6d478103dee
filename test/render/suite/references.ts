/**
 * Renders the reference image of render cases with MapLibre GL JS in headless Chromium and writes
 * it as the case's expected.png.
 *
 *   npx tsc -p . && node dist/test/render/suite/references.js [case...]
 *
 * Without names every case is rendered. A local HTTP server serves maplibre-gl's dist folder and
 * test/fixtures/render; the relative URLs of each style are rewritten to point at it, as our side
 * resolves them against the case folder. A style's `glyphs` that is not an absolute URL is served
 * from our font catalog (glyphRangePbf, the glyphs our renderer draws from the same font files),
 * and the map is made with localIdeographFontFamily false so CJK uses them too. For a case with
 * symbol layers, the labels MapLibre placed go to labels.json beside expected.png (see LABEL_SCRIPT). A case whose map reports an error, or that does not become
 * idle in time, fails and keeps its old reference; so does one with an error in the page. (MapLibre
 * throws some style errors where no 'error' event reports them, e.g. a vector source whose tileSize
 * is not 512: the map then never becomes idle.)
 */

import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { FontCatalog } from '../../../src/render/glyphs/catalog.js';
import { glyphRangePbf } from '../../../src/render/glyphs/pbf.js';
import { launchChromium } from '../../chromium.js';
import { fixturesDir, listCases, repoRoot, type RenderCase } from './cases.js';

const maplibreDist = path.join(repoRoot, 'node_modules/maplibre-gl/dist');
const pmtilesDist = path.join(repoRoot, 'node_modules/pmtiles/dist');
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
 * The labels MapLibre placed, read from its internals after idle: for every symbol layer and tile,
 * every symbol instance once (by crossTileID), its text (text-field evaluated for its feature, with
 * text-transform), icon (tokens resolved like the text's), anchor projected to CSS pixels, and whether its text and icon are shown.
 */
const LABEL_SCRIPT = `
function placedLabels(map) {
  const style = map.style;
  const placement = style.placement;
  const labels = [];
  const seen = new Set();
  for (const layerId of style._order) {
    const layer = style._layers[layerId];
    if (layer.type !== 'symbol' || layer.visibility === 'none') continue;
    const manager = style.tileManagers[layer.source];
    if (!manager) continue;
    for (const tile of manager._inViewTiles.getAllTiles()) {
      const bucket = tile.getBucket(layer);
      if (!bucket || !tile.latestFeatureIndex) continue;
      const vtLayers = tile.latestFeatureIndex.loadVTLayers();
      const sourceLayer = vtLayers[layer.sourceLayer] ?? vtLayers._geojsonTileLayer;
      for (let i = 0; i < bucket.symbolInstances.length; i++) {
        const instance = bucket.symbolInstances.get(i);
        const id = layerId + '/' + instance.crossTileID;
        if (seen.has(id)) continue;
        seen.add(id);
        const state = placement.placements[instance.crossTileID];
        const feature = sourceLayer.feature(instance.featureIndex);
        const evaluated = { type: feature.type, properties: feature.properties, id: feature.id };
        let text = '';
        const field = layer.layout.get('text-field').evaluate(evaluated, {}, tile.tileID.canonical);
        if (field) text = field.sections ? field.sections.map((s) => s.text).join('') : String(field);
        const unevaluated = layer._unevaluatedLayout.getValue('text-field');
        if (typeof unevaluated === 'string') text = text.replace(/{([^{}]+)}/g, (_, k) => (k in feature.properties ? String(feature.properties[k]) : ''));
        const transform = layer.layout.get('text-transform').evaluate(evaluated, {}, tile.tileID.canonical);
        if (transform === 'uppercase') text = text.toLocaleUpperCase();
        if (transform === 'lowercase') text = text.toLocaleLowerCase();
        let icon = null;
        const image = layer.layout.get('icon-image').evaluate(evaluated, {}, tile.tileID.canonical);
        if (image) icon = image.name ?? String(image);
        const unevaluatedIcon = layer._unevaluatedLayout.getValue('icon-image');
        if (icon && typeof unevaluatedIcon === 'string') icon = icon.replace(/{([^{}]+)}/g, (_, k) => (k in feature.properties ? String(feature.properties[k]) : ''));
        const t = { width: map.getContainer().clientWidth, height: map.getContainer().clientHeight };
        const tileSizePx = 512 * Math.pow(2, map.getZoom() - tile.tileID.canonical.z);
        const center = map.getCenter();
        const worldSize = 512 * Math.pow(2, map.getZoom());
        const cx = (center.lng + 180) / 360 * worldSize;
        const cy = (180 - 180 / Math.PI * Math.log(Math.tan(Math.PI / 4 + center.lat * Math.PI / 360))) / 360 * worldSize;
        const x0 = (tile.tileID.canonical.x + tile.tileID.wrap * Math.pow(2, tile.tileID.canonical.z)) * tileSizePx - cx + t.width / 2;
        const y0 = tile.tileID.canonical.y * tileSizePx - cy + t.height / 2;
        const variable = placement.variableOffsets[instance.crossTileID];
        const anchorNames = ['center', 'left', 'right', 'top', 'bottom', 'top-left', 'top-right', 'bottom-left', 'bottom-right'];
        labels.push({
          layer: layerId, text, icon,
          x: Math.round((x0 + instance.anchorX / 8192 * tileSizePx) * 100) / 100,
          y: Math.round((y0 + instance.anchorY / 8192 * tileSizePx) * 100) / 100,
          textPlaced: !!(state && state.text && text.length > 0),
          iconPlaced: !!(state && state.icon && icon),
          anchor: variable ? (typeof variable.anchor === 'number' ? anchorNames[variable.anchor] : variable.anchor) : null,
        });
      }
    }
  }
  return labels;
}
`;

/**
 * The page's script: renders one style in a fresh map in a fresh container and reads the canvas once
 * the map is idle (all tiles loaded, nothing left to animate).
 */
const RENDER_SCRIPT = `
import * as maplibregl from '/maplibre/maplibre-gl.mjs';
// pmtiles:// sources, read with HTTP range requests (the pmtiles package's script defines window.pmtiles).
maplibregl.addProtocol('pmtiles', new window.pmtiles.Protocol().tile);
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
    localIdeographFontFamily: false,
    attributionControl: false,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.on('error', (event) => errors.push(String(event.error?.message ?? event.error)));
  await new Promise((resolve) => {
    const timer = setTimeout(() => { errors.push('not idle after ' + timeout + ' ms'); resolve(); }, timeout);
    map.once('idle', () => { clearTimeout(timer); resolve(); });
  });
  const dataUrl = map.getCanvas().toDataURL('image/png');
  const labels = placedLabels(map);
  map.remove();
  container.remove();
  return { dataUrl, errors, labels };
};
${LABEL_SCRIPT}
`;

const PAGE = '<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}</style><script src="/pmtiles/pmtiles.js"></script><script type="module" src="/render.mjs"></script></head><body></body></html>';

/** Serves the page, /maplibre/*, /pmtiles/* and /fixtures/* (with byte ranges); remembers requests that found nothing. */
function serve(missing: string[]): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const glyphs = /^\/fonts\/([^/]+)\/(\d+)-(\d+)\.pbf$/.exec(pathname);
    if (glyphs) {
      try {
        const body = glyphRangePbf(FontCatalog.default(), glyphs[1]!.split(','), Number(glyphs[2]));
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(body);
      } catch {
        missing.push(pathname);
        response.writeHead(404).end();
      }
      return;
    }
    const [root, rest] = pathname.startsWith('/maplibre/')
      ? [maplibreDist, pathname.slice('/maplibre/'.length)]
      : pathname.startsWith('/pmtiles/')
        ? [pmtilesDist, pathname.slice('/pmtiles/'.length)]
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
      const type = CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream';
      const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
      if (range) {
        const [start, end] = [Number(range[1]), Math.min(Number(range[2]), body.length - 1)];
        response.writeHead(206, { 'content-type': type, 'content-range': `bytes ${start}-${end}/${body.length}` }).end(body.subarray(start, end + 1));
      } else {
        response.writeHead(200, { 'content-type': type }).end(body);
      }
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

/**
 * A relative URL of a style in `folder` (relative to test/fixtures/render) as a URL of the server,
 * also behind `pmtiles://`; the {z}/{x}/{y} of templates stay as they are.
 */
function absolute(url: string, origin: string, folder: string): string {
  if (url.startsWith('pmtiles://')) return `pmtiles://${absolute(url.slice('pmtiles://'.length), origin, folder)}`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  return origin + path.posix.normalize(`/fixtures/${folder}/${url}`);
}

/** The case's style with tiles, TileJSON urls, GeoJSON data files and sprites pointing at the server. */
function styleFor(renderCase: RenderCase, origin: string): unknown {
  const folder = path.relative(fixturesDir, path.dirname(renderCase.style)).split(path.sep).join('/');
  const style = JSON.parse(readFileSync(renderCase.style, 'utf8')) as {
    sources?: Record<string, Record<string, unknown>>;
    sprite?: string | { id: string; url: string }[];
  };
  if (typeof style.sprite === 'string') style.sprite = absolute(style.sprite, origin, folder);
  else if (Array.isArray(style.sprite)) style.sprite = style.sprite.map((entry) => ({ ...entry, url: absolute(entry.url, origin, folder) }));
  for (const source of Object.values(style.sources ?? {})) {
    if (Array.isArray(source.tiles)) source.tiles = source.tiles.map((tile: string) => absolute(tile, origin, folder));
    if (typeof source.url === 'string') source.url = absolute(source.url, origin, folder);
    if (typeof source.data === 'string') source.data = absolute(source.data, origin, folder);
  }
  return style;
}

interface Rendered {
  dataUrl: string;
  errors: string[];
  labels: unknown[];
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
      const { dataUrl, errors, labels } = await render(page, styleFor(renderCase, origin), renderCase);
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
