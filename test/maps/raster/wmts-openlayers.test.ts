/**
 * End to end: OpenLayers (npm `ol`, bundled here by vite) in headless Chromium, on a page of another
 * origin, reads the `world` test map's WMTS capabilities through the key with
 * `ol/format/WMTSCapabilities`, takes the layer's options with `optionsFromCapabilities` for each
 * tile matrix set and encoding, and draws the layer: every tile request succeeds, and the picture is
 * Meridian's static image of the same view. Screenshots are saved under test-artifacts/raster/.
 *
 * @oneDatabase the database only checks the key; what is tested is what the browser draws.
 */

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import { build } from 'vite';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { requirePeers } from '../../peers.js';
import { launchChromium } from '../../chromium.js';
import { repoRoot } from '../../render/suite/cases.js';
import { worldStyle } from './raster-maps.js';

const artifacts = path.join(repoRoot, 'test-artifacts/raster');
const RENDER_TIMEOUT_MS = 60_000;
/** Share of pixels that may differ beyond pixelmatch's threshold between OpenLayers' picture and the static image. */
const MAX_DIFFERENCE = 0.01;

/** OpenLayers' modules the page uses, bundled into one ES module. */
const ENTRY = `
import Map from 'ol/Map.js';
import View from 'ol/View.js';
import TileLayer from 'ol/layer/Tile.js';
import WMTS, { optionsFromCapabilities } from 'ol/source/WMTS.js';
import WMTSCapabilities from 'ol/format/WMTSCapabilities.js';
export { Map, View, TileLayer, WMTS, optionsFromCapabilities, WMTSCapabilities };
`;

const SCRIPT = `
import * as ol from '/ol.js';
window.readCapabilities = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error('capabilities: HTTP ' + response.status);
  const capabilities = new ol.WMTSCapabilities().read(await response.text());
  return {
    version: capabilities.version,
    layers: capabilities.Contents.Layer.map((layer) => ({
      identifier: layer.Identifier,
      formats: layer.Format,
      styles: layer.Style.map((style) => style.Identifier),
      links: layer.TileMatrixSetLink.map((link) => link.TileMatrixSet),
      resourceUrls: layer.ResourceURL.map((resource) => ({ format: resource.format, resourceType: resource.resourceType, template: resource.template })),
      bounds: layer.WGS84BoundingBox,
    })),
    sets: capabilities.Contents.TileMatrixSet.map((set) => ({
      identifier: set.Identifier,
      crs: set.SupportedCRS,
      matrices: set.TileMatrix.map((matrix) => ({ identifier: matrix.Identifier, scale: matrix.ScaleDenominator, topLeft: matrix.TopLeftCorner, tileWidth: matrix.TileWidth, width: matrix.MatrixWidth })),
    })),
  };
};
window.drawLayer = async ({ url, matrixSet, requestEncoding, timeout }) => {
  const capabilities = new ol.WMTSCapabilities().read(await (await fetch(url)).text());
  const options = ol.optionsFromCapabilities(capabilities, { layer: 'world', matrixSet, requestEncoding });
  const grid = options.tileGrid;
  const summary = {
    matrixSet: options.matrixSet,
    requestEncoding: options.requestEncoding,
    projection: options.projection.getCode(),
    urls: options.urls,
    style: options.style,
    tileSize: grid.getTileSize(0),
    resolutions: grid.getResolutions(),
    origin: grid.getOrigin(0),
    matrixIds: grid.getMatrixIds(),
  };
  const source = new ol.WMTS(options);
  const failed = [];
  let loaded = 0;
  source.on('tileloaderror', (event) => failed.push(event.tile.getTileCoord().join('/')));
  source.on('tileloadend', () => loaded++);
  const map = new ol.Map({
    target: 'map',
    controls: [],
    pixelRatio: 1,
    layers: [new ol.TileLayer({ source })],
    // The world, 512 px across, fills the 512-px map.
    view: new ol.View({ projection: 'EPSG:3857', center: [0, 0], zoom: 1 }),
  });
  const complete = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeout);
    map.once('rendercomplete', () => { clearTimeout(timer); resolve(true); });
  });
  return { summary, complete, failed, loaded };
};
`;
const PAGE = '<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}#map{width:512px;height:512px}</style><script type="module" src="/page.mjs"></script></head><body><div id="map"></div></body></html>';

