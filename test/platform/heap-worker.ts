/**
 * A worker for the worker-pool tests: the major GCs its thread runs while its heap grows by `mb`
 * MiB of live objects, after a full GC that sets V8's limit from a small live heap.
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

export default async function majorGcsWhileGrowing(mb: number): Promise<number> {
  let majors = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if ((entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
  });
  observer.observe({ entryTypes: ['gc'] });
  gc();
  await new Promise((resolve) => setTimeout(resolve, 20));
  majors = 0;
  const kept: { i: number; s: string }[][] = [];
  // About 1 MiB of small objects a round, all kept.
  for (let round = 0; round < mb; round++) kept.push(Array.from({ length: 16_384 }, (_, i) => ({ i, s: `${round}:${i}` })));
  await new Promise((resolve) => setTimeout(resolve, 20));
  observer.disconnect();
  return kept.length > 0 ? majors : -1;
}
