/**
 * The peer of the static-map benchmarks: MapLibre GL JS in headless Chromium, rendering the same
 * styles over the same tiles and fonts as Meridian. A local HTTP server serves maplibre-gl, one
 * page, the tiles of each archive as z/x/y (decompressed, as a tile server would send them) and the
 * glyph ranges of Meridian's font catalog, made once and kept, so that no view waits for a font
 * being made.
 *
 * A page (`PeerPage`) renders one size; the benchmark asks it for one image at a time, between
 * its own requests to Meridian, so that the load of the shared machine weighs on both alike:
 *  - `cold`: jumpTo → idle → readback, the view's tiles fetched and parsed in MapLibre's workers;
 *  - `pan`: the view moved by one pixel and back, each time jumpTo → idle → readback: a new frame of
 *    a loaded area (tiles cached, symbols placed again), what a MapLibre-based static-map server
 *    pays per request where its tile cache is warm; it reports whether any tile had to be fetched;
 *  - `sequence`: new views one after the other, back to back, each jumpTo → idle → readback (the
 *    load phase's throughput);
 *  - `redraw`: the same frame drawn again (`map.redraw()`, every layer) and read back: the least
 *    MapLibre can do for an image.
 * Readback is `toBlob`: the pixels read from WebGL and encoded (JPEG at quality 0.9).
 */

