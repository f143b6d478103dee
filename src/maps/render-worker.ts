/**
 * A worker thread of the render pool: it opens the configured maps once (its own file handles and
 * tile cache) and does the CPU-heavy work of the maps area off the server's event loop: static
 * images, raster tiles (metatiles), and the glyph ranges of the interactive maps (signed distance fields of 256 glyphs, tens
 * to hundreds of milliseconds each).
 *
 * It warms up before it takes a task (the module's top-level await, which piscina waits for): the
 * maps opened and each drawn once, small, at its centre, so that the fonts, styles, sprites and the
 * first tiles are loaded before a request comes (a cold thread took 1.6 to 2.2 s over a first image;
 * docs/operations.md, Render admission), then a street scene of its own drawn six times, so that
 * V8 has compiled the renderer's code (warm-up-scene.ts).
 */

import { BroadcastChannel, threadId, workerData } from 'node:worker_threads';
import { announceWarm, sharedBytes } from '../platform/worker-pool.js';
import { glyphRangePbf } from '../render/glyphs/pbf.js';
import { installedFonts, MapRegistry, type LoadedMap, type RegistrySettings } from './registry.js';
import { plainImageJob, renderStaticImage, type StaticImageJob } from './static/static-image.js';
import { renderMetatile, type MetatileJob } from './raster/metatile-image.js';
import { drawWarmUpScene } from './warm-up-scene.js';

/** Which map, and the revision the serving thread has of it. */
export interface MapVersion {
  id: string;
  revision: string;
}

export type WorkerTask =
  | { kind: 'render'; map: MapVersion; job: StaticImageJob }
  | { kind: 'metatile'; map: MapVersion; job: MetatileJob }
  | { kind: 'glyphs'; fontstack: string[]; start: number };

/** What a thread's tile cache holds, and its lookups so far (see RenderPool). */
export interface CacheReport {
  thread: number;
  entries: number;
  bytes: number;
  hits: number;
  misses: number;
}

/** The maps section and the data folder only: no secrets reach the render threads. */
const { config, cacheReports } = workerData as { config: RegistrySettings; cacheReports: string | null };
const reports = cacheReports === null ? null : new BroadcastChannel(cacheReports);
reports?.unref();
const registry = MapRegistry.open(config);
/** Revisions this thread reloaded for: asked for again, the maps are not read again. */
const reloadedFor = new Set<string>();
/** The side of the image each map is drawn at once before the thread takes tasks. */
const WARM_UP_PIXELS = 256;

await warmUp();
announceWarm();

/**
 * Draws every map once, one after the other, all within `maps.timeoutMs`. A map that fails, or is
 * not drawn by then (a tile server that does not answer), is left to its first request, which fails
 * or is slow as it would have; a registry that cannot open fails every task. The thread is warm
 * either way: the server waits no longer than a render may take.
 */
async function warmUp(): Promise<void> {
  let maps: MapRegistry;
  try {
    maps = await registry;
  } catch {
    return;
  }
  const deadline = AbortSignal.timeout(config.maps.timeoutMs);
  for (const id of maps.ids()) {
    if (deadline.aborted) break;
    const map = maps.get(id)!;
    const [lon, lat, zoom] = map.center;
    const job = plainImageJob({ center: [lon, lat], zoom, width: WARM_UP_PIXELS, height: WARM_UP_PIXELS, pixelRatio: 1 }, map.formats[0] ?? 'png');
    await renderStaticImage(map, job, deadline).catch(() => {});
  }
  // The renderer's code compiled on a scene of its own (warm-up-scene.ts); a scene that cannot be
  // drawn (its font missing) leaves that to the first requests, as before.
  if (!deadline.aborted) await drawWarmUpScene({ fonts: () => installedFonts(config.dataDir) }, deadline).catch(() => {});
  report(maps);
}

/** What this thread's tile cache holds now, for the metrics. */
function report({ cache }: MapRegistry): void {
  reports?.postMessage({ thread: threadId, entries: cache.size, bytes: cache.bytes, ...cache.lookups } satisfies CacheReport);
}

/**
 * The map as the serving thread has it: when its maps were reloaded since this thread opened them,
 * this thread reloads too, once per revision it is asked for (should the files have changed again
 * since, it draws what they hold now, and the server catches up on its own reload).
 */
async function loadedMap(version: MapVersion): Promise<LoadedMap> {
  const maps = await registry;
  let map = maps.get(version.id);
  const wanted = `${version.id}@${version.revision}`;
  if (map?.revision !== version.revision && !reloadedFor.has(wanted)) {
    reloadedFor.add(wanted);
    await maps.reload();
    map = maps.get(version.id);
  }
  if (!map) throw new Error(`map ${version.id} is not loaded in this worker`);
  return map;
}

export default async function run(task: WorkerTask): Promise<unknown> {
  // One turn of the event loop first: Node-API frees what the last tasks read back from Skia (each
  // image's canvas and pixels) in its finalizers, which run there. A warm image reads no file, so
  // tasks coming back to back could otherwise run for as long as traffic lasts without a turn,
  // each holding on to about 1.8 MB (a 512x512 image): a server held 6.9 GB after 3,200 images.
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (task.kind === 'glyphs') return sharedBytes(glyphRangePbf(installedFonts(config.dataDir), task.fontstack, task.start));
  const map = await loadedMap(task.map);
  try {
    return await draw(map, task);
  } finally {
    report(await registry);
  }
}

async function draw(map: LoadedMap, task: Exclude<WorkerTask, { kind: 'glyphs' }>): Promise<unknown> {
  if (task.kind === 'metatile') return (await renderMetatile(map, task.job)).map(sharedBytes);
  return sharedBytes(await renderStaticImage(map, task.job));
}
