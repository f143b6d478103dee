import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import pg from 'pg';
import { createServer, type Server } from '../src/app.js';
import { openMeridian, type Meridian } from '../src/meridian.js';
import { defaultConfig, type Config } from '../src/config.js';
import { embeddedDatabaseDir } from '../src/platform/storage/open.js';
import { tempDir } from './scratch.js';

/**
 * Which database the suite runs on: `MERIDIAN_TEST_DATABASE` is `pglite` (the default) or a
 * PostgreSQL URL. On PostgreSQL every test server gets a schema of its own, dropped afterwards.
 */
export const testDatabase = process.env.MERIDIAN_TEST_DATABASE ?? 'pglite';
export const onPostgres = testDatabase !== 'pglite';
export const redisUrl = process.env.MERIDIAN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object | null ? Partial<T[K]> : T[K] };


export function uniqueSchema(): string {
  return `test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

export function testConfig(overrides: DeepPartial<Config> = {}): Config {
  const base = structuredClone(defaultConfig);
  const config: Config = {
    ...base,
    dataDir: tempDir(),
    logLevel: 'silent',
    port: 0,
    databaseUrl: onPostgres ? testDatabase : null,
    databaseSchema: onPostgres ? uniqueSchema() : 'public',
    rateLimit: { requestsPerSecond: 0, burst: 1 },
    management: { ...base.management, requestsPerSecond: 0 },
    unknownKeys: { ...base.unknownKeys, requestsPerSecond: 0 },
    ...(overrides as Partial<Config>),
  };
  seedEmbeddedDatabase(config.dataDir);
  // A section overridden in part keeps its other defaults (every section, so that one added later is not left half-empty).
  for (const [section, value] of Object.entries(overrides)) {
    const defaults: unknown = base[section as keyof Config];
    if (isSection(value) && isSection(defaults)) Object.assign(config, { [section]: { ...defaults, ...value } });
  }
  // A test server builds no coordinates cache in the background (minutes of CPU) unless the test
  // asks, and its PROJ time limit is one no load reaches (a cold transform or search is seconds of
  // PROJ beside other test files), unless the test is about that limit.
  config.coordinates = {
    ...config.coordinates,
    buildCache: overrides.coordinates?.buildCache ?? false,
    timeoutMs: overrides.coordinates?.timeoutMs ?? 300_000,
  };
  // Its render time limit is one no load reaches either (a cold render took over 15 s beside other
  // test files at load 20), unless the test is about that limit.
  config.maps = { ...config.maps, timeoutMs: overrides.maps?.timeoutMs ?? 300_000 };
  // Nor the geocoding index (seconds of CPU per server), unless the test is about geocoding.
  config.geocoding = { ...config.geocoding, buildIndex: overrides.geocoding?.buildIndex ?? false };
  return config;
}

const isSection = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * scripts/test.sh makes one empty PGlite cluster per run (MERIDIAN_TEST_PGLITE_TEMPLATE); a test data
 * directory starts from a copy of it, which PGlite opens as it would its own first initdb, in a
 * tenth of the time. Run without test.sh, each server runs initdb itself.
 */
const pgliteTemplate = process.env.MERIDIAN_TEST_PGLITE_TEMPLATE;

function seedEmbeddedDatabase(dataDir: string): void {
  if (onPostgres || !pgliteTemplate) return;
  const target = embeddedDatabaseDir(dataDir);
  if (!existsSync(target)) cpSync(pgliteTemplate, target, { recursive: true });
}

/** Collects log lines written by a server, for tests that read them. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }

  get text(): string {
    return this.lines.join('\n');
  }
}

export interface TestServer {
  meridian: Meridian;
  server: Server;
  close(): Promise<void>;
}

/**
 * An open Meridian with its listeners built (not listening: tests call `inject`, or `listen`).
 * A server that `sharesSchema` with another leaves the schema for that one to drop; close it first.
 */
export async function startTestServer(
  config: Config = testConfig(),
  options: { logStream?: Writable; sharesSchema?: boolean } = {},
): Promise<TestServer> {
  const meridian = await openMeridian(config);
  const server = await createServer(meridian, { logStream: options.logStream });
  return {
    meridian,
    server,
    async close() {
      await server.close();
      await meridian.close();
      if (options.sharesSchema) rmSync(config.dataDir, { recursive: true, force: true });
      else await cleanUp(config);
    },
  };
}

/**
 * Listens, then waits until `/ready` no longer answers 503 `starting`: the render threads warm up
 * once the server listens. Resolves to the listeners' URLs.
 */
export async function listenWarm(server: Server): Promise<{ public: string; admin: string }> {
  const urls = await server.listen();
  // However long a loaded machine takes; the bound only stops a test that would hang.
  for (let attempt = 0; ; attempt++) {
    const ready = await server.public.inject({ method: 'GET', url: '/ready' });
    if (ready.statusCode !== 503 || ready.json<{ reason: string }>().reason !== 'starting') return urls;
    if (attempt > 6000) throw new Error(`the render threads did not warm up: ${ready.body}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Removes what a test configuration left behind: its data directory and, on PostgreSQL, its schema. */
export async function cleanUp(config: Config): Promise<void> {
  rmSync(config.dataDir, { recursive: true, force: true });
  if (config.databaseUrl && config.databaseSchema !== 'public') {
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${config.databaseSchema} CASCADE`);
    await client.end();
  }
}

/** A new account and its service token, as the Authorization header value. */
export async function newAccount(meridian: Meridian, name = 'test'): Promise<{ accountId: string; auth: string }> {
  const { account_id, service_token } = await meridian.accounts.create(name);
  return { accountId: account_id, auth: `Token ${service_token}` };
}

/**
 * Two instances on one PostgreSQL schema with one master key, as a multi-instance deployment
 * runs. `close` closes the second first, so the first can drop the schema. `second` adds
 * settings of the second instance only (a `databaseUrl` through a `TcpProxy`, say), and
 * `secondLogStream` collects its log.
 */
export async function startTwoInstances(
  overrides: DeepPartial<Config> = {},
  options: { second?: DeepPartial<Config>; secondLogStream?: Writable } = {},
): Promise<{ first: TestServer; second: TestServer; close(): Promise<void> }> {
  const masterKey = randomBytes(32).toString('base64');
  const first = await startTestServer(testConfig({ ...overrides, masterKey }));
  const second = await startTestServer(
    testConfig({ ...overrides, ...options.second, masterKey, databaseSchema: first.meridian.config.databaseSchema }),
    { sharesSchema: true, ...(options.secondLogStream ? { logStream: options.secondLogStream } : {}) },
  );
  return {
    first,
    second,
    async close() {
      await second.close();
      await first.close();
    },
  };
}
