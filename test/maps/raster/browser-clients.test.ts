/**
 * Proof in a real browser: the Leaflet and OpenLayers recipes of docs/guide/maps.md ("Raster tiles"),
 * taken from the guide as they are written, load Meridian's raster tiles in Chromium from a page of
 * another origin (leaflet and ol served from node_modules, the network being closed). Each test waits
 * until every tile has loaded (Leaflet's `load`, OpenLayers' `rendercomplete`), asserts that no request
 * failed, saves a screenshot of the map under test-artifacts/raster/ and compares the map's pixels with
 * Meridian's static image of the same view (at pixel ratio 2, Leaflet's `{r}` against the static image @2x).
 *
 * @oneDatabase the database only checks the key; what is tested is what the browser draws.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { requirePeers } from '../../peers.js';
import { launchChromium } from '../../chromium.js';
import { SAMPLES, writeStreetMaps } from '../../tools/osm/street-maps.js';
import { repoRoot } from '../../render/suite/cases.js';
import { project, unproject } from '../../../src/render/view/viewport.js';
import { worldStyle } from './raster-maps.js';

const artifacts = path.join(repoRoot, 'test-artifacts/raster');
const guide = path.join(repoRoot, 'docs/guide/maps.md');
const WIDTH = 768;
const HEIGHT = 512;
/**
 * pixelmatch's default threshold; at most 0.1% of the map's pixels beyond it. The issue allows 1%, but
 * the clients draw each tile pixel where it was rendered (none differs here), and a tile shifted by
 * one row over West Oakland's sparse streets differs by little more than 1%.
 */
const MAX_DIFFERENCE = 0.001;
const LOAD_TIMEOUT_MS = 300_000;


// --- The recipes, as the guide writes them --------------------------------------------------------

/** The fenced block of `language` that follows `heading` in the guide (the `nth` after it, from 0). */
function recipe(heading: string, language: string, nth = 0): string {
  const text = readFileSync(guide, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `the guide has a "${heading}" section`);
  const blocks = [...text.slice(start).matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))];
  assert.ok(blocks[nth], `a ${language} block under "${heading}"`);
  return blocks[nth]![1]!;
}

/** `text` with `pattern` replaced; the pattern must occur exactly once, so a recipe that changed shape fails here. */
function replaceOnce(text: string, pattern: string | RegExp, replacement: string): string {
  const count = typeof pattern === 'string' ? text.split(pattern).length - 1 : [...text.matchAll(new RegExp(pattern, 'g'))].length;
  assert.equal(count, 1, `the recipe has ${String(pattern)} once`);
  return text.replace(pattern, () => replacement);
}

interface View {
  mapId: string;
  lon: number;
  lat: number;
  /** The client's zoom (Leaflet's and OpenLayers' view zoom, counted in 256-px tiles). */
  zoom: number;
}

/** A recipe pointed at this test's Meridian, key, map and view, and at the local copies of leaflet and ol. */
function localise(html: string, meridian: string, key: string, view: View): string {
  // The recipes name the quick start's server and its street map west-oakland.
  let page = replaceOnce(html, 'http://127.0.0.1:8080', meridian.replace(/\/$/, ''));
  page = replaceOnce(page, 'YOUR_KEY', encodeURIComponent(key));
  page = replaceOnce(page, '/maps/west-oakland/', `/maps/${view.mapId}/`);
  if (page.includes('L.map(')) {
    page = page.replaceAll('https://unpkg.com/leaflet@1.9.4/dist/', '/leaflet/');
    page = replaceOnce(page, /setView\(\[[-\d., ]+\], \d+\)/, `setView([${view.lat}, ${view.lon}], ${view.zoom})`);
  } else {
    page = page.replaceAll('https://cdn.jsdelivr.net/npm/ol@10.10.0/', '/ol/');
    page = replaceOnce(page, /center: ol\.proj\.fromLonLat\(\[[-\d., ]+\]\), zoom: \d+/, `center: ol.proj.fromLonLat([${view.lon}, ${view.lat}]), zoom: ${view.zoom}`);
  }
  return page;
}

