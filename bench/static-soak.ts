/**
 * `npm run bench:static`, soak: MERIDIAN_BENCH_SOAK_ROUNDS rounds (4) of MERIDIAN_BENCH_SOAK_RENDERS
 * varied renders each (3,000; fewer for a quick look), through HTTP, by a `meridian serve` process
 * with MERIDIAN_MAPS_WORKERS render threads (1 unless set), asked by as many clients at once as it
 * has threads (MERIDIAN_BENCH_SOAK_CLIENTS), so that every thread's caches fill. Every round asks for views it has not
 * asked for before (a deterministic walk over places, zooms 0-8, sizes, formats, markers and
 * paths), so caches keyed by what clients ask for meet new keys all along, as in production. After
 * each round the server is left idle for MERIDIAN_BENCH_SOAK_IDLE_MS (10 s, under the render
 * pool's 60 s idle timeout, so its threads and what they hold stay) and its resident memory read:
 * bounded caches fill in the first rounds and then hold, so the idle figure must level off; one
 * that climbs round after round is memory something keeps for ever. Printed per round with the
 * change from the round before and the trend from the second round to the last (the first loads
 * the map, fonts and the first tiles).
 */
import { rmSync } from 'node:fs';
import { createKey, saveResults, startInstance, timedGet } from './instance.js';
import { worldMaps } from './world.js';

const rounds = Number(process.env.MERIDIAN_BENCH_SOAK_ROUNDS ?? 4);
const renders = Number(process.env.MERIDIAN_BENCH_SOAK_RENDERS ?? 3000);
const idleMs = Number(process.env.MERIDIAN_BENCH_SOAK_IDLE_MS ?? 10_000);
const workers = process.env.MERIDIAN_MAPS_WORKERS ?? '1';
const clients = Number(process.env.MERIDIAN_BENCH_SOAK_CLIENTS ?? workers);
const formats = ['png', 'jpg'] as const;

/**
 * The operations guide's memory budget (docs/operations.md, Memory), in MiB, for this soak's
 * server: the process on the embedded database with the geocoding index, the raster tile cache,
 * and per render thread its share of the decoded-tile cache plus what every thread holds besides.
 * The soak fails when the last round's idle memory is above it.
 */
const BUDGET = { processMiB: 360, embeddedDatabaseMiB: 80, perThreadMiB: 150, tileCacheFactor: 1.7 };
function budgetMiB(threads: number, tileCacheMB = 256, rasterCacheMB = 128): number {
  return BUDGET.processMiB + BUDGET.embeddedDatabaseMiB + rasterCacheMB + threads * (BUDGET.tileCacheFactor * tileCacheMB + BUDGET.perThreadMiB);
}

/** The URLs of one round: its own views, the same for a round of the same number in every run. */
function roundUrls(round: number, base: string, key: string): string[] {
  let seed = 1 + round * 7919;
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  return Array.from({ length: renders }, (_, i) => {
    const lon = (next() * 360 - 180).toFixed(3);
    const lat = (next() * 140 - 70).toFixed(3);
    const zoom = (next() * 8).toFixed(2);
    const [width, height] = [128 + Math.floor(next() * 600), 128 + Math.floor(next() * 600)];
    const scale = next() < 0.25 ? '@2x' : '';
    const overlays = `&markers=${lon},${lat},red&path=stroke:blue|width:3|${lon},${lat}|${(Number(lon) / 2).toFixed(3)},${(Number(lat) / 2).toFixed(3)}`;
    return `${base}/api/maps/world/static/${lon},${lat},${zoom}/${width}x${height}${scale}.${formats[i % formats.length]}?key=${key}${overlays}`;
  });
}

const maps = await worldMaps();
const instance = await startInstance({ MERIDIAN_MAPS_DIR: maps.dir, MERIDIAN_MAPS_WORKERS: workers });
try {
  const key = await createKey(instance);
  const startRss = instance.rssMiB();
  const results: { round: number; busyRss: number; idleRss: number; seconds: number }[] = [];
  console.log(`soak: ${rounds} rounds of ${renders} varied renders, ${workers} render thread(s) asked by ${clients} client(s) at once, ${idleMs / 1000} s idle after each; server RSS at start ${startRss.toFixed(0)} MiB`);
  for (let round = 1; round <= rounds; round++) {
    const started = performance.now();
    const urls = roundUrls(round, instance.base, key);
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < urls.length) await timedGet(urls[next++]!);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const busyRss = instance.rssMiB();
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const idleRss = instance.rssMiB();
    const before = results.at(-1)?.idleRss;
    results.push({ round, busyRss, idleRss, seconds });
    const change = before === undefined ? '' : ` (${idleRss >= before ? '+' : ''}${(idleRss - before).toFixed(0)} MiB)`;
    console.log(`round ${round}: ${seconds.toFixed(0)} s, RSS at its end ${busyRss.toFixed(0)} MiB, idle ${idleRss.toFixed(0)} MiB${change}`);
  }
  const second = results[Math.min(1, results.length - 1)]!.idleRss;
  const last = results.at(-1)!.idleRss;
  console.log(`idle RSS per round (MiB): ${results.map((r) => r.idleRss.toFixed(0)).join(' → ')}; trend from round 2 to round ${results.length}: ${last >= second ? '+' : ''}${(last - second).toFixed(0)} MiB (${(((last - second) / second) * 100).toFixed(1)}%)`);
  const budget = budgetMiB(Number(workers));
  saveResults('static-soak', { renders, workers: Number(workers), clients, idleMs, startRss, rounds: results, budgetMiB: budget });
  if (last > budget) {
    console.error(`SOAK OVER BUDGET: idle RSS ${last.toFixed(0)} MiB after the last round, above the documented budget of ${budget.toFixed(0)} MiB for ${workers} render thread(s) (docs/operations.md, Memory)`);
    process.exitCode = 1;
  } else {
    console.log(`within the documented budget: ${last.toFixed(0)} of ${budget.toFixed(0)} MiB for ${workers} render thread(s)`);
  }
} finally {
  await instance.stop();
  if (maps.temporary) rmSync(maps.dir, { recursive: true, force: true });
}
