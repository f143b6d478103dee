/**
 * `npm run bench:static`: the `world` map as the quick start builds it (labels included) rendered
 * through HTTP by a `meridian serve` process with one render thread (one core), and the same views
 * rendered by MapLibre GL JS in Chromium in the same run, over the same vector tiles and fonts
 * (maplibre-peer.ts). static-labels.ts then compares styles with and without their labels.
 *
 * Views: zooms 0 to 8 at three centres each; images 512x512 and 1024x768@2x, PNG and JPEG. Each
 * view is first asked for once (cold: its tiles are read and decoded), then `repeat` times (warm).
 * MapLibre's cold figure is jumpTo → idle → readback (tiles fetched from a local server and parsed
 * in its workers); its warm figure is a redraw of the loaded view (every layer drawn again, as
 * `map.redraw()` does) plus `toBlob`: reading the pixels back from WebGL and encoding them. Ours is
 * an HTTP request answered by the server: key check, render, overlays (the attribution), reading
 * the pixels, encoding and sending them. Both sides encode at the same JPEG quality (0.9) and both
 * PNGs are lossless; the mean size of each side's images is printed so that the encoders' effort can
 * be compared. Nothing is cached between two renders of a view on either side but decoded tiles
 * (and, here, paths derived from them; MapLibre keeps its GPU buffers).
 *
 * The memory phase then renders MERIDIAN_BENCH_MEMORY_RENDERS varied views (set
 * MERIDIAN_MAPS_TILE_CACHE_MB to try another tile cache) and prints the server's resident memory
 * over the run and its trend: the mean of the last quarter's samples against the first quarter's.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { openArchive } from '../src/platform/pmtiles.js';
import { createKey, percentile, saveResults, startInstance } from './instance.js';
import { MapLibrePeer } from './maplibre-peer.js';
import { worldMaps } from './world.js';

const repeat = Number(process.env.MERIDIAN_BENCH_REPEAT ?? 5);
const centres: [number, number][] = [[10, 50], [-95, 38], [110, 15]];
const sizes = [
  { name: '512x512', width: 512, height: 512, pixelRatio: 1 },
  { name: '1024x768@2x', width: 1024, height: 768, pixelRatio: 2 },
] as const;
const formats = ['png', 'jpg'] as const;
const memoryRenders = Number(process.env.MERIDIAN_BENCH_MEMORY_RENDERS ?? 3000);

interface Timings {
  cold: number[];
  warm: number[];
  /** Size of each image made, in bytes. */
  bytes: number[];
}