/** The Leaflet recipe. */
const leafletPage = () => recipe('#### Leaflet', 'html');
/** The Leaflet recipe over the 512-px tiles, as the guide's text after it says. */
function leaflet512Page(): string {
  const page = replaceOnce(leafletPage(), '/maps/west-oakland/256/{z}/', '/maps/west-oakland/{z}/');
  return replaceOnce(page, 'tileSize: 256,', 'tileSize: 512,\n    zoomOffset: -1,');
}
/** The OpenLayers recipe over the 512-px tiles. */
const olXyzPage = () => recipe('#### OpenLayers', 'html');
/** The OpenLayers recipe with its XYZ source replaced by the guide's TileJSON source (256-px tiles). */
function olTileJsonPage(): string {
  const source = recipe('#### OpenLayers', 'js').trim();
  return replaceOnce(olXyzPage(), /source: new ol\.source\.XYZ\(\{[\s\S]*?\}\),/, source);
}

/**
 * The page around a recipe: controls and attribution hidden (the static image is compared without
 * them), no favicon request, and `window.mapLoaded` set once tiles have loaded, none is loading, and all are drawn.
 */
function wrap(recipeHtml: string): string {
  const signal = recipeHtml.includes('L.map(')
    ? `map.eachLayer((layer) => {
         if (!(layer instanceof L.TileLayer)) return;
         const done = () => { window.mapLoaded = true; };
         if (layer.isLoading()) layer.once('load', done); else done();
       });`
    : // OpenLayers can complete a frame drawn just after a TileJSON source became ready, before any
      // tile was asked for: only a frame completed after tiles have loaded, none still loading, counts.
      `let loading = 0;
       let loaded = 0;
       for (const layer of map.getAllLayers()) {
         layer.getSource().on('tileloadstart', () => { loading++; });
         layer.getSource().on(['tileloadend', 'tileloaderror'], () => { loading--; loaded++; });
       }
       const arm = () => map.once('rendercomplete', () => { if (loaded > 0 && loading === 0) window.mapLoaded = true; else arm(); });
       arm();`;
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
<style>body { margin: 0 } .leaflet-control-container, .ol-overlaycontainer-stopevent { display: none !important }</style>
</head><body>
${recipeHtml}
<script>${signal}</script>
</body></html>`;
}

// --- The page server ----------------------------------------------------------------------------------

const leafletDist = path.join(repoRoot, 'node_modules/leaflet/dist');
const olPackage = path.join(repoRoot, 'node_modules/ol');
const CONTENT_TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.png': 'image/png', '.svg': 'image/svg+xml' };

/** Pages by path, and leaflet's dist folder and ol's `ol.css` and `dist/ol.js`, on an origin of their own. */
function servePages(pages: Map<string, string>): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const page = pages.get(pathname);
    if (page !== undefined) return void response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    let file: string | null = null;
    if (pathname.startsWith('/leaflet/')) {
      file = path.resolve(leafletDist, pathname.slice('/leaflet/'.length));
      if (!file.startsWith(leafletDist + path.sep)) file = null;
    } else if (pathname === '/ol/ol.css' || pathname === '/ol/dist/ol.js') {
      file = path.join(olPackage, pathname.slice('/ol/'.length));
    }
    if (file === null || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

// --- Meridian, the browser and the comparison ---------------------------------------------------------

let meridian: TestServer;
let meridianUrl: string;
let key: string;
let browser: Browser;
const pages = new Map<string, string>();
let pageServer: { server: Server; origin: string };

before(async () => {
  requirePeers('chromium');
  for (const file of [path.join(leafletDist, 'leaflet.js'), path.join(olPackage, 'dist/ol.js')]) {
    assert.ok(existsSync(file), `${file} (npm leaflet@1.9.4 and ol@10.10.0, dev dependencies)`);
  }
  const streets = await writeStreetMaps('oakland');
  meridian = await startTestServer(
    testConfig({
      // Render time is not what these tests measure: a busy machine must not turn a tile into a 503.
      maps: {
        timeoutMs: 300_000,
        definitions: {
          world: { style: worldStyle() as never, maxzoom: 8, attribution: '© Natural Earth' },
          streets: { ...streets.definitions.streets, maxzoom: 18 },
        },
      },
    }),
  );
  meridianUrl = (await meridian.server.listen()).public;
  // The key admits only the test pages' host: the tiles and TileJSON go through the origin check.
  key = (await meridian.meridian.keys.create((await newAccount(meridian.meridian)).accountId, { origins: ['127.0.0.1'] })).token;
  pageServer = await servePages(pages);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  pageServer?.server.close();
  await meridian?.close();
});

/**
 * The view centred on the pixel nearest (lon, lat) at the client's zoom, so that tiles land on whole
 * pixels in the client and in the static image alike.
 */
function snapped(mapId: string, lon: number, lat: number, zoom: number): View {
  const [x, y] = project(lon, lat, zoom - 1);
  const [snappedLon, snappedLat] = unproject(Math.round(x), Math.round(y), zoom - 1);
  return { mapId, lon: snappedLon, lat: snappedLat, zoom };
}

async function rgba(image: Buffer) {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

interface Loaded {
  /** Meridian's answers to the page: path and status. */
  fetched: { path: string; status: number }[];
  /** The share of the map's pixels beyond pixelmatch's threshold against the static image. */
  difference: number;
}

/**
 * Loads `recipeHtml` pointed at `view` in a fresh tab, waits for every tile, checks that nothing
 * failed, and compares a screenshot of the map with the static image of the same view.
 */
async function load(name: string, recipeHtml: string, view: View, pixelRatio: 1 | 2 = 1): Promise<Loaded> {
  const pagePath = `/${name}.html`;
  pages.set(pagePath, wrap(localise(recipeHtml, meridianUrl, key, view)));
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT }, deviceScaleFactor: pixelRatio });
  try {
    const tab = await context.newPage();
    const problems: string[] = [];
    const fetched: Loaded['fetched'] = [];
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    tab.on('requestfailed', (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText ?? ''}`));
    tab.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
      if (response.url().startsWith(meridianUrl)) fetched.push({ path: new URL(response.url()).pathname, status: response.status() });
    });
    await tab.goto(`${pageServer.origin}${pagePath}`);
    // Leaflet fades tiles in after `load`: wait until each is opaque too (OpenLayers' rendercomplete waits for its own fade).
    await tab.waitForFunction(
      "window.mapLoaded === true && [...document.querySelectorAll('img.leaflet-tile')].every((tile) => tile.style.opacity === '1')",
      null,
      { timeout: LOAD_TIMEOUT_MS },
    );
    const screenshot = await tab.locator('#map').screenshot();
    assert.deepEqual(problems, [], `${name}: no failed request, no page error`);

    const zoom = view.zoom - 1;
    const response = await meridian.server.public.inject({
      method: 'GET',
      url: `/api/maps/${view.mapId}/static/${view.lon},${view.lat},${zoom}/${WIDTH}x${HEIGHT}${pixelRatio === 2 ? '@2x' : ''}.png?attribution=false&key=${key}`,
      headers: { origin: pageServer.origin },
    });
    assert.equal(response.statusCode, 200, response.body);
    const a = await rgba(screenshot);
    const b = await rgba(response.rawPayload);
    const [width, height] = [WIDTH * pixelRatio, HEIGHT * pixelRatio];
    assert.deepEqual([a.width, a.height], [width, height], `${name}: the map's screenshot has the map's size in device pixels`);
    const diff = new Uint8Array(width * height * 4);
    const differing = pixelmatch(a.data, b.data, diff, width, height, { threshold: 0.1 });
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(path.join(artifacts, `browser-${name}.png`), screenshot);
    writeFileSync(path.join(artifacts, `browser-${name}-static.png`), response.rawPayload);
    writeFileSync(path.join(artifacts, `browser-${name}-diff.png`), await sharp(diff, { raw: { width, height, channels: 4 } }).png().toBuffer());
    return { fetched, difference: differing / (width * height) };
  } finally {
    await context.close();
  }
}

