/**
 * The render pool: static images are rendered, and glyph ranges made, in worker threads so that a
 * large render never stalls the server. At most `queue` tasks wait for a thread; beyond that the
 * request gets a 503 at once, as it does when its task runs past the time limit (the thread
 * running it is stopped and replaced).
 */

import { Piscina } from 'piscina';
import type { Config } from '../../platform/config.js';
import { HttpError } from '../../platform/errors.js';
import type { StaticImageJob } from './static-image.js';
import type { WorkerTask } from './worker.js';

const retryAfterSeconds = '1';

export class RenderPool {
  private readonly pool: Piscina<WorkerTask, Uint8Array>;
  /** Renders admitted and not finished: running on a thread or waiting for one. */
  private admitted = 0;
  private readonly capacity: number;
  private readonly timeoutMs: number;

  constructor(config: Config) {
    this.timeoutMs = config.maps.timeoutMs;
    this.pool = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: 0,
      maxThreads: config.maps.workers,
      idleTimeout: 60_000,
      workerData: { config },
    });
    this.capacity = config.maps.workers + config.maps.queue;
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
    if (this.admitted >= this.capacity) throw busy();
    this.admitted++;
    try {
      const bytes = await this.pool.run(task, { signal: AbortSignal.timeout(this.timeoutMs) });
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
        throw new HttpError(503, `${late} within ${this.timeoutMs} ms`, { 'retry-after': retryAfterSeconds });
      }
      throw error;
    } finally {
      this.admitted--;
    }
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

function busy(): HttpError {
  return new HttpError(503, 'Too many renders waiting; try again shortly', { 'retry-after': retryAfterSeconds });
}
