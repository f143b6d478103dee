/**
 * The peer of the static-map benchmarks: MapLibre GL JS in headless Chromium, rendering the same
 * styles over the same tiles and fonts as Meridian. A local HTTP server serves maplibre-gl, one
 * page, the tiles of each archive as z/x/y (decompressed, as a tile server would send them) and the
 * glyph ranges of Meridian's font catalog, made once and kept, so that no view waits for a font
 * being made.
 *
 * Per view, `cold` is jumpTo → idle → readback (tiles fetched and parsed in MapLibre's workers)
 * and `warm` a redraw of the loaded view (`map.redraw()`, every layer drawn again) plus readback;
 * readback is `toBlob`: the pixels read from WebGL and encoded (JPEG at quality 0.9).
 */

import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { FontCatalog } from '../src/maps/glyphs/catalog.js';
import { glyphRangePbf } from '../src/maps/glyphs/pbf.js';
import type { Archive } from '../src/platform/pmtiles.js';
import { launchChromium } from '../test/maps/chromium.js';
import { root } from './instance.js';

export interface PeerSize {
  width: number;
  height: number;
  pixelRatio: number;
}

export interface PeerView {
  center: [number, number];
  zoom: number;
}

export interface PeerTimings {
  cold: number[];
  warm: number[];
  /** Size of each image made, in bytes. */
  bytes: number[];
}

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}</style>
<script type="module">
import * as maplibregl from '/maplibre-gl.mjs';
let map;
window.setup = ({ style, size }) => {
  const container = document.getElementById('map');
  container.style.width = size.width + 'px';
  container.style.height = size.height + 'px';
  map = new maplibregl.Map({
    container, style, center: [0, 0], zoom: 0, pixelRatio: size.pixelRatio, interactive: false, fadeDuration: 0,
    attributionControl: false, localIdeographFontFamily: false, canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  return new Promise((resolve) => map.once('idle', resolve));
};
window.measure = async ({ view, mime, repeat }) => {
  const readback = () => new Promise((resolve) => map.getCanvas().toBlob(resolve, mime, 0.9));
  let start = performance.now();
  map.jumpTo(view);
  await new Promise((resolve) => map.once('idle', resolve));
  const bytes = [(await readback()).size];
  const cold = performance.now() - start;
  const warm = [];
  for (let i = 0; i < repeat; i++) {
    start = performance.now();
    map.redraw();
    bytes.push((await readback()).size);
    warm.push(performance.now() - start);
  }
  return { cold, warm, bytes };
};
window.ready = true;
</script></head><body><div id="map"></div></body></html>`;

export class MapLibrePeer {
  private constructor(
    private readonly browser: Browser,
    private readonly close_: () => void,
    private readonly glyphRanges: Map<string, Uint8Array>,
    /** Where the page, the tiles (`/tiles/<archive>/{z}/{x}/{y}.pbf`) and the glyphs are served. */
    readonly origin: string,
  ) {}

  /** Serves `archives` by name and the glyphs of the default font catalog, and starts Chromium. */
  static async start(archives: Record<string, Archive>): Promise<MapLibrePeer> {
    const dist = path.join(root, 'node_modules/maplibre-gl/dist');
    const catalog = FontCatalog.default();
    const glyphs = new Map<string, Uint8Array>();
    const server = createServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const tile = /^\/tiles\/([^/]+)\/(\d+)\/(\d+)\/(\d+)\.pbf$/.exec(url.pathname);
      if (tile) {
        const archive = archives[tile[1]!];
        const data = archive ? await archive.tile(Number(tile[2]), Number(tile[3]), Number(tile[4])) : null;
        if (!data) return response.writeHead(404).end();
        return response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(data);
      }
      const font = /^\/fonts\/([^/]+)\/(\d+)-\d+\.pbf$/.exec(url.pathname);
      if (font) {
        const fontstack = decodeURIComponent(font[1]!);
        const key = `${fontstack}/${font[2]}`;
        let pbf = glyphs.get(key);
        if (!pbf) {
          pbf = glyphRangePbf(catalog, fontstack.split(','), Number(font[2]));
          glyphs.set(key, pbf);
        }
        return response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(pbf);
      }
      if (url.pathname === '/') return response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      if (url.pathname === '/favicon.ico') return response.writeHead(204).end();
      // maplibre-gl.mjs starts its workers from files beside it.
      const file = path.join(dist, path.basename(url.pathname));
      if (url.pathname.endsWith('.mjs') && existsSync(file)) return response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    const browser = await launchChromium();
    return new MapLibrePeer(browser, () => server.close(), glyphs, `http://127.0.0.1:${address.port}`);
  }

  /**
   * Makes the Latin glyph ranges (0-511) of every fontstack a style names in its symbol layers
   * beforehand, so that no measured view waits for fonts being made here.
   */
  prepareGlyphs(style: { layers: { type: string; layout?: Record<string, unknown> }[] }): void {
    const catalog = FontCatalog.default();
    for (const layer of style.layers) {
      const fonts = layer.type === 'symbol' ? layer.layout?.['text-font'] : undefined;
      const stacks = Array.isArray(fonts) && fonts.every((name) => typeof name === 'string') ? [fonts as string[]] : [['Noto Sans Regular']];
      for (const stack of stacks) {
        for (const start of [0, 256]) {
          const key = `${stack.join(',')}/${start}`;
          if (!this.glyphRanges.has(key)) this.glyphRanges.set(key, glyphRangePbf(catalog, stack, start));
        }
      }
    }
  }

  /** The glyphs URL to give the styles MapLibre renders. */
  get glyphs(): string {
    return `${this.origin}/fonts/{fontstack}/{range}.pbf`;
  }

  /** The tile URL of an archive served by name. */
  tiles(name: string): string {
    return `${this.origin}/tiles/${name}/{z}/{x}/{y}.pbf`;
  }

  /**
   * Renders each view once cold and `repeat` times warm in a fresh page (its caches start cold, as
   * the server's do), after the style has loaded on a view of the whole world.
   */
  async measure(style: unknown, size: PeerSize, views: readonly PeerView[], format: 'png' | 'jpg', repeat: number): Promise<PeerTimings> {
    const page = await this.browser.newPage({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
    page.on('crash', () => console.error(`MapLibre page crashed (${size.width}x${size.height} ${format})`));
    page.on('console', (message) => {
      if (message.type() === 'error') console.error(`MapLibre: ${message.text()}`);
    });
    try {
      await page.goto(`${this.origin}/`);
      await page.waitForFunction('window.ready === true');
      await page.evaluate(`window.setup(${JSON.stringify({ style, size })})`);
      const timings: PeerTimings = { cold: [], warm: [], bytes: [] };
      const mime = format === 'png' ? 'image/png' : 'image/jpeg';
      for (const view of views) {
        const timing = (await page.evaluate(`window.measure(${JSON.stringify({ view, mime, repeat })})`)) as { cold: number; warm: number[]; bytes: number[] };
        timings.cold.push(timing.cold);
        timings.warm.push(...timing.warm);
        timings.bytes.push(...timing.bytes);
      }
      return timings;
    } finally {
      await page.close();
    }
  }

  async close(): Promise<void> {
    await this.browser.close();
    this.close_();
  }
}