/** Asserts that the picture matches the static image, and that it was drawn from tiles of `pattern`. */
function assertLoaded(name: string, loaded: Loaded, pattern: RegExp): void {
  assert.ok(loaded.difference <= MAX_DIFFERENCE, `${name}: ${(loaded.difference * 100).toFixed(2)} % of the map's pixels differ from the static image (see test-artifacts/raster/browser-${name}-diff.png)`);
  const tiles = loaded.fetched.filter(({ path: tilePath }) => pattern.test(tilePath));
  assert.ok(tiles.length >= 2, `${name}: the map loaded its tiles (${JSON.stringify(loaded.fetched)})`);
  assert.deepEqual(
    loaded.fetched.filter(({ path: tilePath, status }) => status !== 200 || !(pattern.test(tilePath) || tilePath.endsWith('/tiles.json'))),
    [],
    `${name}: only tiles of the expected zoom (and the TileJSON), each 200`,
  );
}

const [oaklandLon, oaklandLat] = SAMPLES.oakland.center;

describe('Leaflet: L.tileLayer over /maps/{mapId}/256/{z}/{x}/{y}.png', () => {
  test('the world map at Leaflet zoom 3 is the static image at zoom 2', { timeout: 600_000 }, async () => {
    const loaded = await load('leaflet-world-z3', leafletPage(), snapped('world', oaklandLon, oaklandLat, 3));
    assertLoaded('leaflet-world-z3', loaded, /^\/maps\/world\/256\/3\/\d+\/\d+\.png$/);
  });

  test('the streets of West Oakland at Leaflet zoom 17 are the static image at zoom 16', { timeout: 600_000 }, async () => {
    const loaded = await load('leaflet-streets-z17', leafletPage(), snapped('streets', oaklandLon, oaklandLat, 17));
    assertLoaded('leaflet-streets-z17', loaded, /^\/maps\/streets\/256\/17\/\d+\/\d+\.png$/);
  });

  test('512-px tiles with zoomOffset -1: Leaflet zoom 4 draws tiles of zoom 3, the static image at zoom 3', { timeout: 600_000 }, async () => {
    assert.match(readFileSync(guide, 'utf8'), /`\/maps\/west-oakland\/\{z\}\/\{x\}\/\{y\}\{r\}\.png` with `tileSize: 512, zoomOffset: -1`/);
    const loaded = await load('leaflet-512-world-z4', leaflet512Page(), snapped('world', oaklandLon, oaklandLat, 4));
    assertLoaded('leaflet-512-world-z4', loaded, /^\/maps\/world\/3\/\d+\/\d+\.png$/);
  });

  test('on a screen of pixel ratio 2, {r} asks for @2x tiles: the static image @2x', { timeout: 600_000 }, async () => {
    const loaded = await load('leaflet-streets-z17-2x', leafletPage(), snapped('streets', oaklandLon, oaklandLat, 17), 2);
    assertLoaded('leaflet-streets-z17-2x', loaded, /^\/maps\/streets\/256\/17\/\d+\/\d+@2x\.png$/);
  });
});

