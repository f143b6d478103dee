/**
 * `meridian serve` as a process: it answers HTTP while the other commands work beside it, reloads
 * the maps on SIGHUP, and on SIGTERM writes the usage counted since the last flush and exits 0.
 */

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { cleanUp, testConfig } from '../helpers.js';
import { cliOn } from './run-cli.js';

const config = testConfig();
const { run, serve, untilReady, accountAndKey } = cliOn(config);
after(() => cleanUp(config));

test('serve answers HTTP, the CLI works while it runs, and SIGTERM stops it cleanly', async () => {
  const { port, server, log, exited } = await serve({ MERIDIAN_USAGE_FLUSH_MS: '200' });
  const output = () => log.text;
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base, server, output);
    const { token, id, name } = await accountAndKey(base, 'while-serving');
    assert.equal((await fetch(`${base}/ping?key=${token}`)).status, 200);
    // Counts are written in batches; the embedded server answers from memory, PostgreSQL after a flush.
    let rows: { requests: number; key_name: string; account_name: string }[] = [];
    for (let attempt = 0; attempt < 20 && rows.length === 0; attempt++) {
      const usage = await run(['usage', '--key', id]);
      assert.equal(usage.code, 0, usage.stderr);
      rows = JSON.parse(usage.stdout);
      if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(rows[0]?.requests, 1);
    assert.equal(rows[0]?.key_name, name, 'the key is named beside its id');
    assert.equal(rows[0]?.account_name, 'while-serving');

    // With the folder unwatched, SIGHUP is what reloads the maps.
    const listed = async () => ((await (await fetch(`${base}/maps?key=${token}`)).json()) as { maps: { id: string }[] }).maps.map((map) => map.id);
    mkdirSync(path.join(config.dataDir, 'maps'), { recursive: true });
    const style = { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#123456' } }] };
    writeFileSync(path.join(config.dataDir, 'maps', 'hup.json'), JSON.stringify({ style }));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(!(await listed()).includes('hup'), 'not watched: not loaded yet');
    server.kill('SIGHUP');
    for (let attempt = 0; !(await listed()).includes('hup'); attempt++) {
      if (attempt === 100) assert.fail(`SIGHUP did not reload the maps: ${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});

test('usage counted since the last flush is written to the database when SIGTERM stops serve', async () => {
  // No flush on the timer while the test runs: only the close path can write the counts.
  const { port, server, log, exited } = await serve({ MERIDIAN_USAGE_FLUSH_MS: '3600000' });
  const output = () => log.text;
  const requests = 25;
  let id: string;
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base, server, output);
    const key = await accountAndKey(base, 'stopped-by-sigterm');
    id = key.id;
    for (let i = 0; i < requests; i++) assert.equal((await fetch(`${base}/ping?key=${key.token}`)).status, 200);
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
  // The server is gone: the command reads the database itself.
  const usage = await run(['usage', '--key', id]);
  assert.equal(usage.code, 0, usage.stderr);
  assert.deepEqual(JSON.parse(usage.stdout).map((row: { requests: number }) => row.requests), [requests], output());
});
