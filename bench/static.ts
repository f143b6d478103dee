/**
 * `npm run bench:static`: the `world` map as the quick start builds it (labels included) rendered
 * through HTTP by a `meridian serve` process with one render thread (one core), and the same views
 * rendered by MapLibre GL JS in Chromium in the same run, over the same vector tiles and fonts
 * (maplibre-peer.ts). static-labels.ts then compares styles with and without their labels.
 *
 * Views: zooms 0 to 8 at three centres each; images 512x512 and 1024x768@2x, PNG and JPEG. Each
 * view is first asked for once (cold: its tiles are read and decoded), then `repeat` times (warm).
 * The two sides take turns image by image, so that the load of the shared machine weighs on both
 * alike, with a pause before each image (`afterPause`) so that none measures the trailing work of the
 * one before. Ours is an HTTP request answered by the server: key check, render, overlays (the
 * attribution), reading the pixels, encoding and sending them; nothing is kept between two
 * requests of a view but decoded tiles (and paths derived from them). MapLibre's cold figure is
 * jumpTo → idle → readback; warm, it is measured twice: `pan`, the view moved by a pixel with its
 * tiles loaded (symbols placed and every layer drawn again: a new image of a loaded area, what our
 * warm request is), and `redraw`, the same frame drawn again (MapLibre keeps its GPU buffers and
 * its placement). Readback is `toBlob`: the pixels read from WebGL and encoded. Both sides encode
 * at the same JPEG quality (0.9) and both PNGs are lossless; the mean size of each side's images is
 * printed so that the encoders' effort can be compared. So that a run can be read, it prints the
 * load average before and after the images, and a key-gated `/ping` asked for after the same pause
 * (`roundTrip`): the HTTP round trip each of our figures holds and MapLibre's, taken in its page, do
 * not. On this kind of machine that part grows when the cores have idled (see the README).
 *
 * The memory phase then renders MERIDIAN_BENCH_MEMORY_RENDERS images of MERIDIAN_BENCH_MEMORY_VIEWS
 * varied views, round after round (set MERIDIAN_MAPS_TILE_CACHE_MB to try another tile cache), and
 * prints the server's resident memory over the run and its trend: the mean of the last quarter's
 * samples against the second quarter's (the first holds the first round, which loads the tiles).
 */
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { afterPause, createKey, percentile, saveResults, startInstance, timedGet, type Instance } from './instance.js';
import type { MapLibrePeer } from './maplibre-peer.js';
import { startPeerMaps } from './peer-maps.js';
import { streetMaps, worldMaps } from './world.js';

const repeat = Number(process.env.MERIDIAN_BENCH_REPEAT ?? 5);
const centres: [number, number][] = [[10, 50], [-95, 38], [110, 15]];
const sizes = [
  { name: '512x512', width: 512, height: 512, pixelRatio: 1 },
  { name: '1024x768@2x', width: 1024, height: 768, pixelRatio: 2 },
] as const;
const formats = ['png', 'jpg'] as const;
const memoryRenders = Number(process.env.MERIDIAN_BENCH_MEMORY_RENDERS ?? 12000);
const memoryViews = Number(process.env.MERIDIAN_BENCH_MEMORY_VIEWS ?? 1500);

interface View {
  center: [number, number];
  zoom: number;
}
const views: View[] = [];
for (let zoom = 0; zoom <= 8; zoom++) for (const center of centres) views.push({ center, zoom });
/** The streets map over the West Oakland sample (the quick start imports it): zooms 14 to 17 over the extract. */
const streetCentres: [number, number][] = [[-122.3004, 37.8076], [-122.2995, 37.8085]];
const streetViews: View[] = [];
for (let zoom = 14; zoom <= 17; zoom++) for (const center of streetCentres) streetViews.push({ center, zoom });

/** Milliseconds of each image, and the size of each, per side. */
interface Ours {
  cold: number[];
  warm: number[];
  bytes: number[];
}
interface Theirs {
  cold: number[];
  pan: number[];
  redraw: number[];
  bytes: number[];
  /** Tiles fetched during pans, which should have found them loaded. */
  fetchedOnPan: number;
}

