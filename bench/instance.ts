/** What every `bench:<area>` script shares: real server processes and an HTTP load generator. */
import autocannon, { type Result } from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/scratch.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/meridian.js');
export const seconds = Number(process.env.MERIDIAN_BENCH_SECONDS ?? 5);
export const rounds = Number(process.env.MERIDIAN_BENCH_ROUNDS ?? 3);

export interface Instance {
  base: string;
  serviceToken: string;
  /** Resident memory of the server process (its worker threads included), in MiB. */
  rssMiB(): number;
  /** The server's process id (its CPU and threads are read from /proc, see cpu.ts). */
  pid: number;
  stop(): Promise<void>;
}

function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(err))));
  });
}

/** A `meridian serve` process on a fresh data directory, with an account to call it with. */
export async function startInstance(extraEnv: NodeJS.ProcessEnv = {}): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'meridian-bench-'));
  const port = await freePort();
  // Key management's per-account limit has no environment variable; bench:keys creates keys far faster than it allows.
  const configFile = path.join(dataDir, 'bench-config.json');
  writeFileSync(configFile, JSON.stringify({ management: { requestsPerSecond: 0 } }));
  const env = {
    ...process.env,
    MERIDIAN_CONFIG: configFile,
    MERIDIAN_DATA_DIR: dataDir,
    MERIDIAN_PORT: String(port),
    MERIDIAN_LOG_LEVEL: 'warn',
    // A fresh data directory: no coordinates cache built in the background beside what is measured.
    MERIDIAN_COORDINATES_BUILD_CACHE: 'false',
    // The gate still consults the limiter on every request; the budget is just never reached.
    MERIDIAN_RATE_LIMIT_RPS: '1000000000',
    MERIDIAN_RATE_LIMIT_BURST: '1000000000',
    ...extraEnv,
  };
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + Number(process.env.MERIDIAN_BENCH_START_SECONDS ?? 180) * 1000;
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error('server exited during start-up');
    try {
      const ready = await fetch(`${base}/ready`);
      // Ready, and done with the world place index a fresh data directory builds on a worker thread at
      // start-up (5 s of a core's time): measured beside it, the first seconds of a benchmark were slower.
      if (ready.ok && ((await ready.json()) as { geocoding_index?: string }).geocoding_index !== 'building') break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error('server did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { service_token } = JSON.parse(await runCli(['accounts', 'create', 'bench'], env)) as { service_token: string };
  let stopped: Promise<void> | undefined;
  return {
    base,
    serviceToken: service_token,
    rssMiB: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024,
    pid: child.pid!,
    /** Stops the server and removes its data directory; calling it again waits for the same stop. */
    stop() {
      stopped ??= (async () => {
        const closed = new Promise((resolve) => child.on('close', resolve));
        if (!exited) child.kill('SIGTERM');
        if (!exited) await closed;
        rmSync(dataDir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

/** autocannon against one URL; any non-2xx answer or error fails the benchmark. */
export async function load(options: autocannon.Options): Promise<Result> {
  const result = await autocannon({ connections: 50, duration: seconds, ...options });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${options.url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  }
  return result;
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A new API key of the instance's account. */
export async function createKey(instance: Instance): Promise<string> {
  const response = await fetch(`${instance.base}/v1/api_keys`, {
    method: 'POST',
    headers: { authorization: `Token ${instance.serviceToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await response.json()) as { token: string }).token;
}

/** One client's connection to a server, kept open from request to request as a browser would. */
export const keepAliveAgent = () => new http.Agent({ keepAlive: true, maxSockets: 1 });
const keepAlive = keepAliveAgent();

/**
 * One GET that must answer 200: how long until its whole body arrived, the body's size and the
 * response headers. node:http rather than fetch: the figure is meant to be the server's, and fetch
 * (undici's web streams) added 1.6 ms to a 512x512 PNG of 12 ms here (nothing measurable to a
 * 400 KB image). Concurrent clients each pass their own `agent` (one connection each).
 */
export function timedGet(url: string, agent: http.Agent = keepAlive): Promise<{ ms: number; bytes: number; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    http
      .get(url, { agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const body = Buffer.concat(chunks);
          if (response.statusCode !== 200) reject(new Error(`${url.replace(/key=[^&]*/, 'key=…')}: ${response.statusCode} ${body.toString('utf8')}`));
          else resolve({ ms: performance.now() - start, bytes: body.length, headers: response.headers });
        });
      })
      .on('error', reject);
  });
}

/**
 * A measurement taken after a pause, so that the trailing work of the one before (Chromium's threads
 * winding down after an image, the server's garbage collector after a request) does not land in it.
 */
export async function afterPause<T>(measure: () => Promise<T>): Promise<T> {
  await new Promise((resolve) => setTimeout(resolve, Number(process.env.MERIDIAN_BENCH_SETTLE_MS ?? 30)));
  return measure();
}

/** Writes a benchmark's figures to `bench-results/<area>.json`. */
export function saveResults(area: string, results: unknown): void {
  const directory = path.join(root, 'bench-results');
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${area}.json`);
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), seconds, rounds, ...(results as object) }, null, 2));
  console.log(`written to ${path.relative(process.cwd(), file)}`);
}
