/**
 * End to end: MapLibre GL JS in headless Chromium, on a page of another origin, pointed at
 * Meridian's style.json of the `world` map (built here at zooms 0-3, the first that has every layer, to keep it quick), loads the
 * style, TileJSON, tiles and glyphs through the key and becomes idle without an error.
 *
 * @oneDatabase the database only checks the key; what is tested is the interactive-map page.
 */

import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { buildWorld } from '../../../src/tools/world/build.js';
import { listenWarm, newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { requirePeers } from '../../peers.js';
import { launchChromium } from '../../chromium.js';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const maplibreDist = path.join(repoRoot, 'node_modules/maplibre-gl/dist');
/** However long software WebGL on a loaded machine takes; the bound only stops a page that would never be idle. */
const IDLE_TIMEOUT_MS = 90_000;

const SCRIPT = `
import * as maplibregl from '/maplibre/maplibre-gl.mjs';
window.loadMap = async ({ style, timeout }) => {
  const errors = [];
  const map = new maplibregl.Map({ container: 'map', style, center: [10, 45], zoom: 1.5, fadeDuration: 0,
    canvasContextAttributes: { preserveDrawingBuffer: true } });
  map.on('error', (event) => errors.push(String(event.error?.message ?? event.error)));
  const idle = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeout);
    map.once('idle', () => { clearTimeout(timer); resolve(true); });
  });
  const canvas = map.getCanvas();
  const pixels = new Uint8Array(4 * canvas.width * canvas.height);
  const gl = canvas.getContext('webgl2') ?? canvas.getContext('webgl');
  gl.readPixels(0, 0, canvas.width, canvas.height, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  const colours = new Set();
  for (let i = 0; i < pixels.length; i += 4 * 97) colours.add(pixels[i] << 16 | pixels[i + 1] << 8 | pixels[i + 2]);
  return { idle, errors, colours: colours.size };
};
`;
const PAGE = '<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}#map{width:512px;height:384px}</style><script type="module" src="/page.mjs"></script></head><body><div id="map"></div></body></html>';

/** The page and maplibre-gl's dist folder, on an origin of their own. */
function servePage(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname === '/') return void response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (pathname === '/page.mjs') return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(SCRIPT);
    const file = path.resolve(maplibreDist, pathname.slice('/maplibre/'.length));
    if (!pathname.startsWith('/maplibre/') || !file.startsWith(maplibreDist + path.sep) || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file.endsWith('.css') ? 'text/css' : 'text/javascript' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

let mapsDir: string;
let meridian: TestServer;
let meridianUrl: string;
let key: string;

before(async () => {
  requirePeers('chromium');
  mapsDir = mkdtempSync(path.join(tmpdir(), 'meridian-world-'));
  await buildWorld(mapsDir, { maxzoom: 3 });
  meridian = await startTestServer(testConfig({ maps: { dir: mapsDir } }));
  // Glyph ranges are made on the render threads: the page's first requests would wait for them to start.
  meridianUrl = (await listenWarm(meridian.server)).public;
  key = (await meridian.meridian.keys.create((await newAccount(meridian.meridian)).accountId, { origins: ['127.0.0.1'] })).token;
});

after(async () => {
  await meridian?.close();
  if (mapsDir) rmSync(mapsDir, { recursive: true, force: true });
});

test('MapLibre GL JS loads the world map from style.json through the key and becomes idle without errors', { timeout: 150_000 }, async () => {
  const page = await servePage();
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage({ viewport: { width: 512, height: 384 } });
    const pageErrors: string[] = [];
    const fetched: { url: string; status: number }[] = [];
    tab.on('pageerror', (error) => pageErrors.push(error.message));
    tab.on('response', (response) => {
      if (response.url().startsWith(meridianUrl)) fetched.push({ url: new URL(response.url()).pathname, status: response.status() });
    });
    await tab.goto(`${page.origin}/`);
    await tab.waitForFunction('typeof window.loadMap === "function"');
    const style = `${meridianUrl}/maps/world/style.json?key=${encodeURIComponent(key)}`;
    const result = (await tab.evaluate(`window.loadMap(${JSON.stringify({ style, timeout: IDLE_TIMEOUT_MS })})`)) as { idle: boolean; errors: string[]; colours: number };
    assert.deepEqual([...result.errors, ...pageErrors], []);
    assert.ok(result.idle, `idle within ${IDLE_TIMEOUT_MS} ms`);
    const ok = (pattern: RegExp) => fetched.filter(({ url, status }) => pattern.test(url) && status === 200).length;
    assert.equal(ok(/^\/maps\/world\/style\.json$/), 1);
    assert.equal(ok(/^\/maps\/world\/sources\/world\.json$/), 1);
    assert.ok(ok(/^\/maps\/world\/tiles\/world\/1\/\d\/\d\.pbf$/) > 0, 'tiles of zoom 1');
    assert.ok(ok(/^\/fonts\/[^/]+\/\d+-\d+\.pbf$/) > 0, 'glyphs of the labels');
    assert.deepEqual(fetched.filter(({ status }) => status !== 200 && status !== 404), [], 'only tiles the archive lacks are missing');
    assert.ok(result.colours > 2, 'the map drew something');
  } finally {
    await browser.close();
    page.server.close();
  }
});