/** OpenLayers bundled by vite, in memory. */
async function bundleOpenLayers(): Promise<string> {
  // The entry lives under dist/ so that `ol` resolves from the repository's node_modules.
  const dir = mkdtempSync(path.join(repoRoot, 'dist/ol-bundle-'));
  try {
    const entry = path.join(dir, 'entry.js');
    writeFileSync(entry, ENTRY);
    const output = await build({
      configFile: false,
      logLevel: 'silent',
      root: dir,
      build: { lib: { entry, formats: ['es'], fileName: () => 'ol.js' }, write: false, minify: false, emptyOutDir: false },
    });
    const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => ('output' in result ? result.output : []));
    const chunk = chunks.find((item) => item.type === 'chunk' && item.isEntry);
    assert.ok(chunk && chunk.type === 'chunk', 'vite bundled OpenLayers');
    return chunk.code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The page and the bundle, on an origin of their own. */
function servePage(bundle: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname === '/') return void response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    if (pathname === '/page.mjs') return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(SCRIPT);
    if (pathname === '/ol.js') return void response.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    response.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}


let meridian: TestServer;
let meridianUrl: string;
let key: string;
/** A key without origin rules, for the requests the test makes itself. */
let serverKey: string;
let page: { server: Server; origin: string };

before(async () => {
  requirePeers('chromium');
  page = await servePage(await bundleOpenLayers());
  meridian = await startTestServer(testConfig({ maps: { definitions: { world: { style: worldStyle() as never, maxzoom: 8, formats: ['png'] } } } }));
  meridianUrl = (await meridian.server.listen()).public;
  const { accountId } = await newAccount(meridian.meridian);
  key = (await meridian.meridian.keys.create(accountId, { origins: ['127.0.0.1'] })).token;
  serverKey = (await meridian.meridian.keys.create(accountId, {})).token;
});

after(async () => {
  page?.server.close();
  await meridian?.close();
});

interface Drawn {
  summary: { matrixSet: string; requestEncoding: string; projection: string; urls: string[]; style: string; tileSize: number | number[]; resolutions: number[]; origin: number[]; matrixIds: string[] };
  complete: boolean;
  failed: string[];
  loaded: number;
}

