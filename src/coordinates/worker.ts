/**
 * A thread of the coordinates pool: PROJ computes here what search results need (derive.ts) and
 * runs transforms (transform.ts), off the serving event loop. The thread loads the engine (proj.ts:
 * its own PROJ context) but not the registry index: the serving thread sends codes and assembles
 * the items. The thread keeps its own transformation plans, refusals included: PROJ objects cannot
 * leave the thread that made them.
 *
 * A thread of the background pool (`lowPriority`, background-cache.ts) lowers its own scheduling
 * priority (on Linux a thread has its own nice value), as the weather ingest threads do: the build
 * takes the time left over. The threads that answer requests keep the server's priority: at nice 10
 * on a machine busy with other work a transform of 50 points waited hundreds of milliseconds for
 * CPU (13 requests a second through HTTP at load 11, against thousands at nice 0).
 */

import { setPriority } from 'node:os';
import { workerData } from 'node:worker_threads';
import { derive, type Derived, type DeriveTask } from './derive.js';
import { PlanCache, runTransform, type TransformOutcome, type TransformTask } from './transform.js';

export type PoolTask =
  /** `budgetMs`: PROJ time the search may use, counted from when it starts on this thread. */
  | { kind: 'derive'; task: DeriveTask; budgetMs: number }
  | { kind: 'transform'; task: TransformTask };

export type PoolResult = Derived | TransformOutcome;

if ((workerData as { lowPriority?: boolean } | undefined)?.lowPriority) setPriority(10);

const plans = new PlanCache();

export default function run(work: PoolTask): PoolResult {
  return work.kind === 'derive' ? derive(work.task, performance.now() + work.budgetMs) : runTransform(plans, work.task);
}
