/**
 * The one way CPU-heavy work leaves the serving event loop: a piscina pool of worker threads with
 * admission control. A task runs at once when a thread is free and otherwise waits in line; the
 * time limit counts from when it starts on a thread, so waiting never eats into it. A task is
 * refused at once with 503 and `Retry-After` when `threads + queue` tasks are already admitted, or
 * when, judging by the recent run times, the line ahead of it cannot drain in time for it to finish
 * within the limit. Renders, weather ingests and coordinate searches each have one.
 */

import type { TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { ApiError } from './errors.js';

export interface WorkerPoolOptions<Task = unknown> {
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
  /** Hears of every task that finished on a thread, with its time there. */
  onRun?: (task: Task, seconds: number) => void;
}

const retryAfterSeconds = '1';
/** A thread with no task for this long ends (and with it what it kept in memory). */
export const IDLE_TIMEOUT_MS = 60_000;
/** Run times the wait estimate averages over. */
const RECENT_RUNS = 32;

export class WorkerPool<Task, Result> {
  private readonly pool: Piscina<Task, Result>;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly recentRunMs: number[] = [];
  readonly timeoutMs: number;

  constructor(private readonly options: WorkerPoolOptions<Task>) {
    this.timeoutMs = options.timeoutMs;
    this.pool = new Piscina({
      filename: options.filename.href,
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: IDLE_TIMEOUT_MS,
      workerData: options.workerData,
    });
  }

  /**
   * Runs a task on a thread; `late` says what did not happen when it runs out of time. `transfer`
   * lists what the task hands over rather than copies (a `MessagePort` for its progress).
   */
  async run(task: Task, late: string, transfer: TransferListItem[] = []): Promise<Result> {
    const { threads, queue, tasks } = this.options;
    if (this.running + this.waiting.length >= threads + queue) throw busy(`Too many ${tasks} waiting; try again shortly`);
    if (this.running >= threads) {
      // Wait: the tasks ahead drain `threads` at a time, each taking about the recent mean.
      const typical = this.typicalRunMs();
      const wait = Math.ceil((this.waiting.length + 1) / threads) * typical;
      if (wait + typical > this.timeoutMs) throw busy(`Too many ${tasks} waiting to finish within ${this.timeoutMs} ms; try again shortly`);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    const started = performance.now();
    try {
      const result = await this.pool.run(task, { signal: AbortSignal.timeout(this.timeoutMs), transferList: transfer });
      const ms = performance.now() - started;
      this.remember(ms);
      this.options.onRun?.(task, ms / 1000);
      return result;
    } catch (error) {
      if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
        this.remember(this.timeoutMs);
        throw busy(`${late} within ${this.timeoutMs} ms`);
      }
      throw error;
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Tasks on a thread now, and tasks admitted and waiting for one. */
  load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }

  /** The mean of the recent run times; 0 before any, so that a new pool admits its queue. */
  private typicalRunMs(): number {
    const runs = this.recentRunMs;
    return runs.length === 0 ? 0 : runs.reduce((sum, ms) => sum + ms, 0) / runs.length;
  }

  private remember(ms: number): void {
    this.recentRunMs.push(ms);
    if (this.recentRunMs.length > RECENT_RUNS) this.recentRunMs.shift();
  }
}

function busy(message: string): ApiError {
  return new ApiError(message, 'unavailable', { 'retry-after': retryAfterSeconds });
}
