/**
 * A thread of the coordinates pool: PROJ computes here what search results need (derive.ts), off
 * the serving event loop. The thread loads the engine (proj.ts: its own PROJ context) but not the
 * registry index: the serving thread sends codes and assembles the items.
 *
 * The thread lowers its own scheduling priority (on Linux a thread has its own nice value), as the
 * weather ingest threads do: on a small or busy machine the serving thread still gets a core when
 * it needs one, and PROJ takes the time left over.
 */

import { setPriority } from 'node:os';
import { derive, type Derived, type DeriveTask } from './derive.js';

export interface PoolTask extends DeriveTask {
  /** PROJ time the task may use, counted from when it starts on this thread. */
  budgetMs: number;
}

setPriority(10);

export default function run(task: PoolTask): Derived {
  return derive(task, performance.now() + task.budgetMs);
}