test('OpenLayers reads the capabilities and draws the world map from each tile matrix set, in both encodings, as the static image', { timeout: 300_000 }, async () => {
  const browser = await launchChromium();
  try {
    const tab = await browser.newPage({ viewport: { width: 512, height: 512 }, deviceScaleFactor: 1 });
    const pageErrors: string[] = [];
    const tileResponses: { url: string; status: number }[] = [];
    const failedRequests: string[] = [];
    tab.on('pageerror', (error) => pageErrors.push(error.message));
    tab.on('requestfailed', (request) => failedRequests.push(request.url()));
    tab.on('response', (response) => {
      if (response.url().startsWith(meridianUrl)) tileResponses.push({ url: response.url(), status: response.status() });
    });
    await tab.goto(`${page.origin}/`);
    await tab.waitForFunction('typeof window.drawLayer === "function"');
    const url = `${meridianUrl}/maps/world/WMTSCapabilities.xml?key=${encodeURIComponent(key)}`;

    // The parser sees one layer, both sets and the RESTful templates with the key.
    const read = (await tab.evaluate(`window.readCapabilities(${JSON.stringify(url)})`)) as {
      version: string;
      layers: { identifier: string; formats: string[]; styles: string[]; links: string[]; resourceUrls: { format: string; resourceType: string; template: string }[]; bounds: number[] }[];
      sets: { identifier: string; crs: string; matrices: { identifier: string; scale: number; topLeft: number[]; tileWidth: number; width: number }[] }[];
    };
    assert.equal(read.version, '1.0.0');
    assert.deepEqual(read.layers.map((layer) => layer.identifier), ['world']);
    const [layer] = read.layers;
    assert.deepEqual(layer!.formats, ['image/png']);
    assert.deepEqual(layer!.styles, ['default']);
    assert.deepEqual(layer!.links, ['GoogleMapsCompatible', 'WebMercatorQuad512']);
    assert.deepEqual(layer!.resourceUrls, [
      { format: 'image/png', resourceType: 'tile', template: `${meridianUrl}/maps/world/wmts/{TileMatrixSet}/{TileMatrix}/{TileCol}/{TileRow}.png?key=${key}` },
    ]);
    assert.equal(layer!.bounds.length, 4);
    assert.deepEqual(read.sets.map((set) => [set.identifier, set.crs, set.matrices.length, set.matrices[0]!.tileWidth]), [
      ['GoogleMapsCompatible', 'urn:ogc:def:crs:EPSG::3857', 10, 256],
      ['WebMercatorQuad512', 'urn:ogc:def:crs:EPSG::3857', 9, 512],
    ]);

    const staticResponse = await meridian.server.public.inject({ method: 'GET', url: `/api/maps/world/static/0,0,0/512x512.png?attribution=false&key=${serverKey}` });
    assert.equal(staticResponse.statusCode, 200, staticResponse.body);
    const staticImage = staticResponse.rawPayload;
    const expected = await sharp(staticImage).ensureAlpha().raw().toBuffer();
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(path.join(artifacts, 'wmts-openlayers-static.png'), staticImage);

    for (const [matrixSet, requestEncoding, tilePattern, tileSize] of [
      ['GoogleMapsCompatible', 'REST', /\/maps\/world\/wmts\/GoogleMapsCompatible\/1\/\d\/\d\.png\?key=/, 256],
      ['WebMercatorQuad512', 'REST', /\/maps\/world\/wmts\/WebMercatorQuad512\/0\/0\/0\.png\?key=/, 512],
      ['GoogleMapsCompatible', 'KVP', /\/maps\/world\/wmts\?key=.*&.*TileMatrix=1&/i, 256],
    ] as const) {
      const name = `${matrixSet} ${requestEncoding}`;
      tileResponses.length = 0;
      await tab.evaluate('document.getElementById("map").replaceChildren()');
      const drawn = (await tab.evaluate(`window.drawLayer(${JSON.stringify({ url, matrixSet, requestEncoding, timeout: RENDER_TIMEOUT_MS })})`)) as Drawn;
      const { summary } = drawn;
      assert.equal(summary.matrixSet, matrixSet, name);
      assert.equal(summary.projection, 'EPSG:3857', name);
      assert.equal(summary.style, 'default', name);
      assert.equal(summary.tileSize, tileSize, name);
      // Resolutions: metres per pixel of each matrix, the equator over its pixels.
      assert.ok(Math.abs(summary.resolutions[0]! / (40075016.68557849 / tileSize) - 1) < 1e-9, `${name}: ${summary.resolutions[0]}`);
      assert.deepEqual(summary.origin.map((metres) => Math.round(metres * 1000) / 1000), [-20037508.343, 20037508.343], name);
      if (requestEncoding === 'REST') {
        assert.equal(summary.requestEncoding, 'REST', name);
        assert.deepEqual(summary.urls, [`${meridianUrl}/maps/world/wmts/{TileMatrixSet}/{TileMatrix}/{TileCol}/{TileRow}.png?key=${key}`], name);
      } else {
        assert.equal(summary.requestEncoding, 'KVP', name);
        assert.deepEqual(summary.urls, [`${meridianUrl}/maps/world/wmts?key=${key}&`], name);
      }
      assert.ok(drawn.complete, `${name}: rendered within ${RENDER_TIMEOUT_MS} ms`);
      assert.deepEqual(drawn.failed, [], `${name}: failed tiles`);
      const tiles = tileResponses.filter(({ url: tileUrl }) => tilePattern.test(tileUrl));
      assert.equal(tiles.length, tileSize === 256 ? 4 : 1, `${name}: ${JSON.stringify(tileResponses)}`);
      assert.deepEqual(tileResponses.filter(({ status }) => status !== 200), [], `${name}: every request answered`);
      assert.equal(drawn.loaded, tiles.length, name);

      const screenshot = await tab.screenshot({ clip: { x: 0, y: 0, width: 512, height: 512 } });
      const file = `wmts-openlayers-${matrixSet}-${requestEncoding}`;
      writeFileSync(path.join(artifacts, `${file}.png`), screenshot);
      const actual = await sharp(screenshot).ensureAlpha().raw().toBuffer();
      const diff = new Uint8Array(512 * 512 * 4);
      const differing = pixelmatch(actual, expected, diff, 512, 512, { threshold: 0.1 }) / (512 * 512);
      writeFileSync(path.join(artifacts, `${file}-diff.png`), await sharp(diff, { raw: { width: 512, height: 512, channels: 4 } }).png().toBuffer());
      assert.ok(differing <= MAX_DIFFERENCE, `${name}: ${(differing * 100).toFixed(2)} % of pixels differ from the static image`);
    }
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(failedRequests, []);
  } finally {
    await browser.close();
  }
});
