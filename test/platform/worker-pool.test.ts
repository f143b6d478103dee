import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { ApiError } from '../../src/platform/errors.js';
import { WorkerPool, type TaskCost, type TaskTiming } from '../../src/platform/worker-pool.js';

const run = promisify(execFile);

const pool = (options: { threads: number; queue: number; timeoutMs: number; cost?: TaskCost<number> }) =>
  new WorkerPool<number, number>({ filename: new URL('./sleep-worker.js', import.meta.url), tasks: 'naps', ...options });

/** Naps sized by their milliseconds: a unit is a millisecond of napping, costed at first at `initialMsPerUnit`. */
const napCost = (initialMsPerUnit: number, initialUnits: number, unitsOf = (ms: number) => ms, initialStartMs = 0): TaskCost<number> => ({ unitsOf, initialMsPerUnit, initialUnits, initialStartMs });

/** Each nap's result, or the message of its refusal, in the order given. */
const outcomes = (naps: Promise<number>[]) => Promise.all(naps.map((nap) => nap.then(String, (error: Error) => error.message)));

const unavailable = (message: RegExp) => (error: unknown) => {
  assert.ok(error instanceof ApiError, String(error));
  assert.equal(error.statusCode, 503);
  assert.equal(error.headers['retry-after'], '1');
  assert.match(error.message, message);
  return true;
};

test('the time limit counts from when a task starts on a thread, not from when it was queued', async () => {
  // The first nap's time includes the thread's start: 1.9 s of room for it on a loaded machine.
  const naps = pool({ threads: 1, queue: 4, timeoutMs: 3000 });
  try {
    // Each 1100 ms nap is within the limit; the third ends 3300 ms after it was queued.
    assert.deepEqual(await Promise.all([naps.run(1100, 'late'), naps.run(1100, 'late'), naps.run(1100, 'late')]), [1100, 1100, 1100]);
  } finally {
    await naps.close();
  }
});

test("a task's timing tells its wait in line from its run on a thread", async () => {
  const naps = pool({ threads: 1, queue: 4, timeoutMs: 60_000 });
  try {
    const [first, second]: TaskTiming[] = [{ waitMs: -1, runMs: -1 }, { waitMs: -1, runMs: -1 }];
    await Promise.all([naps.run(400, 'late', { timing: first }), naps.run(200, 'late', { timing: second })]);
    // The first runs at once (its run includes the thread's start); the second waits for all of it.
    assert.ok(first!.waitMs >= 0 && first!.waitMs < 50, `the first waited ${first!.waitMs} ms`);
    assert.ok(first!.runMs >= 400, `the first ran ${first!.runMs} ms`);
    assert.ok(second!.waitMs >= first!.runMs - 50, `the second waited ${second!.waitMs} ms behind a run of ${first!.runMs} ms`);
    assert.ok(second!.runMs >= 200 && second!.runMs < second!.waitMs, `the second ran ${second!.runMs} ms`);
  } finally {
    await naps.close();
  }
});

