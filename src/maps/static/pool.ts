/**
 * The render pool: static images are rendered, and glyph ranges made, in worker threads
 * (platform/worker-pool.ts) so that a large render never stalls the server.
 */

import { WorkerPool } from '../../platform/worker-pool.js';
import type { RegistrySettings } from '../registry.js';
import type { StaticImageJob } from './static-image.js';
import type { WorkerTask } from './worker.js';

export class RenderPool {
  private readonly pool: WorkerPool<WorkerTask, Uint8Array>;

  constructor(config: RegistrySettings) {
    this.pool = new WorkerPool({
      filename: new URL('./worker.js', import.meta.url),
      threads: config.maps.workers,
      queue: config.maps.queue,
      timeoutMs: config.maps.timeoutMs,
      workerData: { config: { dataDir: config.dataDir, maps: config.maps } satisfies RegistrySettings },
      tasks: 'renders',
    });
  }

  /** A static image of a loaded map. */
  render(mapId: string, job: StaticImageJob): Promise<Buffer> {
    return this.run({ kind: 'render', mapId, job }, 'The image was not rendered');
  }

  /** The glyph PBF of 256 codepoints from `start` of a fontstack. */
  glyphs(fontstack: string[], start: number): Promise<Buffer> {
    return this.run({ kind: 'glyphs', fontstack, start }, 'The glyphs were not made');
  }

  private async run(task: WorkerTask, late: string): Promise<Buffer> {
    const bytes = await this.pool.run(task, late);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
