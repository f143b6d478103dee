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

/** The value below which `fraction` of the sorted values lie. */
export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)]!;
}