async function compare(instance: Instance, key: string, peer: MapLibrePeer, map: string, style: unknown, views: readonly View[]): Promise<Record<string, { ours: Ours; theirs: Theirs }>> {
  const results: Record<string, { ours: Ours; theirs: Theirs }> = {};
  for (const size of sizes) {
    for (const format of formats) {
      const ours: Ours = { cold: [], warm: [], bytes: [] };
      const theirs: Theirs = { cold: [], pan: [], redraw: [], bytes: [], fetchedOnPan: 0 };
      results[`${map} ${size.name}.${format}`] = { ours, theirs };
      const page = await peer.open(style, size);
      try {
        for (const view of views) {
          const scale = size.pixelRatio === 2 ? '@2x' : '';
          const url = `${instance.base}/api/maps/${map}/static/${view.center[0]},${view.center[1]},${view.zoom}/${size.width}x${size.height}${scale}.${format}?key=${key}`;
          const record = (series: number[], bytes: number[], image: { ms: number; bytes: number }) => {
            series.push(image.ms);
            bytes.push(image.bytes);
          };
          record(ours.cold, ours.bytes, await afterPause(() => timedGet(url)));
          record(theirs.cold, theirs.bytes, await afterPause(() => page.cold(view, format)));
          for (let i = 0; i < repeat; i++) {
            record(ours.warm, ours.bytes, await afterPause(() => timedGet(url)));
            const pan = await afterPause(() => page.pan(view, format));
            theirs.fetchedOnPan += pan.fetched;
            record(theirs.pan, theirs.bytes, pan);
            record(theirs.redraw, theirs.bytes, await afterPause(() => page.redraw(format)));
          }
        }
      } finally {
        await page.close();
      }
    }
  }
  return results;
}

/**
 * Resident memory over many renders: MERIDIAN_BENCH_MEMORY_VIEWS varied views (a deterministic
 * walk over zooms 0-8, sizes, formats, markers and paths) asked for again and again, round after
 * round, sampled every twentieth of the run. Once the first round has loaded their tiles (the
 * cache is larger than what they need), a render should leave nothing behind: memory stays flat.
 */
async function memoryOverRenders(base: string, key: string, rssMiB: () => number): Promise<{ after: number; rss: number }[]> {
  let seed = 1;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const urls = Array.from({ length: memoryViews }, (_, i) => {
    const lon = (next() * 360 - 180).toFixed(3);
    const lat = (next() * 140 - 70).toFixed(3);
    const zoom = (next() * 8).toFixed(2);
    const [width, height] = [128 + Math.floor(next() * 600), 128 + Math.floor(next() * 600)];
    const format = formats[i % formats.length];
    const overlays = `&markers=${lon},${lat},red&path=stroke:blue|width:3|${lon},${lat}|${(Number(lon) / 2).toFixed(3)},${(Number(lat) / 2).toFixed(3)}`;
    return `${base}/api/maps/world/static/${lon},${lat},${zoom}/${width}x${height}.${format}?key=${key}${overlays}`;
  });
  const samples: { after: number; rss: number }[] = [{ after: 0, rss: rssMiB() }];
  const every = Math.max(1, Math.floor(memoryRenders / 20));
  for (let i = 1; i <= memoryRenders; i++) {
    await timedGet(urls[(i - 1) % urls.length]!);
    if (i % every === 0) samples.push({ after: i, rss: rssMiB() });
  }
  return samples;
}

/**
 * A key-gated `/ping` asked for after the same pause as every image: the HTTP round trip, with the
 * threads it wakes, that each of our figures holds and MapLibre's, taken inside its page, do not.
 */
async function roundTrip(base: string, key: string): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < 50; i++) times.push((await afterPause(() => timedGet(`${base}/ping?key=${key}`))).ms);
  return summary(times);
}

const summary = (values: number[]) => ({ p50: percentile(values, 50), p95: percentile(values, 95) });
const meanOf = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);

/** Mean RSS of the samples in the second and in the last quarter of the run. */
function rssTrend(samples: { after: number; rss: number }[]): { second: number; last: number } {
  const run = samples.filter((sample) => sample.after > 0);
  const quarter = Math.max(1, Math.floor(run.length / 4));
  return { second: meanOf(run.slice(quarter, 2 * quarter).map((s) => s.rss)), last: meanOf(run.slice(-quarter).map((s) => s.rss)) };
}
const ms = (value: number) => value.toFixed(1).padStart(7);

