/**
 * The coordinates pool (platform/worker-pool.ts): where a server has PROJ compute the data of
 * search results that no cache holds yet, so that a cold search never stalls the serving thread.
 * Each thread has its own PROJ engine (proj-wasm.ts: a WebAssembly instance with its copy of proj.db
 * and its PROJ context) and nothing else of the area (not the registry index, which stays on the
 * serving thread): about 55 MB when it starts (measured: resident size after the thread's first
 * transformation). A thread the pool retires (idle for a minute, or stopped) frees all of it.
 *
 * One search is one task, bounded twice: the thread stops starting PROJ calls once the search has
 * used `timeoutMs` (what it computed comes back and is kept; the search answers 503), and the pool
 * stops the thread itself if a single PROJ call runs on for `STUCK_MS` beyond that.
 */

import { WorkerPool } from '../platform/worker-pool.js';
import type { CoordinatesConfig } from './config.js';
import type { Derived, DeriveTask } from './derive.js';
import type { Deriver } from './search.js';
import type { PoolTask } from './worker.js';

/** The longest PROJ call seen is about half a second; one this late is stuck. */
const STUCK_MS = 5000;

export class CoordinatesPool implements Deriver {
  private readonly pool: WorkerPool<PoolTask, Derived>;
  readonly timeoutMs: number;

  /** `stuckMs`: how long past the budget a PROJ call may run before its thread is stopped. */
  constructor(config: CoordinatesConfig, stuckMs = STUCK_MS) {
    this.timeoutMs = config.timeoutMs;
    this.pool = new WorkerPool({
      filename: new URL('./worker.js', import.meta.url),
      threads: config.workers,
      queue: config.queue,
      timeoutMs: config.timeoutMs + stuckMs,
      tasks: 'coordinate searches',
    });
  }

  derive(task: DeriveTask): Promise<Derived> {
    return this.pool.run({ ...task, budgetMs: this.timeoutMs }, 'PROJ did not answer');
  }

  /** Searches on a thread now and waiting for one (for metrics). */
  load(): { running: number; waiting: number } {
    return this.pool.load();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