import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { FontCatalog } from '../src/render/glyphs/catalog.js';
import { glyphRangePbf } from '../src/render/glyphs/pbf.js';
import type { Archive } from '../src/platform/pmtiles.js';
import { launchChromium } from '../test/chromium.js';
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

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}</style>
<script type="module">
import * as maplibregl from '/maplibre-gl.mjs';
let map;
window.setup = ({ style, size, view }) => {
  const container = document.getElementById('map');
  container.style.width = size.width + 'px';
  container.style.height = size.height + 'px';
  map = new maplibregl.Map({
    container, style, center: view.center, zoom: view.zoom, pixelRatio: size.pixelRatio, interactive: false, fadeDuration: 0,
    attributionControl: false, localIdeographFontFamily: false, canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  return new Promise((resolve) => map.once('idle', resolve));
};
const readback = (mime) => new Promise((resolve) => map.getCanvas().toBlob((blob) => resolve(blob.size), mime, 0.9));
const settled = () => new Promise((resolve) => map.once('idle', resolve));
window.cold = async ({ view, mime }) => {
  const start = performance.now();
  map.jumpTo(view);
  await settled();
  const bytes = await readback(mime);
  return { ms: performance.now() - start, bytes };
};
window.pan = async ({ view, dx, mime }) => {
  const start = performance.now();
  map.jumpTo(view);
  map.panBy([dx, 0], { duration: 0 });
  await settled();
  const bytes = await readback(mime);
  return { ms: performance.now() - start, bytes };
};
window.sequence = async ({ views, mime, ms }) => {
  const times = [];
  let bytes = 0;
  const start = performance.now();
  for (const view of views) {
    if (performance.now() - start >= ms) break;
    const begun = performance.now();
    map.jumpTo(view);
    await settled();
    bytes += await readback(mime);
    times.push(performance.now() - begun);
  }
  return { times, bytes, ms: performance.now() - start };
};
window.redraw = async ({ mime }) => {
  const start = performance.now();
  map.redraw();
  const bytes = await readback(mime);
  return { ms: performance.now() - start, bytes };
};
window.ready = true;
</script></head><body><div id="map"></div></body></html>`;

/** One image made by the peer: how long it took and the size of its encoding. */
export interface PeerImage {
  ms: number;
  bytes: number;
}

/** Images made back to back by the peer (`PeerPage.sequence`). */
export interface PeerSequence {
  /** Milliseconds of each image. */
  times: number[];
  /** Bytes of all the images. */
  bytes: number;
  /** Milliseconds from the first image's start to the last one's end. */
  ms: number;
  /** Tiles the page asked for meanwhile (0 when the area was loaded). */
  fetched: number;
}

/** A MapLibre map of one style and size in its own page (its caches start cold, as the server's do). */
export class PeerPage {
  private offset = 1;

  constructor(
    private readonly page: Page,
    private readonly peer: MapLibrePeer,
  ) {}

  private run(name: string, args: object): Promise<PeerImage> {
    return this.page.evaluate(`window.${name}(${JSON.stringify(args)})`) as Promise<PeerImage>;
  }

  /** The view from elsewhere: its tiles fetched and parsed, then drawn and read back. */
  cold(view: PeerView, format: 'png' | 'jpg'): Promise<PeerImage> {
    return this.run('cold', { view, mime: mimeOf(format) });
  }

  /**
   * The view shifted by one pixel, alternately either way, from the view last drawn; `fetched`
   * counts the tiles the page had to ask for (0 when the area was loaded, as intended).
   */
  async pan(view: PeerView, format: 'png' | 'jpg'): Promise<PeerImage & { fetched: number }> {
    this.offset = -this.offset;
    const before = this.peer.tileRequests;
    const image = await this.run('pan', { view, dx: this.offset, mime: mimeOf(format) });
    return { ...image, fetched: this.peer.tileRequests - before };
  }

  /**
   * `views` one after the other, back to back, each jumpTo → idle → readback, for `ms` at most (or
   * until the list ends): each image's time, their bytes, the time taken, and the tiles fetched.
   */
  async sequence(views: readonly PeerView[], format: 'png' | 'jpg', ms: number): Promise<PeerSequence> {
    const before = this.peer.tileRequests;
    const result = (await this.page.evaluate(`window.sequence(${JSON.stringify({ views, mime: mimeOf(format), ms })})`)) as Omit<PeerSequence, 'fetched'>;
    return { ...result, fetched: this.peer.tileRequests - before };
  }

  /** The frame on screen drawn again and read back. */
  redraw(format: 'png' | 'jpg'): Promise<PeerImage> {
    return this.run('redraw', { mime: mimeOf(format) });
  }

  close(): Promise<void> {
    return this.page.close();
  }
}

const mimeOf = (format: 'png' | 'jpg') => (format === 'png' ? 'image/png' : 'image/jpeg');

export class MapLibrePeer {
  private constructor(
    private readonly browser: Browser,
    private readonly close_: () => void,
    private readonly glyphRanges: Map<string, Uint8Array>,
    /** Where the page, the tiles (`/tiles/<archive>/{z}/{x}/{y}.pbf`) and the glyphs are served. */
    readonly origin: string,
    private readonly served: { tiles: number },
  ) {}

  /** How many tiles the pages have asked for so far. */
  get tileRequests(): number {
    return this.served.tiles;
  }

  /**
   * Serves `archives` by name, `files` by name (`/files/<name>`: a sprite's `.json` and `.png`,
   * `@2x` too) and the glyphs of the default font catalog, and starts Chromium.
   */
  static async start(archives: Record<string, Archive>, files: Record<string, string> = {}): Promise<MapLibrePeer> {
    const dist = path.join(root, 'node_modules/maplibre-gl/dist');
    const catalog = FontCatalog.default();
    const glyphs = new Map<string, Uint8Array>();
    const served = { tiles: 0 };
    const server = createServer(async (request, response) => {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const tile = /^\/tiles\/([^/]+)\/(\d+)\/(\d+)\/(\d+)\.pbf$/.exec(url.pathname);
      if (tile) {
        served.tiles++;
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
      const named = /^\/files\/(.+)$/.exec(url.pathname);
      const local = named ? files[decodeURIComponent(named[1]!)] : undefined;
      if (local) return response.writeHead(200, { 'content-type': local.endsWith('.png') ? 'image/png' : 'application/json' }).end(readFileSync(local));
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
    return new MapLibrePeer(browser, () => server.close(), glyphs, `http://127.0.0.1:${address.port}`, served);
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

  /** The URL of a file served by name. */
  file(name: string): string {
    return `${this.origin}/files/${name}`;
  }

  /** The tile URL of an archive served by name. */
  tiles(name: string): string {
    return `${this.origin}/tiles/${name}/{z}/{x}/{y}.pbf`;
  }

  /** A page showing `style` at `size`, loaded on `view` (by default the whole world). */
  async open(style: unknown, size: PeerSize, view: PeerView = { center: [0, 0], zoom: 0 }): Promise<PeerPage> {
    const page = await this.browser.newPage({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
    page.on('crash', () => console.error(`MapLibre page crashed (${size.width}x${size.height})`));
    page.on('console', (message) => {
      if (message.type() === 'error') console.error(`MapLibre: ${message.text()}`);
    });
    await page.goto(`${this.origin}/`);
    await page.waitForFunction('window.ready === true');
    await page.evaluate(`window.setup(${JSON.stringify({ style, size, view })})`);
    return new PeerPage(page, this);
  }

  async close(): Promise<void> {
    await this.browser.close();
    this.close_();
  }
}
