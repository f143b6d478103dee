/**
 * The weather worker pool: where a server decodes and tiles what it ingests (scheduled fetches and
 * ingests sent through the control socket), so the serving event loop never runs a GRIB2 decode.
 */

import { WorkerPool } from '../platform/worker-pool.js';
import type { WeatherConfig } from './config.js';
import { IngestError, type IngestOptions, type IngestPreparer, type PreparedIngest } from './ingest.js';
import type { IngestOutcome, IngestTask } from './ingest-worker.js';

export class IngestPool {
  private readonly pool: WorkerPool<IngestTask, IngestOutcome>;

  constructor(config: WeatherConfig) {
    this.pool = new WorkerPool({
      filename: new URL('./ingest-worker.js', import.meta.url),
      threads: config.workers,
      queue: config.queue,
      timeoutMs: config.ingestTimeoutMs,
      tasks: 'weather ingests',
    });
  }

  readonly prepare: IngestPreparer = async (directory: string, files: readonly string[], options: IngestOptions): Promise<PreparedIngest> => {
    const outcome = await this.pool.run({ directory, files, options }, 'The ingest did not finish');
    if ('ingestError' in outcome) throw new IngestError(outcome.ingestError);
    return outcome.prepared;
  };

  close(): Promise<void> {
    return this.pool.close();
  }
}
