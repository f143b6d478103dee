/**
 * The one way CPU-heavy work leaves the serving event loop: a piscina pool of worker threads with
 * admission control. A task runs at once when a thread is free and otherwise waits in line. It is
 * refused at once with 503 and `Retry-After` when `threads + queue` tasks are already admitted, or
 * when the line ahead of it cannot drain in time for it to finish within the limit:
 *
 * - A task the pool can size (`cost`: pixels to draw, say) carries an estimate from the first
 *   request on: its units times the pool's cost per unit, learned from its recent runs and, before
 *   any, the owner's conservative initial figure, plus a thread's start when it starts one. The
 *   line ahead of it drains in the sum of the estimates of the tasks ahead (what is left of those
 *   running) spread over the threads; it is admitted when that wait and its own estimate fit within
 *   the limit. Its limit counts from its admission: should it still be waiting when its estimate
 *   no longer fits in what is left, it leaves the line with 503, and once on a thread it is stopped
 *   at the limit, so that it always answers within the limit.
 * - A task without an estimate keeps the rule of count and mean: the tasks ahead drain `threads` at
 *   a time, each taking the mean of the recent unsized runs (0 before any); its limit counts from
 *   when it starts on a thread, so waiting never eats into it.
 *
 * Renders, weather ingests and coordinate searches each have one.
 */

import { setFlagsFromString } from 'node:v8';
import { parentPort, threadId, Worker, type TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { ApiError, type UnavailableReason } from './errors.js';

/**
 * How a pool sizes its tasks before running them: a task's units (pixels to draw) times a cost per
 * unit that the pool learns from its recent runs, starting from `initialMsPerUnit`.
 */
export interface TaskCost<Task> {
  /** What the task's run time grows with, or undefined for a task the pool cannot size (the rule of count and mean). */
  unitsOf: (task: Task) => number | undefined;
  /** Milliseconds per unit before any run: a conservative figure measured on a loaded machine, documented where the owner sets it. */
  initialMsPerUnit: number;
  /**
   * How many units of runs the initial figure weighs as beside the recent runs: the learned cost is
   * (initial x initialUnits + their milliseconds) / (initialUnits + their units), so that one small
   * run (a thread starting on a tiny image) does not set the cost of large ones on its own.
   */
  initialUnits: number;
  /**
   * Milliseconds a thread takes to start (and the owner's worker to open what its tasks need) before
   * one was timed: added to the estimate of a task that starts a thread. Then learned, as the mean
   * of the recent first runs' time beyond their units' cost.
   */
  initialStartMs: number;
}

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
  /** Sizes tasks for admission; without it every task keeps the rule of count and mean. */
  cost?: TaskCost<Task>;
  /**
   * Start every thread with the pool and keep it however long it idles (no `IDLE_TIMEOUT_MS`), for
   * threads whose start is costly: a thread is warm once its module has called `announceWarm`, and
   * tasks are sent to it only then (its module's top-level await holds it back until it is).
   */
  warm?: boolean;
}

const retryAfterSeconds = '1';
/** A thread with no task for this long ends (and with it what it kept in memory), unless its pool is `warm`. */
export const IDLE_TIMEOUT_MS = 60_000;
/** Run times the wait estimate averages over (of sized runs and of unsized runs, each). */
const RECENT_RUNS = 32;
/** Threads' starts the estimate of a thread's start averages over. */
const RECENT_STARTS = 8;
/**
 * Threads load their module with `import()`, never Node's synchronous `require()` of an ES module:
 * piscina tries `require` first, and a thread terminated (its pool closed) while `require` is
 * instantiating the module aborts the whole process (Node 20: `FATAL ERROR: v8::Module::IsGraphAsync
 * must be used on an instantiated module`; seen when a server closed while its render threads were
 * still starting). With `require(esm)` off, piscina's `require` fails at once and it imports.
 * Node versions without `require(esm)` have no such flag, nor need it.
 *
 * A thread given options explicitly refuses V8's (`--max-old-space-size`, `--expose-gc`: they hold
 * for the whole process anyway), which it inherits silently otherwise; so the flag is added to the
 * process's options only when a thread accepts them (checked once, on a thread that runs nothing),
 * and a process started with a V8 option keeps the inherited options and piscina's `require`.
 */
