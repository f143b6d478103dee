/**
 * The coordinates pool's threads answer requests at the server's priority; the background cache
 * build's thread runs at nice 10. Read from /proc: on Linux each thread has its own nice value
 * (field 19 of /proc/self/task/<tid>/stat).
 */

import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { test } from 'node:test';
import { defaultConfig } from '../../src/config.js';
import { backgroundPool, CoordinatesPool } from '../../src/coordinates/pool.js';
import { readProcStat } from '../../src/platform/files/proc-stat.js';

const silentLog = { info: () => {}, warn: () => {} };
const config = { ...defaultConfig.coordinates, workers: 1, queue: 1, timeoutMs: 300_000 };

/** The nice value of each thread of this process. */
function niceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => Number(readProcStat(`/proc/self/task/${tid}/stat`)?.field(19)));
}

test('request threads keep the server priority; the background build thread runs at nice 10', { timeout: 300_000 }, async () => {
  const serving = new CoordinatesPool(config);
  const background = backgroundPool(serving, config);
  try {
    const result = await serving.transform({ points: [{ x: 8.54, y: 47.37, z: 0 }], source: 4326, target: 2056, ops: [] }, silentLog);
    assert.ok(result, 'a transform ran on a request thread');
    assert.deepEqual([...new Set(niceValues())], [0], 'every thread at nice 0 while only request threads exist');
    await background.derive({ crs: [{ code: 2056, defaultTransformation: true, exports: false, bound: [] }], operations: [] });
    assert.deepEqual(niceValues().filter((nice) => nice !== 0), [10], 'one thread at nice 10: the build thread');
  } finally {
    await serving.close();
    await background.close();
  }
});
