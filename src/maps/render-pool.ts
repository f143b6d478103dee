/**
 * The render pool: static images are rendered, and glyph ranges made, in worker threads
 * (platform/worker-pool.ts) so that a large render never stalls the server.
 */

import type { Metrics } from '../platform/metrics.js';
import { WorkerPool } from '../platform/worker-pool.js';
import type { RegistrySettings } from './registry.js';
import type { StaticImageJob } from './static/static-image.js';
import type { MapVersion, WorkerTask } from './render-worker.js';
import type { MetatileJob } from './raster/metatile-image.js';

export class RenderPool {
  private readonly pool: WorkerPool<WorkerTask, Uint8Array | Uint8Array[]>;

  constructor(config: RegistrySettings, metrics?: Metrics) {
    this.pool = new WorkerPool<WorkerTask, Uint8Array | Uint8Array[]>({
      filename: new URL('./render-worker.js', import.meta.url),
      threads: config.maps.workers,
      queue: config.maps.queue,
      timeoutMs: config.maps.timeoutMs,
      workerData: { config: { dataDir: config.dataDir, maps: config.maps } satisfies RegistrySettings },
      tasks: 'renders',
      ...(metrics ? { onRun: (task: WorkerTask, seconds: number) => metrics.renderTime(task.kind, seconds) } : {}),
    });
    metrics?.watchWorkerPool('render', () => this.pool.load());
  }

  /** A static image of a loaded map. */
  render(map: MapVersion, job: StaticImageJob): Promise<Buffer> {
    return this.run({ kind: 'render', map: { id: map.id, revision: map.revision }, job }, 'The image was not rendered');
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

  private async run(task: WorkerTask, late: string): Promise<Buffer> {
    return asBuffer((await this.pool.run(task, late)) as Uint8Array);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
