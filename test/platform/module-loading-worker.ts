/** A worker for the worker-pool tests: answers whether this thread's `require` loads an ES module (`require(esm)`). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export default function requireLoadsEsm(): string {
  try {
    require('./sleep-worker.js');
    return 'loaded';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}