let threadOptions: string[] | undefined | null = null;
function execArgvOfThreads(): string[] | undefined {
  if (threadOptions !== null) return threadOptions;
  threadOptions = undefined;
  if (!process.allowedNodeEnvironmentFlags.has('--no-experimental-require-module')) return threadOptions;
  const wanted = [...process.execArgv, '--no-experimental-require-module'];
  try {
    void new Worker('', { eval: true, execArgv: wanted }).terminate();
    threadOptions = wanted;
  } catch {
    // ERR_WORKER_INVALID_EXEC_ARGV: the process runs with an option a thread refuses.
  }
  return threadOptions;
}

/**
 * The least a thread's old generation may grow to before V8 marks it, in MiB. V8 sets a heap's limit
 * from what its last major GC left live, and starts marking again once what is allocated comes
 * within the young generation's size of that limit; a render thread holds 24-33 MB live, so it
 * marked almost without pause under load: 29 and 46 major GCs in 20 s on the two render threads,
 * 10-15 ms of pause each, and V8's helper threads marking beside them (3.7 ms of CPU per image,
 * against 16 for the render itself). With this floor: 2 and 4, the helpers at 1.75 ms an image
 * (docs/benchmarks.md, "Thread heaps given room"). V8's flag holds for the heaps made after it is
 * set, so the serving thread's is left as it was; a heap that holds more than the floor live (a
 * full tile cache) grows as V8 decides, so the floor costs at most this much memory per thread.
 */
export const THREAD_OLD_SPACE_FLOOR_MB = 96;

/** Gives threads made from now on the floor above, unless the process was started with a heap size of its own. */
function floorThreadHeaps(): void {
  if (process.execArgv.some((arg) => /^--initial[-_](old[-_]space|heap)[-_]size/.test(arg))) return;
  setFlagsFromString(`--initial-old-space-size=${THREAD_OLD_SPACE_FLOOR_MB}`);
}

/** Where a task's time went, milliseconds: in line for a thread, then on it. Filled in by `run` for a caller that reports it. */
export interface TaskTiming {
  waitMs: number;
  runMs: number;
}

/**
 * Bytes a task hands back to the serving thread (an encoded image, tiles, glyphs), copied into a
 * SharedArrayBuffer of their own. An ArrayBuffer moved or copied to the serving thread becomes its
 * isolate's external memory, which V8 counts against the old generation's room: at 140 images a
 * second the images' bytes alone started a mark-compact of the serving heap (80 MB, about 60 ms of
 * marking beside the render threads) every second, and answers around each were 2.5x slower.
 * Shared memory is counted by no isolate; the serving thread's view of it keeps it alive until the
 * response is sent, as a moved buffer was (docs/benchmarks.md, "Image bytes in shared memory").
 */
export function sharedBytes(bytes: Uint8Array): Uint8Array {
  const shared = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  shared.set(bytes);
  return shared;
}

/** The message a thread of a `warm` pool posts once it is warm (its value: the thread's id). */
const WARM = 'meridianWarmThread';

/**
 * Called by the worker module of a `warm` pool, at the end of its top-level await: this thread is
 * ready to run tasks without a start's delay.
 */
export function announceWarm(): void {
  parentPort?.postMessage({ [WARM]: threadId });
}

/**
 * A task admitted: its size (undefined: unsized), whether it starts a thread, and when it started
 * on one (undefined: waiting).
 */
interface Admitted {
  units: number | undefined;
  cold?: boolean;
  started?: number;
}

export class WorkerPool<Task, Result> {
  private piscina: Piscina<Task, Result> | undefined;
  private readonly running = new Set<Admitted>();
  private readonly waiting: { task: Admitted; start: () => void }[] = [];
  private readonly recentRunMs: number[] = [];
  private readonly recentSizedRuns: { ms: number; units: number }[] = [];
  private readonly recentStartMs: number[] = [];
  /** Ids of the threads that announced they are warm (some may have ended since). */
  private readonly warmIds = new Set<number>();
  readonly timeoutMs: number;