test('a task that cannot finish in time behind the line is refused at once, before the line drains', async () => {
  // The first nap's time includes the thread's start: 1.4 s of room for it on a loaded machine.
  const naps = pool({ threads: 1, queue: 10, timeoutMs: 3000 });
  try {
    // Recent naps take 1600 ms or more (the thread's start-up spread over three).
    for (let i = 0; i < 3; i++) await naps.run(1600, 'late');
    const order: string[] = [];
    const first = naps.run(1600, 'late').then(() => order.push('first done'));
    // Behind a 1600 ms nap, another would end 3200 ms or more from now.
    await assert.rejects(
      naps.run(1600, 'late').finally(() => order.push('second refused')),
      unavailable(/Too many naps waiting to finish within 3000 ms/),
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

test('a new pool admits sized tasks by their estimates from the first task on; unsized ones by count and mean', async () => {
  // Each 600 ms nap is estimated at 1200 ms before any run: behind one, a second ends in 2400 ms, a
  // third would in 3600.
  const sized = pool({ threads: 1, queue: 10, timeoutMs: 3000, cost: napCost(2, 1e9) });
  const unsized = pool({ threads: 1, queue: 10, timeoutMs: 3000 });
  try {
    const tooLate = 'Too many naps waiting to finish within 3000 ms; try again shortly';
    const order: string[] = [];
    const naps = [600, 600, 600, 600].map((ms, i) => sized.run(ms, 'late').finally(() => order.push(`${i}`)));
    assert.deepEqual(await outcomes(naps), ['600', '600', tooLate, tooLate]);
    assert.deepEqual(order.slice(0, 2).sort(), ['2', '3'], 'the refusals came at once, before the first nap ended');
    // Without an estimate, a new pool's mean is 0: it admits its queue.
    assert.deepEqual(await outcomes([600, 600, 600, 600].map((ms) => unsized.run(ms, 'late'))), ['600', '600', '600', '600']);
  } finally {
    await Promise.all([sized.close(), unsized.close()]);
  }
});

test('the cost per unit is learned from the recent runs, beside the initial figure', async () => {
  // At first 4 ms a unit: a 400 ms nap is estimated at 1600 ms, and one behind another does not fit
  // in 3000. The initial figure weighs as 100 units of runs.
  const naps = pool({ threads: 1, queue: 10, timeoutMs: 3000, cost: napCost(4, 100) });
  try {
    const tooLate = 'Too many naps waiting to finish within 3000 ms; try again shortly';
    assert.deepEqual(await outcomes([naps.run(400, 'late'), naps.run(400, 'late')]), ['400', tooLate]);
    // After 1,600 units of runs that took about a millisecond each (the thread's start-up aside), a
    // nap of 400 is estimated at well under 1500 ms: one fits behind another.
    for (let i = 0; i < 3; i++) await naps.run(400, 'late');
    assert.deepEqual(await outcomes([naps.run(400, 'late'), naps.run(400, 'late')]), ['400', '400']);
  } finally {
    await naps.close();
  }
});

test('a sized task answers within the limit from its admission: it leaves the line when the tasks ahead overrun', async () => {
  // The 5000 ms nap claims 100 units (100 ms): the 400 ms nap is admitted behind it, and leaves the
  // line once its 400 ms no longer fit before its deadline; the long nap is stopped at the limit.
  const naps = pool({ threads: 1, queue: 10, timeoutMs: 1500, cost: napCost(1, 1e9, (ms) => (ms === 5000 ? 100 : ms)) });
  try {
    const order: string[] = [];
    const long = naps.run(5000, 'The nap was not taken').finally(() => order.push('long'));
    const behind = naps.run(400, 'late').finally(() => order.push('behind'));
    assert.deepEqual(await outcomes([long, behind]), [
      'The nap was not taken within 1500 ms',
      'Too many naps waiting: the naps ahead ran past their estimates, and this one can no longer finish within 1500 ms; try again shortly',
    ]);
    assert.deepEqual(order, ['behind', 'long']);
  } finally {
    await naps.close();
  }
});

test("a task that starts a thread is estimated with the thread's start; on a warm thread without it", async () => {
  // A 600 ms nap is estimated at 600 ms, and at 2600 on a thread starting: none fits behind that.
  const naps = pool({ threads: 1, queue: 10, timeoutMs: 3000, cost: napCost(1, 1e9, undefined, 2000) });
  try {
    const tooLate = 'Too many naps waiting to finish within 3000 ms; try again shortly';
    assert.deepEqual(await outcomes([naps.run(600, 'late'), naps.run(600, 'late')]), ['600', tooLate]);
    // The thread is up (and its start learned as what the first nap took beyond 600 ms): one fits behind another.
    assert.deepEqual(await outcomes([naps.run(600, 'late'), naps.run(600, 'late')]), ['600', '600']);
  } finally {
    await naps.close();
  }
});

test("a pool's threads load their module by import(), never by Node's synchronous require(esm), whose instantiation a closing pool could cut (a fatal error for the process)", async () => {
  const threads = new WorkerPool<void, string>({ filename: new URL('./module-loading-worker.js', import.meta.url), tasks: 'checks', threads: 1, queue: 1, timeoutMs: 60_000 });
  try {
    // In the thread, require() of an ES module is refused at once (ERR_REQUIRE_ESM), so piscina imports.
    assert.equal(await threads.run(undefined, 'late'), 'ERR_REQUIRE_ESM');
  } finally {
    await threads.close();
  }
});

test("an idle thread's event loop runs (piscina's Atomics.wait would stop it between tasks)", async () => {
  const threads = new WorkerPool<void, number>({ filename: new URL('./event-loop-worker.js', import.meta.url), tasks: 'checks', threads: 1, queue: 1, timeoutMs: 60_000 });
  try {
    await threads.run(undefined, 'late');
    // The thread idles for a while after the first task: the immediate that task queued runs meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await threads.run(undefined, 'late'), 1);
  } finally {
    await threads.close();
  }
});

test('a process started with a V8 option (which a thread given options explicitly refuses) still runs its pools', async () => {
  // The pool module in a process of its own, run with --max-old-space-size, running one nap.
  const pool = new URL('../../src/platform/worker-pool.js', import.meta.url).href;
  const worker = new URL('./sleep-worker.js', import.meta.url).href;
  const script = `const { WorkerPool } = await import(${JSON.stringify(pool)});
const naps = new WorkerPool({ filename: new URL(${JSON.stringify(worker)}), tasks: 'naps', threads: 1, queue: 1, timeoutMs: 60000 });
console.log(await naps.run(5, 'late'));
await naps.close();`;
  const { stdout } = await run(process.execPath, ['--max-old-space-size=512', '--input-type=module', '-e', script]);
  assert.equal(stdout.trim(), '5');
});

test('threads get room in their heaps: one growing by 56 MiB from a small live heap runs no major GC', async () => {
  const threads = new WorkerPool<number, number>({ filename: new URL('./heap-worker.js', import.meta.url), tasks: 'checks', threads: 1, queue: 1, timeoutMs: 60_000 });
  try {
    // Left to V8, the limit sits a little above what the full GC left live and the thread marks on
    // the way (one major GC here, in every run with the floor taken out; under load, a mark-compact
    // every 8 to 25 images).
    assert.equal(await threads.run(56, 'the heap check did not finish'), 0);
  } finally {
    await threads.close();
  }
});
