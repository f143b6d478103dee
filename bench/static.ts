/**
 * `npm run bench:static`: the `world` map rendered through HTTP by a `meridian serve` process with
 * one render thread (one core), and the same views rendered by MapLibre GL JS in Chromium in the
 * same run, over the same vector tiles.
 *
 * Views: zooms 0 to 8 at three centres each; images 512x512 and 1024x768@2x, PNG and JPEG. Each
 * view is first asked for once (cold: its tiles are read and decoded), then `repeat` times (warm).
 * MapLibre's cold figure is jumpTo → idle → readback (tiles fetched from a local server and parsed
 * in its workers); its warm figure is a redraw of the loaded view plus readback. Both sides include
 * encoding the image: toBlob in the browser, the response body here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { openArchive, type Archive } from '../src/platform/pmtiles.js';
import { buildWorld } from '../src/maps/world/build.js';
import { launchChromium } from '../test/maps/chromium.js';
import { createKey, percentile, root, saveResults, startInstance } from './instance.js';

const repeat = Number(process.env.MERIDIAN_BENCH_REPEAT ?? 5);
const centres: [number, number][] = [[10, 50], [-95, 38], [110, 15]];
const sizes = [
  { name: '512x512', width: 512, height: 512, pixelRatio: 1 },
  { name: '1024x768@2x', width: 1024, height: 768, pixelRatio: 2 },
] as const;
const formats = ['png', 'jpg'] as const;
const memoryRenders = Number(process.env.MERIDIAN_BENCH_MEMORY_RENDERS ?? 3000);

interface View {
  center: [number, number];
  zoom: number;
}
const views: View[] = [];
for (let zoom = 0; zoom <= 8; zoom++) for (const center of centres) views.push({ center, zoom });

async function worldMaps(): Promise<{ dir: string; temporary: boolean }> {
  const existing = path.join(root, 'data/maps');
  if (existsSync(path.join(existing, 'world.json'))) return { dir: existing, temporary: false };
  const dir = mkdtempSync(path.join(tmpdir(), 'meridian-bench-maps-'));
  console.log('building the world map (no data/maps/world.json yet)…');
  await buildWorld(dir);
  return { dir, temporary: true };
}

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function meridian(mapsDir: string) {
  const instance = await startInstance({ MERIDIAN_MAPS_DIR: mapsDir, MERIDIAN_MAPS_WORKERS: '1' });
  const key = await createKey(instance);
  const results: Record<string, { cold: number[]; warm: number[] }> = {};
  let memory: { after: number; rss: number }[] = [];
  try {
    for (const size of sizes) {
      for (const format of formats) {
        const entry = (results[`${size.name}.${format}`] = { cold: [] as number[], warm: [] as number[] });
        for (const { center, zoom } of views) {
          const scale = size.pixelRatio === 2 ? '@2x' : '';
          const url = `${instance.base}/api/maps/world/static/${center[0]},${center[1]},${zoom}/${size.width}x${size.height}${scale}.${format}?key=${key}`;
          const fetchImage = async () => {
            const response = await fetch(url);
            if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
            await response.arrayBuffer();
          };
          entry.cold.push(await time(fetchImage));
          for (let i = 0; i < repeat; i++) entry.warm.push(await time(fetchImage));
        }
      }
    }
    memory = await memoryOverRenders(instance.base, key, instance.rssMiB);
  } finally {
    await instance.stop();
  }
  return { results, memory };
}

/**
 * Resident memory over many renders of varied views (a deterministic walk over zooms 0-8, sizes and
 * formats, markers and paths included), sampled every tenth of the run: it should level off once
 * the tile cache is full, not keep growing.
 */
