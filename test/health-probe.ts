/**
 * Asks a server's /health every `intervalMs` until `work` settles, whatever the server does (a
 * client does not wait for the server to be free), and times each answer from when it was due: a
 * stalled event loop delays every request due meanwhile. Shared by tests and benchmarks.
 */

import { request } from 'node:http';

function getHealth(base: string): Promise<void> {
  return new Promise((resolve, reject) => {
    request(`${base}/health`, (response) => {
      response.resume();
      response.on('end', resolve);
    })
      .on('error', reject)
      .end();
  });
}

export async function healthLatencies(base: string, work: Promise<unknown>, intervalMs = 10): Promise<number[]> {
  let done = false;
  const settled = work.then(
    () => (done = true),
    () => (done = true),
  );
  const start = performance.now();
  const pending: Promise<number>[] = [];
  for (let i = 0; !done; i++) {
    const due = start + i * intervalMs;
    pending.push(getHealth(base).then(() => performance.now() - due));
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due + intervalMs - performance.now())));
  }
  await settled;
  return Promise.all(pending);
}

/** How many answers, and their p50, p99 and maximum in milliseconds (to 0.1 ms). */
export function latencyFigures(latencies: readonly number[]): { requests: number; p50Ms: number; p99Ms: number; maxMs: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (fraction: number) => Number(sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)]!.toFixed(1));
  return { requests: sorted.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) };
}
