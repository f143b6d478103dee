/**
 * 503s say why: the body's message names the reason, the log has one `warn` line per reason (not
 * one per refusal), and `/metrics` counts 503s with a `reason` label. The refusals are real: a
 * worker pool's full queue, its estimate, its time limit, and the database's error.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultConfig } from '../../src/config.js';
import { createHttpApp } from '../../src/platform/http/server.js';
import { DatabaseUnavailableError } from '../../src/platform/storage/database.js';
import { WorkerPool } from '../../src/platform/worker-pool.js';
import { LogCapture } from '../helpers.js';

const pool = (options: { threads: number; queue: number; timeoutMs: number; sized?: boolean }) =>
  new WorkerPool<number, number>({
    filename: new URL('./sleep-worker.js', import.meta.url),
    tasks: 'naps',
    threads: options.threads,
    queue: options.queue,
    timeoutMs: options.timeoutMs,
    ...(options.sized ? { cost: { unitsOf: (ms: number) => ms, initialMsPerUnit: 1, initialUnits: 1000, initialStartMs: 0 } } : {}),
  });

const logs = new LogCapture();
let app: FastifyInstance;
const full = pool({ threads: 1, queue: 0, timeoutMs: 60_000 });
const sized = pool({ threads: 1, queue: 10, timeoutMs: 20_000, sized: true });
const limited = pool({ threads: 1, queue: 1, timeoutMs: 300 });

before(async () => {
  app = await createHttpApp({ logLevel: 'info', logStream: logs, trustProxy: false, title: 'test', sharedSchemas: [], http: defaultConfig.http });
  app.get('/queue', async () => {
    const first = full.run(500, 'late');
    try {
      return await full.run(10, 'late');
    } finally {
      await first.catch(() => {});
    }
  });
  app.get('/budget', async () => {
    // Behind a task on the only thread, one estimated at 30 s (a unit costs 1 ms at first) cannot finish within 20 s.
    const first = sized.run(300, 'late');
    try {
      return await sized.run(30_000, 'late');
    } finally {
      await first.catch(() => {});
    }
  });
  app.get('/timeout', async () => limited.run(5000, 'The nap was not taken'));
  app.get('/database', async () => {
    throw new DatabaseUnavailableError(new Error('connect ECONNREFUSED'), true);
  });
  app.get('/metrics', async (_request, reply) => {
    const { contentType, body } = await app.metrics.scrape();
    return reply.type(contentType).send(body);
  });
  await app.ready();
});

after(async () => {
  await app.close();
  await Promise.all([full.close(), sized.close(), limited.close()]);
});

const expected = {
  queue: /^Too many naps waiting; try again shortly$/,
  budget: /^Too many naps waiting to finish within 20000 ms; try again shortly$/,
  timeout: /^The nap was not taken within 300 ms$/,
  database: /^Service temporarily unavailable: the database does not answer; try again later$/,
} as const;

test('each 503 names its reason in the body, in one warn line per reason, and in the metrics', async () => {
  for (const [reason, message] of Object.entries(expected)) {
    for (let i = 0; i < 2; i++) {
      const response = await app.inject({ method: 'GET', url: `/${reason}` });
      assert.equal(response.statusCode, 503, `${reason}: ${response.body}`);
      assert.deepEqual(Object.keys(response.json()), ['errors'], 'the documented body');
      assert.match(response.json().errors[0].message, message, reason);
      assert.ok(response.headers['retry-after'], 'Retry-After');
    }
    const warned = logs.lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40 && entry.reason === reason);
    assert.equal(warned.length, 1, `${reason}: one warn line for two refusals: ${JSON.stringify(warned)}`);
    assert.equal(warned[0].route, `/${reason}`);
    assert.match(warned[0].msg, new RegExp(`^503 \\(${reason}\\): `));
  }
  const scrape = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  for (const reason of Object.keys(expected)) {
    assert.ok(scrape.includes(`meridian_http_requests_total{method="GET",route="/${reason}",status="503",reason="${reason}"} 2`), `${reason} in\n${scrape}`);
  }
});
