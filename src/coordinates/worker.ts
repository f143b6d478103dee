/**
 * A thread of the coordinates pool: PROJ computes here what search results need (derive.ts) and
 * runs transforms (transform.ts), off the serving event loop. The thread loads the engine (proj.ts:
 * its own PROJ context) but not the registry index: the serving thread sends codes and assembles
 * the items. The thread keeps its own transformation plans, refusals included: PROJ objects cannot
 * leave the thread that made them.
 *
 * The thread lowers its own scheduling priority (on Linux a thread has its own nice value), as the
 * weather ingest threads do: on a small or busy machine the serving thread still gets a core when
 * it needs one, and PROJ takes the time left over.
 */

import { setPriority } from 'node:os';
import { derive, type Derived, type DeriveTask } from './derive.js';
import { PlanCache, runTransform, type TransformOutcome, type TransformTask } from './transform.js';

export type PoolTask =
  /** `budgetMs`: PROJ time the search may use, counted from when it starts on this thread. */
  | { kind: 'derive'; task: DeriveTask; budgetMs: number }
  | { kind: 'transform'; task: TransformTask };

export type PoolResult = Derived | TransformOutcome;

setPriority(10);

const plans = new PlanCache();

export default function run(work: PoolTask): PoolResult {
  return work.kind === 'derive' ? derive(work.task, performance.now() + work.budgetMs) : runTransform(plans, work.task);
}
