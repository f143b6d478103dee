/**
 * The one way CPU-heavy work leaves the serving event loop: a piscina pool of worker threads with
 * admission control. At most `threads + queue` tasks are admitted (running or waiting); beyond
 * that a task is refused at once with 503 and `Retry-After`, as it is when it runs past the time
 * limit (the thread running it is stopped and replaced). Renders and weather ingests each have one.
 */

import { Piscina } from 'piscina';
import { ApiError } from './errors.js';

export interface WorkerPoolOptions {
  /** The worker module: its default export runs one task. */
  filename: URL;
  threads: number;
  /** Tasks that may wait for a thread. */
  queue: number;
  timeoutMs: number;
  /** What every thread gets as `workerData`: only what its tasks need (no secrets). */
  workerData?: unknown;
  /** Names the work in the 503 messages: "Too many renders waiting". */
  tasks: string;
}

const retryAfterSeconds = '1';

export class WorkerPool<Task, Result> {
  private readonly pool: Piscina<Task, Result>;
  /** Tasks admitted and not finished: running on a thread or waiting for one. */
  private admitted = 0;
  private readonly capacity: number;
  readonly timeoutMs: number;
  private readonly tasks: string;

  constructor(options: WorkerPoolOptions) {
    this.timeoutMs = options.timeoutMs;
    this.tasks = options.tasks;
    this.pool = new Piscina({
      filename: options.filename.href,
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      workerData: options.workerData,
    });
    this.capacity = options.threads + options.queue;
  }

  /** Runs a task on a thread; `late` says what did not happen when it runs out of time. */
  async run(task: Task, late: string): Promise<Result> {
    if (this.admitted >= this.capacity) {
      throw new ApiError(`Too many ${this.tasks} waiting; try again shortly`, 'unavailable', { 'retry-after': retryAfterSeconds });
    }
    this.admitted++;
    try {
      return await this.pool.run(task, { signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (error) {
      if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
        throw new ApiError(`${late} within ${this.timeoutMs} ms`, 'unavailable', { 'retry-after': retryAfterSeconds });
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
