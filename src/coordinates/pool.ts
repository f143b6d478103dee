/**
 * The coordinates pool (platform/worker-pool.ts): where a server has PROJ compute the data of
 * search results that no cache holds yet, and run transforms, so that neither a cold search nor a
 * cold transform (PROJ's operation search for a pair: a millisecond to seconds) ever stalls the
 * serving thread. Each thread has its own PROJ engine (proj-wasm.ts: a WebAssembly instance with its
 * copy of proj.db and its PROJ context) and its own transformation plans, and nothing else of the
 * area (not the registry index, which stays on the serving thread): about 55 MB when it starts
 * (measured: resident size after the thread's first transformation). A thread the pool retires
 * (idle for a minute, or stopped) frees all of it.
 *
 * One search is one task, bounded twice: the thread stops starting PROJ calls once the search has
 * used `timeoutMs` (what it computed comes back and is kept; the search answers 503), and the pool
 * stops the thread itself if a single PROJ call runs on for `STUCK_MS` beyond that.
 *
 * One transform is one task. A plan is one PROJ call that cannot be interrupted, so a transform
 * over `timeoutMs` answers 503 at once while its thread goes on (up to `STUCK_MS` more): the plan
 * it finishes is kept by that thread, and a refusal by the pool, so the pair is not searched again.
 * Refusals of a pair (unknown code, no operation between the systems) are remembered here, bounded,
 * and answered without a thread.
 */

import { ApiError } from '../platform/errors.js';
import { Lru } from '../platform/lru.js';
import { WorkerPool } from '../platform/worker-pool.js';
import type { BackgroundPool } from './background-cache.js';
import type { CoordinatesConfig } from './config.js';
import type { Derived, DeriveTask } from './derive.js';
import type { Deriver } from './search/search.js';
import { pairKey, resultOf, TransformError, type TransformLog, type TransformOutcome, type TransformResult, type Transforms, type TransformTask } from './transform.js';
import type { PoolResult, PoolTask } from './worker.js';

/**
 * The longest PROJ call seen is about ten seconds on an idle machine (a pair's operation search),
 * several times that beside other work; stopping it throws away the plan it would have kept for the
 * retry, so only a call two minutes past its budget counts as stuck.
 */
const STUCK_MS = 120_000;
/** Pairs whose refusal is kept. */
const REFUSALS = 4096;

export class CoordinatesPool implements Deriver, Transforms {
  private readonly pool: WorkerPool<PoolTask, PoolResult>;
  private readonly refusals = new Lru<string, string>(REFUSALS);
  readonly timeoutMs: number;

  /**
   * `stuckMs`: how long past the budget a PROJ call may run before its thread is stopped;
   * `lowPriority`: threads at nice 10, for work no request waits for (the background cache build).
   */
  constructor(config: CoordinatesConfig, { stuckMs = STUCK_MS, lowPriority = false }: { stuckMs?: number; lowPriority?: boolean } = {}) {
    this.timeoutMs = config.timeoutMs;
    this.pool = new WorkerPool({
      filename: new URL('./worker.js', import.meta.url),
      threads: config.workers,
      queue: config.queue,
      timeoutMs: config.timeoutMs + stuckMs,
      tasks: 'coordinate operations',
      workerData: { lowPriority },
    });
  }

  derive(task: DeriveTask): Promise<Derived> {
    return this.pool.run({ kind: 'derive', task, budgetMs: this.timeoutMs }, 'PROJ did not answer') as Promise<Derived>;
  }

  /** Transforms on a thread; a refused pair is answered from memory. Over `timeoutMs`: 503, and `log` hears why. */
  async transform(task: TransformTask, log: TransformLog): Promise<TransformResult> {
    const key = pairKey(task.source, task.target, task.ops);
    const refused = this.refusals.get(key);
    if (refused !== undefined) throw new TransformError(refused);
    const running = (this.pool.run({ kind: 'transform', task }, 'PROJ did not answer') as Promise<TransformOutcome>).then((outcome) => {
      if ('refused' in outcome && outcome.pair) this.refusals.set(key, outcome.refused);
      return outcome;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const pair = `EPSG:${task.source} to EPSG:${task.target}${task.ops.length > 0 ? ` with ops ${task.ops.join('|')}` : ''}`;
        log.warn({ s_srs: task.source, t_srs: task.target, ops: task.ops, limitMs: this.timeoutMs }, `transform ${pair} over its time limit: PROJ is still searching operations for the pair; its answer is kept for the next request`);
        reject(new ApiError(`Transforming from ${pair} needed more than ${this.timeoutMs} ms of PROJ work; PROJ goes on and keeps its answer: try again shortly`, 'unavailable', { 'retry-after': '1' }, 'timeout'));
      }, this.timeoutMs);
    });
    // The task goes on after a 503; its own failure then has no one to hear it.
    running.catch(() => {});
    try {
      return resultOf(await Promise.race([running, late]));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Tasks on a thread now and waiting for one (for metrics). */
  load(): { running: number; waiting: number } {
    return this.pool.load();
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/**
 * What the background cache build (background-cache.ts) runs on: a thread of its own at low
 * priority, started with the build's first task and ended a minute after its last, so the threads
 * that answer requests keep the server's priority; the build still waits while requests have
 * `serving`'s threads.
 */
export function backgroundPool(serving: CoordinatesPool, config: CoordinatesConfig): BackgroundPool & { close(): Promise<void> } {
  const builder = new CoordinatesPool({ ...config, workers: 1, queue: 1 }, { lowPriority: true });
  return {
    timeoutMs: builder.timeoutMs,
    load: () => serving.load(),
    derive: (task) => builder.derive(task),
    close: () => builder.close(),
  };
}