  constructor(private readonly options: WorkerPoolOptions<Task>) {
    this.timeoutMs = options.timeoutMs;
  }

  /** The threads, started by `start()` or the first task. */
  private get pool(): Piscina<Task, Result> {
    this.start();
    return this.piscina!;
  }

  private open(): Piscina<Task, Result> {
    const { options } = this;
    floorThreadHeaps();
    const pool = new Piscina<Task, Result>({
      filename: options.filename.href,
      minThreads: options.warm ? options.threads : 0,
      maxThreads: options.threads,
      idleTimeout: IDLE_TIMEOUT_MS,
      workerData: options.workerData,
      execArgv: execArgvOfThreads(),
      // Tasks reach a thread as messages on its event loop, which runs while the thread idles;
      // piscina's Atomics.wait between tasks stops it, and with it what Node-API runs there (native
      // objects' finalizers; see render-worker.ts, docs/benchmarks.md).
      atomics: 'disabled',
    });
    pool.on('message', (message: unknown) => {
      const id = (message as Record<string, unknown> | null)?.[WARM];
      if (typeof id === 'number') this.warmIds.add(id);
    });
    return pool;
  }

  /** Starts the threads of a `warm` pool now rather than at the first task (a pool not `warm` starts a thread per task it needs one for). */
  start(): void {
    this.piscina ??= this.open();
  }

