/**
 * The worker thread that builds the place index and saves it to its cache file (index-cache.ts),
 * so that the seconds of CPU a build takes never run on the serving thread.
 */

import { buildIndexCache } from './index-cache.js';

export interface BuildTask {
  file: string;
}

export default function build(task: BuildTask): { ms: number; bytes: number } {
  return buildIndexCache(task.file);
}