interface View {
  center: [number, number];
  zoom: number;
}
const views: View[] = [];
for (let zoom = 0; zoom <= 8; zoom++) for (const center of centres) views.push({ center, zoom });

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function meridian(mapsDir: string) {
  const instance = await startInstance({ MERIDIAN_MAPS_DIR: mapsDir, MERIDIAN_MAPS_WORKERS: '1' });
  const key = await createKey(instance);
  const results: Record<string, Timings> = {};
  let memory: { after: number; rss: number }[] = [];
  try {
    for (const size of sizes) {
      for (const format of formats) {
        const entry = (results[`${size.name}.${format}`] = { cold: [] as number[], warm: [] as number[], bytes: [] as number[] });
        for (const { center, zoom } of views) {
          const scale = size.pixelRatio === 2 ? '@2x' : '';
          const url = `${instance.base}/api/maps/world/static/${center[0]},${center[1]},${zoom}/${size.width}x${size.height}${scale}.${format}?key=${key}`;
          const fetchImage = async () => {
            const response = await fetch(url);
            if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
            entry.bytes.push((await response.arrayBuffer()).byteLength);
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
 * formats, markers and paths included), sampled every twentieth of the run: it should level off once
 * the tile cache is full, not keep growing.
 */
async function memoryOverRenders(base: string, key: string, rssMiB: () => number): Promise<{ after: number; rss: number }[]> {
  const samples: { after: number; rss: number }[] = [{ after: 0, rss: rssMiB() }];
  const every = Math.max(1, Math.floor(memoryRenders / 20));
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
    if (i % every === 0) samples.push({ after: i, rss: rssMiB() });
  }
  return samples;
}

/** The same views by MapLibre GL JS in Chromium, a fresh page per size and format. */
async function maplibre(mapsDir: string): Promise<Record<string, Timings>> {
  const style = JSON.parse(readFileSync(path.join(mapsDir, 'world/style.json'), 'utf8'));
  const archive = await openArchive(path.join(mapsDir, 'world/world.pmtiles'));
  const peer = await MapLibrePeer.start({ world: archive });
  style.sources.world = { type: 'vector', tiles: [peer.tiles('world')], minzoom: 0, maxzoom: archive.maxZoom };
  style.glyphs = peer.glyphs;
  peer.prepareGlyphs(style);
  const results: Record<string, Timings> = {};
  try {
    for (const size of sizes) {
      for (const format of formats) results[`${size.name}.${format}`] = await peer.measure(style, size, views, format, repeat);
    }
  } finally {
    await peer.close();
    await archive.close();
  }
  return results;
}

const summary = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
const meanOf = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/** Mean RSS of the samples in the first and in the last quarter of the run (the start excluded). */
function rssTrend(samples: { after: number; rss: number }[]): { first: number; last: number } {
  const run = samples.filter((sample) => sample.after > 0);
  const quarter = Math.max(1, Math.floor(run.length / 4));
  return { first: meanOf(run.slice(0, quarter).map((s) => s.rss)), last: meanOf(run.slice(-quarter).map((s) => s.rss)) };
}
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
      meanKB: { meridian: meanOf(us.bytes) / 1024, maplibre: meanOf(them.bytes) / 1024 },
    };
  });
  console.log(`${views.length} views (zooms 0-8 × ${centres.length} centres), ${repeat} warm repeats each; milliseconds`);
  console.log('warm: ours = HTTP request, render, overlays, readback, encoding; MapLibre = map.redraw() + toBlob (WebGL readback + encoding)');
  console.log('image              | Meridian warm p50   p95 | MapLibre warm p50   p95 | warm ratio | Meridian cold p50 | MapLibre cold p50 | cold ratio | mean KB ours / MapLibre');
  for (const row of rows) {
    const warmRatio = row.maplibre.warm.p50 / row.meridian.warm.p50;
    const coldRatio = row.maplibre.cold.p50 / row.meridian.cold.p50;
    console.log(
      `${row.image.padEnd(18)} | ${ms(row.meridian.warm.p50)} ${ms(row.meridian.warm.p95)}         | ${ms(row.maplibre.warm.p50)} ${ms(row.maplibre.warm.p95)}         | ${warmRatio.toFixed(1).padStart(6)}x    | ${ms(row.meridian.cold.p50)}           | ${ms(row.maplibre.cold.p50)}           | ${coldRatio.toFixed(1).padStart(6)}x     | ${row.meanKB.meridian.toFixed(0)} / ${row.meanKB.maplibre.toFixed(0)}`,
    );
  }
  console.log(`server memory over ${memoryRenders} varied renders (MiB): ${memory.map((sample) => `${sample.after}: ${sample.rss.toFixed(0)}`).join(', ')}`);
  const trend = rssTrend(memory);
  const change = ((trend.last - trend.first) / trend.first) * 100;
  console.log(`server RSS trend: first quarter mean ${trend.first.toFixed(0)} MiB, last quarter mean ${trend.last.toFixed(0)} MiB (${change >= 0 ? '+' : ''}${change.toFixed(1)}%)`);
  saveResults('static', { views: views.length, repeat, rows, memory, rssTrend: trend });
} finally {
  if (maps.temporary) rmSync(maps.dir, { recursive: true, force: true });
}
