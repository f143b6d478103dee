/**
 * `npm run bench:keys`: what the API-key gate costs, and key-management throughput.
 *
 * The server runs in a child process; autocannon drives it from this one with 50 connections.
 * The gate's cost is the ratio of a gated endpoint (`/ping?key=K`) to an ungated one of the same
 * server doing the same work (`/health?key=K`), measured in alternating rounds so drift on a shared
 * machine hits both alike. Create and list throughput are measured on PGlite and PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createKey, load, median, rounds, saveResults, seconds, startInstance, type Instance } from './instance.js';

const postgresUrl = process.env.MERIDIAN_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.MERIDIAN_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

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
  saveResults('keys', { gate, management });
}

await main();