describe('OpenLayers: ol/source/XYZ over the 512-px tiles (tileSize: 512)', () => {
  test('the world map at view zoom 4 draws 512-px tiles of zoom 3, the static image at zoom 3', { timeout: 600_000 }, async () => {
    const loaded = await load('ol-xyz-world-z4', olXyzPage(), snapped('world', oaklandLon, oaklandLat, 4));
    assertLoaded('ol-xyz-world-z4', loaded, /^\/maps\/world\/3\/\d+\/\d+\.png$/);
  });

  test('the streets of West Oakland at view zoom 17 draw 512-px tiles of zoom 16', { timeout: 600_000 }, async () => {
    const loaded = await load('ol-xyz-streets-z17', olXyzPage(), snapped('streets', oaklandLon, oaklandLat, 17));
    assertLoaded('ol-xyz-streets-z17', loaded, /^\/maps\/streets\/16\/\d+\/\d+\.png$/);
  });
});

describe('OpenLayers: ol/source/TileJSON over /maps/{mapId}/256/tiles.json', () => {
  test('the world map at view zoom 3 from its TileJSON', { timeout: 600_000 }, async () => {
    const loaded = await load('ol-tilejson-world-z3', olTileJsonPage(), snapped('world', oaklandLon, oaklandLat, 3));
    assert.ok(loaded.fetched.some(({ path: tilePath }) => tilePath === '/maps/world/256/tiles.json'), 'the TileJSON was read');
    assertLoaded('ol-tilejson-world-z3', loaded, /^\/maps\/world\/256\/3\/\d+\/\d+\.png$/);
  });

  test('the streets of West Oakland at view zoom 16 from their TileJSON', { timeout: 600_000 }, async () => {
    const loaded = await load('ol-tilejson-streets-z16', olTileJsonPage(), snapped('streets', oaklandLon, oaklandLat, 16));
    assert.ok(loaded.fetched.some(({ path: tilePath }) => tilePath === '/maps/streets/256/tiles.json'), 'the TileJSON was read');
    assertLoaded('ol-tilejson-streets-z16', loaded, /^\/maps\/streets\/256\/16\/\d+\/\d+\.png$/);
  });
});
