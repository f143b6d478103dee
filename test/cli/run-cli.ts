/**
 * Runs the `meridian` command as a user does (a child process of bin/meridian.js) against a test
 * data directory: `run` off a terminal, `runOnTerminal` on one (util-linux `script`), and `serve`
 * with `untilReady` and `accountAndKey` for the tests that need a running server.
 */

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { onPostgres, type testConfig } from '../helpers.js';
import { freePort } from '../scratch.js';

export const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/meridian.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command's runners for one test data directory (the database of `config`). */
export function cliOn(config: ReturnType<typeof testConfig>) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MERIDIAN_LOG_LEVEL: 'warn',
    ...(onPostgres ? { DATABASE_URL: config.databaseUrl!, MERIDIAN_DB_SCHEMA: config.databaseSchema } : { DATABASE_URL: '' }),
  };

  function run(args: string[], extraEnv: NodeJS.ProcessEnv = {}, input = '', dataDir = config.dataDir): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [bin, ...args, '--data', dataDir], { env: { ...env, ...extraEnv } });
      child.stdin.end(input);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  }

  /** The command on a terminal (util-linux `script` gives it one), `typed` arriving after a second. */
  function runOnTerminal(args: string[], typed: string): Promise<{ code: number; output: string }> {
    const command = [process.execPath, bin, ...args, '--data', config.dataDir].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
    return new Promise((resolve, reject) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], { env });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      setTimeout(() => child.stdin.end(`${typed}\n`), 1000);
      child.on('error', reject);
      child.on('close', (code) => resolve({ code: code ?? -1, output }));
    });
  }

  /** `meridian serve` on a free port with the maps folder unwatched; `log.text` gathers what it writes. */
  async function serve(extraEnv: NodeJS.ProcessEnv) {
    const port = await freePort();
    const server = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--data', config.dataDir], {
      env: { ...env, MERIDIAN_MAPS_WATCH: 'false', ...extraEnv },
    });
    const log = { text: '' };
    server.stdout.on('data', (chunk) => (log.text += chunk));
    server.stderr.on('data', (chunk) => (log.text += chunk));
    const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
    return { port, server, log, exited };
  }

  /** Waits until `serve` at `base` says it is ready, however long a loaded machine takes; fails if it exits first. */
  async function untilReady(base: string, server: ChildProcess, output: () => string): Promise<void> {
    for (;;) {
      try {
        if ((await fetch(`${base}/ready`)).status === 200) return;
      } catch {
        // not listening yet
      }
      if (server.exitCode !== null || server.signalCode !== null) assert.fail(`server exited before it was ready: ${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A new account (made by the command, through the running server on PGlite) and a key of it, made through the API at `base`. */
  async function accountAndKey(base: string, account: string): Promise<{ token: string; id: string; name: string }> {
    const created = await run(['accounts', 'create', account]);
    assert.equal(created.code, 0, created.stderr);
    const { service_token } = JSON.parse(created.stdout);
    const key = await fetch(`${base}/v1/api_keys`, {
      method: 'POST',
      headers: { authorization: `Token ${service_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'cli test' }),
    });
    assert.equal(key.status, 200);
    return (await key.json()) as { token: string; id: string; name: string };
  }

  return { env, run, runOnTerminal, serve, untilReady, accountAndKey };
}
