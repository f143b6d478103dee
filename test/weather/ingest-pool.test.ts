/**
 * Ingests through a server decode and tile on the weather worker pool: the serving event loop keeps
 * answering while a JPEG 2000 sample (75 fields of 300-400 ms each when decoded in-line) goes in.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { example } from './eccodes.js';
import { healthLatencies, latencyFigures } from '../health-probe.js';
import { startTestServer, testConfig } from '../helpers.js';

test('while an ingest runs through the server, the serving thread stays mostly idle and /health keeps answering', { timeout: 300_000 }, async () => {
  const { meridian, server, close } = await startTestServer(testConfig());
  try {
    const { public: base } = await server.listen();
    const idleBefore = performance.eventLoopUtilization();
    const ingest = meridian.admin({ op: 'weather.ingest', files: [example('safrica.grib2')], model: 'safrica', attribution: 'SAWS' });
    const latencies = await healthLatencies(base, ingest);
    const busy = performance.eventLoopUtilization(idleBefore).utilization;
    const report = (await ingest) as { runs: unknown[] };
    assert.ok(report.runs.length > 0, 'the sample was ingested');
    assert.ok(latencies.length >= 20, `${latencies.length} health checks during the ingest`);
    const { p50Ms, p99Ms, maxMs } = latencyFigures(latencies);
    // The share of the ingest's time the serving thread was busy (its own work, the probe's requests):
    // decoding and tiling on it would keep it busy throughout (near 1), wherever the machine's load is;
    // on the weather pool it waits. The latencies are reported, not bounded: they follow the machine's load.
    assert.ok(busy < 0.5, `event loop busy ${(busy * 100).toFixed(0)} % of the ingest; /health p50 ${p50Ms} ms, p99 ${p99Ms} ms, max ${maxMs} ms over ${latencies.length} requests`);
  } finally {
    await close();
  }
});

test('a server refuses ingests beyond its weather queue with 503 and Retry-After', async () => {
  const { meridian, close } = await startTestServer(testConfig({ weather: { workers: 1, queue: 0 } }));
  try {
    const files = [example('safrica.grib2')];
    const first = meridian.admin({ op: 'weather.ingest', files, model: 'one', attribution: 'A' });
    await assert.rejects(meridian.admin({ op: 'weather.ingest', files, model: 'two', attribution: 'B' }), (error: Error & { statusCode?: number; headers?: Record<string, string> }) => {
      assert.equal(error.statusCode, 503);
      assert.match(error.message, /Too many weather ingests waiting/);
      assert.equal(error.headers?.['retry-after'], '1');
      return true;
    });
    await first;
  } finally {
    await close();
  }
});