const maps = await worldMaps();
const streets = await streetMaps(maps.dir);
const instance = await startInstance({ MERIDIAN_MAPS_DIR: maps.dir, MERIDIAN_MAPS_WORKERS: '1' });
const peerMaps = await startPeerMaps(maps.dir, streets);
const { peer } = peerMaps;
try {
  const key = await createKey(instance);
  const style = peerMaps.styles.world;
  const streetStyle = peerMaps.styles[streets.id];
  const loadBefore = loadavg()[0]!;
  const pingBefore = await roundTrip(instance.base, key);
  const results = { ...(await compare(instance, key, peer, 'world', style, views)), ...(await compare(instance, key, peer, streets.id, streetStyle, streetViews)) };
  const pingAfter = await roundTrip(instance.base, key);
  const loadAfter = loadavg()[0]!;
  const memory = await memoryOverRenders(instance.base, key, instance.rssMiB);
  const rows = Object.entries(results).map(([image, { ours, theirs }]) => ({
    image,
    meridian: { cold: summary(ours.cold), warm: summary(ours.warm) },
    maplibre: { cold: summary(theirs.cold), pan: summary(theirs.pan), redraw: summary(theirs.redraw), fetchedOnPan: theirs.fetchedOnPan },
    meanKB: { meridian: meanOf(ours.bytes) / 1024, maplibre: meanOf(theirs.bytes) / 1024 },
  }));
  console.log(`world: ${views.length} views (zooms 0-8 × ${centres.length} centres); ${streets.id} (streets): ${streetViews.length} views (zooms 14-17 × ${streetCentres.length} centres); ${repeat} warm repeats each, the two sides taking turns; milliseconds`);
  console.log('ours: HTTP request (render, overlays, readback, encoding); MapLibre pan: jumpTo a loaded view → idle → toBlob; redraw: map.redraw() → toBlob');
  console.log('image                          | Meridian warm p50    p95 | MapLibre pan p50    p95 | ratio | MapLibre redraw p50    p95 | ratio | cold: Meridian  MapLibre  ratio | mean KB ours / MapLibre');
  for (const row of rows) {
    const ratio = (theirs: number, ours: number) => `${(theirs / ours).toFixed(1).padStart(4)}x`;
    console.log(
      `${row.image.padEnd(30)} | ${ms(row.meridian.warm.p50)} ${ms(row.meridian.warm.p95)}          | ${ms(row.maplibre.pan.p50)} ${ms(row.maplibre.pan.p95)}         | ${ratio(row.maplibre.pan.p50, row.meridian.warm.p50)} | ${ms(row.maplibre.redraw.p50)} ${ms(row.maplibre.redraw.p95)}            | ${ratio(row.maplibre.redraw.p50, row.meridian.warm.p50)} | ${ms(row.meridian.cold.p50)}  ${ms(row.maplibre.cold.p50)}  ${ratio(row.maplibre.cold.p50, row.meridian.cold.p50)} | ${row.meanKB.meridian.toFixed(0)} / ${row.meanKB.maplibre.toFixed(0)}`,
    );
    if (row.maplibre.fetchedOnPan > 0) console.log(`  (MapLibre fetched ${row.maplibre.fetchedOnPan} tiles during its pans: not all were loaded)`);
  }
  console.log(`load average (1 min) ${loadBefore.toFixed(1)} before the images, ${loadAfter.toFixed(1)} after; a key-gated /ping after the same pause (the HTTP round trip in each of our figures): p50 ${pingBefore.p50.toFixed(1)} ms before, ${pingAfter.p50.toFixed(1)} ms after`);
  // MERIDIAN_BENCH_MEMORY_RENDERS=0 leaves the memory phase out: nothing to report.
  const trend = memoryRenders > 0 ? rssTrend(memory) : null;
  if (trend) {
    console.log(`server memory over ${memoryRenders} renders of ${memoryViews} varied views (MiB): ${memory.map((sample) => `${sample.after}: ${sample.rss.toFixed(0)}`).join(', ')}`);
    const change = ((trend.last - trend.second) / trend.second) * 100;
    console.log(`server RSS trend: second quarter mean ${trend.second.toFixed(0)} MiB, last quarter mean ${trend.last.toFixed(0)} MiB (${change >= 0 ? '+' : ''}${change.toFixed(1)}%)`);
  }
  saveResults('static', { views: views.length, repeat, loadAverage: { before: loadBefore, after: loadAfter }, ping: { before: pingBefore, after: pingAfter }, rows, memory, rssTrend: trend });
} finally {
  await peerMaps.close();
  await instance.stop();
  if (maps.temporary) rmSync(maps.dir, { recursive: true, force: true });
}
