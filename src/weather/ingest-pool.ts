/**
 * The weather worker pool: where a server decodes and tiles what it ingests (scheduled fetches and
 * ingests sent through the control socket), so the serving event loop never runs a GRIB2 decode.
 */

import { MessageChannel } from 'node:worker_threads';
import { relayProgress, type Progress } from '../platform/progress.js';
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

  readonly prepare: IngestPreparer = async (directory: string, files: readonly string[], options: IngestOptions, progress?: Progress): Promise<PreparedIngest> => {
    if (!progress) return this.outcome(await this.pool.run({ directory, files, options }, 'The ingest did not finish'));
    // The thread posts its progress on a port of its own; this thread shows it.
    const { port1, port2 } = new MessageChannel();
    // The result travels apart from the progress: wait for the thread's last message before going
    // on. A task that failed (or never ran) closes the port here.
    const closed = relayProgress(port1, progress);
    try {
      const outcome = await this.pool.run({ directory, files, options, progress: port2 }, 'The ingest did not finish', { transfer: [port2] });
      await closed;
      return this.outcome(outcome);
    } catch (error) {
      port1.close();
      throw error;
    }
  };

  private outcome(outcome: IngestOutcome): PreparedIngest {
    if ('ingestError' in outcome) throw new IngestError(outcome.ingestError);
    return outcome.prepared;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
