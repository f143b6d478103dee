/**
 * The render pool: static images and metatiles are rendered, and glyph ranges made, in worker
 * threads (platform/worker-pool.ts) so that a large render never stalls the server. Images and
 * metatiles are sized by their device pixels, so that the pool admits from the first request on
 * only what can finish within `maps.timeoutMs` (docs/operations.md, Render admission).
 *
 * The threads start together (`start()`, or the first task), warm up (render-worker.ts) and are kept
 * however long they idle: `/ready` waits until each has been warm once, so that a restarted instance
 * takes traffic warm, and an idle one never goes cold (docs/operations.md, Memory, for what that holds).
 */

import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import type { Metrics } from '../platform/metrics.js';
import { WorkerPool, type TaskTiming } from '../platform/worker-pool.js';
import type { RegistrySettings } from './registry.js';
import type { StaticImageJob } from './static/static-image.js';
import type { CacheReport, MapVersion, WorkerTask } from './render-worker.js';
import type { MetatileJob } from './raster/metatile-image.js';
import { metatileViewport } from './raster/metatile.js';
import type { Viewport } from '../render/view/viewport.js';

/**
 * What a render costs per device pixel before the pool has timed any: 100 ns, so 1.7 s for a
 * 2048x2048@2x image (16.8 million pixels). Measured on the 2-core machine: the world map of the
 * test fixture at 2048x2048@2x took 8-37 ns a pixel on one idle thread, and 17 ns a pixel with both
 * threads busy in a burst; the quick start's streets map at 1024x768@2x, cold, 98 ns at load
 * average 10-16 (README); the burst of issue 31 (world map, 2 threads) came to about 85 ns.
 */
export const INITIAL_NS_PER_PIXEL = 100;
/**
 * A render thread's start before one was timed: the thread, the maps opened, fonts registered, its
 * first tiles read. Its first 64x64 image took 1.3 s at load average 4, 1.5-2.0 s at 11-13; cold
 * metatiles in a burst answered after 3.7-6.6 s at load 7-13, with a metatile or two each.
 */
export const INITIAL_THREAD_START_MS = 3000;
/** The initial figure weighs as much as a 2048x2048@2x image's run beside the recent runs. */
const INITIAL_WEIGHT_PIXELS = 4096 * 4096;

/**
 * What the render threads' tile caches hold and how their lookups went, for the metrics: each
 * thread reports after its warm-up and its tasks on a channel of its pool's own; a thread that is
 * no longer `alive` (stopped at the time limit and replaced) has taken its cache with it.
 */
class RenderCaches {
  private readonly channel: BroadcastChannel;
  private readonly threads = new Map<number, CacheReport>();

  constructor(
    readonly name: string,
    metrics: Metrics,
    alive: () => Set<number>,
  ) {
    this.channel = new BroadcastChannel(name);
    this.channel.unref();
    this.channel.onmessage = (event) => {
      const report = (event as { data: CacheReport }).data;
      const previous = this.threads.get(report.thread);
      metrics.cacheLookup('render-tiles', true, report.hits - (previous?.hits ?? 0));
      metrics.cacheLookup('render-tiles', false, report.misses - (previous?.misses ?? 0));
      this.threads.set(report.thread, report);
    };
    metrics.watchCache('render-tiles', () => {
      let entries = 0;
      let bytes = 0;
      const living = alive();
      for (const [thread, report] of this.threads) {
        if (!living.has(thread)) {
          this.threads.delete(thread);
          continue;
        }
        entries += report.entries;
        bytes += report.bytes;
      }
      return { entries, bytes };
    });
  }

  close(): void {
    this.channel.close();
  }
}

export class RenderPool {
  private readonly pool: WorkerPool<WorkerTask, Uint8Array | Uint8Array[]>;
  private readonly caches: RenderCaches | undefined;
  private readonly threads: number;
  /** Every thread has been warm once: from then on a thread that is replaced warms up while the others serve. */
  private warmedUp = false;

  constructor(config: RegistrySettings, metrics?: Metrics) {
    this.threads = config.maps.workers;
    this.caches = metrics ? new RenderCaches(`meridian-render-caches-${randomUUID()}`, metrics, () => this.pool.threads().alive) : undefined;
    this.pool = new WorkerPool<WorkerTask, Uint8Array | Uint8Array[]>({
      filename: new URL('./render-worker.js', import.meta.url),
      threads: config.maps.workers,
      queue: config.maps.queue,
      timeoutMs: config.maps.timeoutMs,
      workerData: { config: { dataDir: config.dataDir, maps: config.maps } satisfies RegistrySettings, cacheReports: this.caches?.name ?? null },
      tasks: 'renders',
      warm: true,
      cost: { unitsOf: pixelsOf, initialMsPerUnit: INITIAL_NS_PER_PIXEL / 1e6, initialUnits: INITIAL_WEIGHT_PIXELS, initialStartMs: INITIAL_THREAD_START_MS },
      ...(metrics ? { onRun: (task: WorkerTask, seconds: number) => metrics.renderTime(task.kind, 'map' in task ? task.map.id : '', seconds) } : {}),
    });
    metrics?.watchWorkerPool('render', () => this.pool.load());
  }

  /** Starts the threads, which warm up meanwhile (the server calls it once it listens, so that they do not slow its start). */
  start(): void {
    this.pool.start();
  }

  /** For `/ready`: `2 of 2 warm`, say. */
  status(): string {
    return `${this.pool.threads().warm} of ${this.threads} warm`;
  }

  /** What keeps the instance from serving renders warm, until every thread has been warm once; then null for good. */
  starting(): string | null {
    if (this.warmedUp) return null;
    const warm = this.pool.threads().warm;
    if (warm < this.threads) return `render threads warming up: ${warm} of ${this.threads} warm`;
    this.warmedUp = true;
    return null;
  }

  /** A static image of a loaded map; `timing` gets its wait for a thread and its render. */
  render(map: MapVersion, job: StaticImageJob, timing?: TaskTiming): Promise<Buffer> {
    return this.run({ kind: 'render', map: { id: map.id, revision: map.revision }, job }, 'The image was not rendered', timing);
  }

  /** The tiles of a metatile of a loaded map, encoded, in `tilesOf` order. */
  async metatile(map: MapVersion, job: MetatileJob): Promise<Buffer[]> {
    const tiles = (await this.pool.run({ kind: 'metatile', map: { id: map.id, revision: map.revision }, job }, 'The tile was not rendered')) as Uint8Array[];
    return tiles.map(asBuffer);
  }

  /** The glyph PBF of 256 codepoints from `start` of a fontstack. */
  glyphs(fontstack: string[], start: number): Promise<Buffer> {
    return this.run({ kind: 'glyphs', fontstack, start }, 'The glyphs were not made');
  }

  private async run(task: WorkerTask, late: string, timing?: TaskTiming): Promise<Buffer> {
    return asBuffer((await this.pool.run(task, late, { timing })) as Uint8Array);
  }

  close(): Promise<void> {
    this.caches?.close();
    return this.pool.close();
  }
}

/** The device pixels a render or a metatile draws (its margin included); glyph ranges are not sized. */
export function pixelsOf(task: WorkerTask): number | undefined {
  const pixels = ({ width, height, pixelRatio }: Viewport) => width * height * pixelRatio ** 2;
  if (task.kind === 'render') return pixels(task.job.viewport);
  if (task.kind === 'metatile') return pixels(metatileViewport(task.job.metatile));
  return undefined;
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
