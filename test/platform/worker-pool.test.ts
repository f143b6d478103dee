import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/platform/errors.js';
import { WorkerPool } from '../../src/platform/worker-pool.js';

const pool = (options: { threads: number; queue: number; timeoutMs: number }) =>
  new WorkerPool<number, number>({ filename: new URL('./sleep-worker.js', import.meta.url), tasks: 'naps', ...options });

const unavailable = (message: RegExp) => (error: unknown) => {
  assert.ok(error instanceof ApiError, String(error));
  assert.equal(error.statusCode, 503);
  assert.equal(error.headers['retry-after'], '1');
  assert.match(error.message, message);
  return true;
};

test('the time limit counts from when a task starts on a thread, not from when it was queued', async () => {
  const naps = pool({ threads: 1, queue: 4, timeoutMs: 1000 });
  try {
    // Each 400 ms nap is within the limit; the third ends 1200 ms after it was queued.
    assert.deepEqual(await Promise.all([naps.run(400, 'late'), naps.run(400, 'late'), naps.run(400, 'late')]), [400, 400, 400]);
  } finally {
    await naps.close();
  }
});

test('a task that cannot finish in time behind the line is refused at once, before the line drains', async () => {
  const naps = pool({ threads: 1, queue: 10, timeoutMs: 1000 });
  try {
    // Recent naps take 600 ms or more (the thread's start-up spread over three).
    for (let i = 0; i < 3; i++) await naps.run(600, 'late');
    const order: string[] = [];
    const first = naps.run(600, 'late').then(() => order.push('first done'));
    // Behind a 600 ms nap, another would end 1200 ms or more from now.
    await assert.rejects(
      naps.run(600, 'late').finally(() => order.push('second refused')),
      unavailable(/Too many naps waiting to finish within 1000 ms/),
    );
    await first;
    assert.deepEqual(order, ['second refused', 'first done']);
  } finally {
    await naps.close();
  }
});

test('beyond threads + queue tasks are refused at once; a task over the limit is stopped with 503', async () => {
  // The limit leaves room for a thread's start-up on a loaded machine (a cold worker counts it).
  const naps = pool({ threads: 1, queue: 1, timeoutMs: 1500 });
  try {
    const running = naps.run(100, 'late');
    const queued = naps.run(100, 'late');
    await assert.rejects(naps.run(100, 'late'), unavailable(/Too many naps waiting; try again shortly/));
    await Promise.all([running, queued]);
    await assert.rejects(naps.run(5000, 'The nap was not taken'), unavailable(/The nap was not taken within 1500 ms/));
  } finally {
    await naps.close();
  }
});
