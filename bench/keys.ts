/**
 * `npm run bench:keys`: what the API-key gate costs, and key-management throughput.
 *
 * The server runs in a child process; autocannon drives it from this one with 50 connections.
 * The gate's cost is the ratio of a gated endpoint (`/ping?key=K`) to an ungated one of the same
 * server doing the same work (`/health?key=K`), measured in alternating rounds so drift on a shared
 * machine hits both alike. Create and list throughput are measured on PGlite and PostgreSQL.
 */
import autocannon, { type Result } from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../test/helpers.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'bin/meridian.js');
const postgresUrl = process.env.MERIDIAN_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.MERIDIAN_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const seconds = Number(process.env.MERIDIAN_BENCH_SECONDS ?? 5);
const rounds = Number(process.env.MERIDIAN_BENCH_ROUNDS ?? 3);

interface Instance {
  base: string;
  serviceToken: string;
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

async function startInstance(extraEnv: NodeJS.ProcessEnv): Promise<Instance> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'meridian-bench-'));
  const port = await freePort();
  const env = {
    ...process.env,
    MERIDIAN_DATA_DIR: dataDir,
    MERIDIAN_PORT: String(port),
    MERIDIAN_LOG_LEVEL: 'warn',
    // The gate still consults the limiter on every request; the budget is just never reached.
    MERIDIAN_RATE_LIMIT_RPS: '1000000000',
    MERIDIAN_RATE_LIMIT_BURST: '1000000000',
    ...extraEnv,
  };
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error('server exited during start-up');
    try {
      if ((await fetch(`${base}/ready`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { service_token } = JSON.parse(await runCli(['accounts', 'create', 'bench'], env)) as { service_token: string };
  return {
    base,
    serviceToken: service_token,
    async stop() {
      const exited = new Promise((resolve) => child.on('close', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function load(options: autocannon.Options): Promise<Result> {
  const result = await autocannon({ connections: 50, duration: seconds, ...options });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${options.url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  }
  return result;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function createKey(instance: Instance): Promise<string> {
  const response = await fetch(`${instance.base}/v1/api_keys`, {
    method: 'POST',
    headers: { authorization: `Token ${instance.serviceToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await response.json()) as { token: string }).token;
}

async function gateOverhead(label: string, instance: Instance) {
  const key = await createKey(instance);
  await load({ url: `${instance.base}/ping?key=${key}`, duration: 1 });
  const ungated: number[] = [];
  const gated: number[] = [];
  const gatedP99: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // The same URL shape on both sides, so query parsing is not counted as the gate's cost.
    ungated.push((await load({ url: `${instance.base}/health?key=${key}` })).requests.average);
    const result = await load({ url: `${instance.base}/ping?key=${key}` });
    gated.push(result.requests.average);
    gatedP99.push(result.latency.p99);
  }
  const ratio = median(gated) / median(ungated);
  return {
    label,
    ungatedRps: Math.round(median(ungated)),
    gatedRps: Math.round(median(gated)),
    gatedP99Ms: median(gatedP99),
    gatedToUngated: Number(ratio.toFixed(3)),
    overheadPercent: Number(((1 - ratio) * 100).toFixed(1)),
  };
}

async function managementThroughput(label: string, instance: Instance) {
  const headers = { authorization: `Token ${instance.serviceToken}`, 'content-type': 'application/json' };
  const create = await load({
    url: `${instance.base}/v1/api_keys`,
    method: 'POST',
    headers,
    body: JSON.stringify({ description: 'bench', origins: ['example.com'] }),
    connections: 10,
  });
  const list = await load({ url: `${instance.base}/v1/api_keys?limit=50`, headers, connections: 10 });
  return {
    label,
    createsPerSecond: Math.round(create.requests.average),
    createP50Ms: create.latency.p50,
    listsPerSecond: Math.round(list.requests.average),
    listP50Ms: list.latency.p50,
    keysAtEnd: create.requests.total,
  };
}

async function withSchema<T>(work: (schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_${process.pid}`;
  try {
    return await work(schema);
  } finally {
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  }
}

async function main() {
  console.log(`bench:keys: ${seconds}s per measurement, ${rounds} alternating rounds, 50 connections`);
  const gate = [];
  const management = [];

  const embedded = await startInstance({ DATABASE_URL: '' });
  try {
    gate.push(await gateOverhead('PGlite, in-memory rate limit', embedded));
    management.push(await managementThroughput('PGlite', embedded));
  } finally {
    await embedded.stop();
  }

  await withSchema(async (schema) => {
    // Instances sharing a database share the master key.
    const database = { DATABASE_URL: postgresUrl, MERIDIAN_DB_SCHEMA: schema, MERIDIAN_MASTER_KEY: randomBytes(32).toString('base64') };
    const server = await startInstance(database);
    try {
      gate.push(await gateOverhead('PostgreSQL, in-memory rate limit', server));
      management.push(await managementThroughput('PostgreSQL', server));
    } finally {
      await server.stop();
    }
    const shared = await startInstance({ ...database, REDIS_URL: redisUrl });
    try {
      gate.push(await gateOverhead('PostgreSQL, Redis rate limit', shared));
    } finally {
      await shared.stop();
    }
  });

  console.log('\nGate overhead (gated /ping?key= vs ungated /health on the same server)');
  console.table(gate);
  console.log('Key management throughput (10 connections)');
  console.table(management);
  const results = path.join(root, 'bench-results');
  mkdirSync(results, { recursive: true });
  const file = path.join(results, 'keys.json');
  writeFileSync(file, JSON.stringify({ date: new Date().toISOString(), seconds, rounds, gate, management }, null, 2));
  console.log(`written to ${path.relative(process.cwd(), file)}`);
}

await main();