  /**
   * Runs a task on a thread; `late` says what did not happen when it runs out of time. `transfer`
   * lists what the task hands over rather than copies (a `MessagePort` for its progress); `timing`,
   * when given, gets the task's wait and run once it has run.
   */
  async run(task: Task, late: string, { transfer = [], timing }: { transfer?: TransferListItem[]; timing?: TaskTiming } = {}): Promise<Result> {
    const { threads, queue, tasks } = this.options;
    if (this.running.size + this.waiting.length >= threads + queue) throw busy(`Too many ${tasks} waiting; try again shortly`, 'queue');
    const admitted: Admitted = { units: this.options.cost?.unitsOf(task) };
    const sized = admitted.units !== undefined;
    // A sized task answers within the limit from its admission; an unsized one has the limit on its thread.
    const now = performance.now();
    const deadline = now + this.timeoutMs;
    if (this.running.size >= threads) {
      const refused = busy(`Too many ${tasks} waiting to finish within ${this.timeoutMs} ms; try again shortly`, 'budget');
      const own = this.estimateMs(admitted);
      if (sized) {
        if (now + this.lineMs() + own > deadline) throw refused;
      } else {
        // The tasks ahead drain `threads` at a time, each taking about the recent mean.
        const wait = Math.ceil((this.waiting.length + 1) / threads) * own;
        if (wait + own > this.timeoutMs) throw refused;
      }
      await new Promise<void>((resolve, reject) => {
        const place = { task: admitted, start: () => (clearTimeout(timer), this.running.add(admitted), resolve()) };
        // A sized task still waiting when its estimate no longer fits before the deadline leaves the line.
        const timer = sized
          ? setTimeout(() => {
              this.waiting.splice(this.waiting.indexOf(place), 1);
              reject(busy(`Too many ${tasks} waiting: the ${tasks} ahead ran past their estimates, and this one can no longer finish within ${this.timeoutMs} ms; try again shortly`, 'budget'));
            }, Math.max(0, Math.floor(deadline - own - now)))
          : undefined;
        this.waiting.push(place);
      });
    } else {
      this.running.add(admitted);
    }
    // Fewer threads started than tasks running (this one included): piscina starts one for it, or
    // (a warm pool) it waits for one to warm up.
    admitted.cold = (this.options.warm ? this.threads().warm : this.pool.threads.length) < this.running.size;
    const started = performance.now();
    admitted.started = started;
    if (timing) timing.waitMs = started - now;
    try {
      const limit = sized ? Math.max(1, Math.floor(deadline - started)) : this.timeoutMs;
      const result = await this.pool.run(task, { signal: AbortSignal.timeout(limit), transferList: transfer });
      const ms = performance.now() - started;
      if (timing) timing.runMs = ms;
      this.remember(admitted, ms);
      this.options.onRun?.(task, ms / 1000);
      return result;
    } catch (error) {
      if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
        this.remember(admitted, performance.now() - started);
        throw busy(`${late} within ${this.timeoutMs} ms`, 'timeout');
      }
      throw error;
    } finally {
      this.running.delete(admitted);
      this.waiting.shift()?.start();
    }
  }

  /**
   * The ids of the threads alive, and how many of them are warm (a pool not `warm` counts every
   * thread that has started as warm).
   */
  threads(): { alive: Set<number>; warm: number } {
    const alive = new Set(this.piscina?.threads.map((thread) => thread.threadId));
    if (!this.options.warm) return { alive, warm: alive.size };
    // Thread ids are never reused: those of ended threads can go.
    for (const id of this.warmIds) if (!alive.has(id)) this.warmIds.delete(id);
    return { alive, warm: this.warmIds.size };
  }

  /** Tasks on a thread now, and tasks admitted and waiting for one. */
  load(): { running: number; waiting: number } {
    return { running: this.running.size, waiting: this.waiting.length };
  }

  /** What a task of `units` (undefined: unsized) is expected to take on a thread, in milliseconds, a thread's start included for a task that starts one. */
  private estimateMs(task: { units: number | undefined; cold?: boolean }): number {
    if (task.units === undefined) return this.typicalRunMs();
    return task.units * this.msPerUnit() + (task.cold ? this.startMs() : 0);
  }

  /**
   * How long a task admitted now waits for a thread: what is left of the estimates of the tasks
   * running (none below 0) and the estimates of those waiting, spread over the threads.
   */
  private lineMs(): number {
    const now = performance.now();
    let ms = 0;
    for (const task of this.running) ms += Math.max(0, this.estimateMs(task) - (now - (task.started ?? now)));
    for (const { task } of this.waiting) ms += this.estimateMs(task);
    return ms / this.options.threads;
  }

  async close(): Promise<void> {
    await this.piscina?.destroy();
  }

  /** The cost per unit of sized tasks: the recent runs' beside the initial figure. */
  private msPerUnit(): number {
    const { initialMsPerUnit, initialUnits } = this.options.cost!;
    let ms = initialMsPerUnit * initialUnits;
    let units = initialUnits;
    for (const run of this.recentSizedRuns) {
      ms += run.ms;
      units += run.units;
    }
    return ms / units;
  }

  /** A thread's start: the mean of the recent first runs' time beyond their units' cost, or the initial figure. */
  private startMs(): number {
    const starts = this.recentStartMs;
    return starts.length === 0 ? this.options.cost!.initialStartMs : starts.reduce((sum, ms) => sum + ms, 0) / starts.length;
  }

  /** The mean of the recent unsized run times; 0 before any, so that a new pool admits its queue of unsized tasks. */
  private typicalRunMs(): number {
    const runs = this.recentRunMs;
    return runs.length === 0 ? 0 : runs.reduce((sum, ms) => sum + ms, 0) / runs.length;
  }

  /** A run's time on its thread (a task stopped at its limit counts with the time it had used, a lower bound). */
  private remember(task: Admitted, ms: number): void {
    if (task.units === undefined) {
      this.recentRunMs.push(ms);
      if (this.recentRunMs.length > RECENT_RUNS) this.recentRunMs.shift();
    } else if (task.cold) {
      // A thread's first run teaches its start, not the cost per unit.
      this.recentStartMs.push(Math.max(0, ms - task.units * this.msPerUnit()));
      if (this.recentStartMs.length > RECENT_STARTS) this.recentStartMs.shift();
    } else {
      this.recentSizedRuns.push({ ms, units: task.units });
      if (this.recentSizedRuns.length > RECENT_RUNS) this.recentSizedRuns.shift();
    }
  }
}

function busy(message: string, reason: UnavailableReason): ApiError {
  return new ApiError(message, 'unavailable', { 'retry-after': retryAfterSeconds }, reason);
}