async function memoryOverRenders(base: string, key: string, rssMiB: () => number): Promise<{ after: number; rss: number }[]> {
  const samples: { after: number; rss: number }[] = [{ after: 0, rss: rssMiB() }];
  let seed = 1;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 1; i <= memoryRenders; i++) {
    const lon = (next() * 360 - 180).toFixed(3);
    const lat = (next() * 140 - 70).toFixed(3);
    const zoom = (next() * 8).toFixed(2);
    const [width, height] = [128 + Math.floor(next() * 600), 128 + Math.floor(next() * 600)];
    const format = formats[i % formats.length];
    const overlays = `&markers=${lon},${lat},red&path=stroke:blue|width:3|${lon},${lat}|${(Number(lon) / 2).toFixed(3)},${(Number(lat) / 2).toFixed(3)}`;
    const response = await fetch(`${base}/api/maps/world/static/${lon},${lat},${zoom}/${width}x${height}.${format}?key=${key}${overlays}`);
    if (!response.ok) throw new Error(`memory run: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    if (i % Math.max(1, Math.floor(memoryRenders / 10)) === 0) samples.push({ after: i, rss: rssMiB() });
  }
  return samples;
}

/** Serves maplibre-gl, a page, and the archive's tiles as z/x/y (decompressed). */
async function tileServer(archive: Archive): Promise<{ server: Server; origin: string }> {
  const dist = path.join(root, 'node_modules/maplibre-gl/dist');
  const page = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0}</style>
<script type="module">
import * as maplibregl from '/maplibre-gl.mjs';
let map;
window.setup = ({ style, size }) => {
  const container = document.getElementById('map');
  container.style.width = size.width + 'px';
  container.style.height = size.height + 'px';
  map = new maplibregl.Map({
    container, style, center: [0, 0], zoom: 0, pixelRatio: size.pixelRatio, interactive: false, fadeDuration: 0,
    attributionControl: false, canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  return new Promise((resolve) => map.once('idle', resolve));
};
window.measure = async ({ view, mime, repeat }) => {
  const readback = () => new Promise((resolve) => map.getCanvas().toBlob(resolve, mime, 0.9));
  let start = performance.now();
  map.jumpTo(view);
  await new Promise((resolve) => map.once('idle', resolve));
  await readback();
  const cold = performance.now() - start;
  const warm = [];
  for (let i = 0; i < repeat; i++) {
    start = performance.now();
    map.redraw();
    await readback();
    warm.push(performance.now() - start);
  }
  return { cold, warm };
};
window.ready = true;
</script></head><body><div id="map"></div></body></html>`;
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const tile = /^\/tiles\/(\d+)\/(\d+)\/(\d+)\.pbf$/.exec(url.pathname);
    if (tile) {
      const data = await archive.tile(Number(tile[1]), Number(tile[2]), Number(tile[3]));
      if (!data) return response.writeHead(404).end();
      return response.writeHead(200, { 'content-type': 'application/x-protobuf', 'access-control-allow-origin': '*' }).end(data);
    }
    if (url.pathname === '/') return response.writeHead(200, { 'content-type': 'text/html' }).end(page);
    if (url.pathname === '/favicon.ico') return response.writeHead(204).end();
    // maplibre-gl.mjs starts its workers from files beside it.
    const file = path.join(dist, path.basename(url.pathname));
    if (url.pathname.endsWith('.mjs') && existsSync(file)) return response.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { server, origin: `http://127.0.0.1:${address.port}` };
}

async function maplibre(mapsDir: string) {
  const style = JSON.parse(readFileSync(path.join(mapsDir, 'world/style.json'), 'utf8'));
  const archive = await openArchive(path.join(mapsDir, 'world/world.pmtiles'));
  const { server, origin } = await tileServer(archive);
  style.sources.world = { type: 'vector', tiles: [`${origin}/tiles/{z}/{x}/{y}.pbf`], minzoom: 0, maxzoom: archive.maxZoom };
  const browser = await launchChromium();
  const results: Record<string, { cold: number[]; warm: number[] }> = {};
  try {
    for (const size of sizes) {
      for (const format of formats) {
        // A fresh page per size and format, so that its tile cache starts cold like the server's.
        const page = await browser.newPage({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: 1 });
        page.on('crash', () => console.error(`MapLibre page crashed (${size.name} ${format})`));
        page.on('console', (message) => {
          if (message.type() === 'error') console.error(`MapLibre: ${message.text()}`);
        });
        await page.goto(`${origin}/`);
        await page.waitForFunction('window.ready === true');
        await page.evaluate(`window.setup(${JSON.stringify({ style, size })})`);
        const entry = (results[`${size.name}.${format}`] = { cold: [] as number[], warm: [] as number[] });
        for (const view of views) {
          const mime = format === 'png' ? 'image/png' : 'image/jpeg';
          const timing = (await page.evaluate(`window.measure(${JSON.stringify({ view, mime, repeat })})`)) as { cold: number; warm: number[] };
          entry.cold.push(timing.cold);
          entry.warm.push(...timing.warm);
        }
        await page.close();
      }
    }
  } finally {
    await browser.close();
    server.close();
    await archive.close();
  }
  return results;
}

const summary = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
const ms = (value: number) => value.toFixed(1).padStart(7);

const maps = await worldMaps();
try {
  const { results: ours, memory } = await meridian(maps.dir);
  const theirs = await maplibre(maps.dir);
  const rows = Object.keys(ours).map((image) => {
    const [us, them] = [ours[image]!, theirs[image]!];
    return {
      image,
      meridian: { cold: summary(us.cold), warm: summary(us.warm) },
      maplibre: { cold: summary(them.cold), warm: summary(them.warm) },
    };
  });
  console.log(`${views.length} views (zooms 0-8 × ${centres.length} centres), ${repeat} warm repeats each; milliseconds`);
  console.log('image              | Meridian warm p50   p95 | MapLibre warm p50   p95 | warm ratio | Meridian cold p50 | MapLibre cold p50 | cold ratio');
  for (const row of rows) {
    const warmRatio = row.maplibre.warm.p50 / row.meridian.warm.p50;
    const coldRatio = row.maplibre.cold.p50 / row.meridian.cold.p50;
    console.log(
      `${row.image.padEnd(18)} | ${ms(row.meridian.warm.p50)} ${ms(row.meridian.warm.p95)}         | ${ms(row.maplibre.warm.p50)} ${ms(row.maplibre.warm.p95)}         | ${warmRatio.toFixed(1).padStart(6)}x    | ${ms(row.meridian.cold.p50)}           | ${ms(row.maplibre.cold.p50)}           | ${coldRatio.toFixed(1).padStart(6)}x`,
    );
  }
  console.log(`server memory over ${memoryRenders} varied renders (MiB): ${memory.map((sample) => `${sample.after}: ${sample.rss.toFixed(0)}`).join(', ')}`);
  saveResults('static', { views: views.length, repeat, rows, memory });
} finally {
  if (maps.temporary) rmSync(maps.dir, { recursive: true, force: true });
}
