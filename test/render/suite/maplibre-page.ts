/**
 * MapLibre GL JS in a page of Debian's Chromium, as the render references and the street styles'
 * test use it: a local HTTP server serves the page, maplibre-gl's dist folder, pmtiles and
 * test/fixtures/render (with byte ranges); a style's relative URLs are rewritten to point at it.
 * A style's `glyphs` that is not an absolute URL is served from our font catalog (glyphRangePbf, the
 * glyphs our renderer draws from the same font files), and the map is made with
 * localIdeographFontFamily false so CJK uses them too. `render` draws a style in a fresh map and
 * returns its canvas once idle, the errors its map reported, and the labels it placed (LABEL_SCRIPT).
 */

import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../../chromium.js';
import { FontCatalog } from '../../../src/render/glyphs/catalog.js';
import { glyphRangePbf } from '../../../src/render/glyphs/pbf.js';
import type { Viewport } from '../../../src/render/view/viewport.js';
import { fixturesDir, repoRoot } from './cases.js';

const maplibreDist = path.join(repoRoot, 'node_modules/maplibre-gl/dist');
const pmtilesDist = path.join(repoRoot, 'node_modules/pmtiles/dist');
/** However long software WebGL on a loaded machine takes; the bound only stops a page that would never be idle. */
export const IDLE_TIMEOUT_MS = 90_000;

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
export function serve(missing: string[]): Promise<{ server: Server; origin: string }> {
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

/** A style file under test/fixtures/render with tiles, TileJSON urls, GeoJSON data files and sprites pointing at the server. */
export function styleFor(file: string, origin: string): unknown {
  const folder = path.relative(fixturesDir, path.dirname(file)).split(path.sep).join('/');
  const style = JSON.parse(readFileSync(file, 'utf8')) as {
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

export interface Rendered {
  dataUrl: string;
  errors: string[];
  labels: unknown[];
}

/** Renders `style` in the page `serve` serves, once the map is idle. */
export async function render(page: Page, style: unknown, view: Viewport): Promise<Rendered> {
  const { center, zoom, width, height, pixelRatio } = view;
  const options = { style, center, zoom, width, height, pixelRatio, timeout: IDLE_TIMEOUT_MS };
  return (await page.evaluate(`window.renderCase(${JSON.stringify(options)})`)) as Rendered;
}


export interface OpenPage {
  page: Page;
  /** The server's origin, for styles' URLs. */
  origin: string;
  close(): Promise<void>;
}

/** The page `serve` serves, open in Chromium and ready to render; requests that found nothing go to `missing`. */
export async function openPage(missing: string[]): Promise<OpenPage> {
  const { server, origin } = await serve(missing);
  const browser = await launchChromium().catch((error: unknown) => {
    server.close();
    throw error;
  });
  const page = await browser.newPage({ viewport: { width: 1024, height: 1024 } });
  await page.goto(`${origin}/`);
  await page.waitForFunction('typeof window.renderCase === "function"');
  return {
    page,
    origin,
    close: async () => {
      await browser.close();
      server.close();
    },
  };
}
