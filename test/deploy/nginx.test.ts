/**
 * The deployment recipe, run: Debian's nginx with the site of deploy/nginx-meridian.conf (plain HTTP
 * on a free port instead of its TLS listeners, the upstream pointed at the test's instances) in
 * front of two `meridian serve` processes sharing one PostgreSQL schema and Redis, set as
 * deploy/meridian.env sets an instance. Requests spread over both, links use the public URL, a
 * forged X-Forwarded-For buys no budget, a database cut costs no 502 (the instances reach
 * PostgreSQL through a TCP proxy the test cuts), SIGKILL of one instance costs no client error, and
 * no key reaches nginx's logs.
 *
 * @oneDatabase the instances need PostgreSQL to share their state: the file runs them on the
 * PostgreSQL server of the suite (MERIDIAN_TEST_POSTGRES_URL) in whichever pass runs it.
 */

import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, sample, tempDir } from '../scratch.js';
import { TcpProxy, type ProxyMode } from '../tcp-proxy.js';
import { until } from '../until.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const bin = path.join(root, 'bin/meridian.js');
const site = path.join(root, 'deploy/nginx-meridian.conf');
const postgresUrl = process.env.MERIDIAN_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.MERIDIAN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const publicUrl = 'https://maps.example.test';

/**
 * The site as the test runs it, generated from the recipe's file: the TLS listeners (between
 * `# tls:start` and `# tls:end`) become one plain listener, the upstream's servers the test's
 * instances with the recipe's parameters, and the log folder the test's.
 */
function testSite(recipe: string, options: { port: number; upstreams: number[]; logDir: string }): string {
  let text = recipe.replace(/^[ \t]*# tls:start\n[\s\S]*?^[ \t]*# tls:end\n/gm, '');
  const servers = [...text.matchAll(/^([ \t]*)server [0-9.]+:\d+( [^;]*)?;\n/gm)];
  assert.ok(servers.length >= 2, 'the recipe names its instances');
  const [indent, parameters] = [servers[0]![1]!, servers[0]![2] ?? ''];
  text = text.replace(/^[ \t]*server [0-9.]+:\d+( [^;]*)?;\n/gm, '');
  text = text.replace(/^([ \t]*)keepalive /m, `${options.upstreams.map((port) => `${indent}server 127.0.0.1:${port}${parameters};\n`).join('')}$1keepalive `);
  text = text.replace(/^([ \t]*)server_name [^;]+;/m, `$1listen 127.0.0.1:${options.port};\n$1server_name maps.example.test;`);
  text = text.replaceAll('/var/log/nginx/', `${options.logDir}/`);
  assert.ok(!/ssl|443/.test(text), 'no TLS left');
  return text;
}

interface Instance {
  port: number;
  process: ChildProcess;
  output: { text: string };
  exited: Promise<number | null>;
}

let dir: string;
let schema: string;
let nginx: ChildProcess;
let nginxPort: number;
let nginxOutput = '';
let instances: Instance[] = [];
let env: NodeJS.ProcessEnv;
let key: string;
let serviceToken: string;
const metricsToken = randomBytes(24).toString('hex');
/** What the instances reach PostgreSQL through. */
let database: TcpProxy;

const accessLog = () => readFileSync(path.join(dir, 'logs/meridian.access.log'), 'utf8');
const logLines = () => accessLog().split('\n').filter(Boolean);
const upstreamOf = (line: string) => /upstream=(\S+(?:, \S+)*) upstream_status=/.exec(line)?.[1] ?? '';

function startInstance(port: number, dataDir: string): Instance {
  const child = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--data', dataDir, '--config', path.join(dir, 'meridian.json')], { env });
  const output = { text: '' };
  child.stdout!.on('data', (chunk) => (output.text += chunk));
  child.stderr!.on('data', (chunk) => (output.text += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { port, process: child, output, exited };
}

/** Runs a command to its end without blocking this event loop (where the instances' database proxy runs). */
function run(command: string, args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { env });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, ...output })));
}

/** Whether the instance came up (`/ready` 200) or exited first. */
async function waitReady(instance: Instance): Promise<boolean> {
  // Start-up takes what it takes on a loaded machine; the limit only stops a test that would hang.
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${instance.port}/ready`)).status === 200) return true;
    } catch {
      // not listening yet
    }
    if (instance.process.exitCode !== null) return false;
    if (attempt > 3000) assert.fail(`instance on ${instance.port} did not start: ${instance.output.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * An instance on a free port. The port is free when chosen, not necessarily when the instance binds
 * it seconds later: freePort keeps clear of the ports outgoing connections take, but another test's
 * listener may have asked for the same number meanwhile (EADDRINUSE), and then the instance starts
 * again on another.
 */
async function startInstanceOnFreePort(dataDir: string): Promise<Instance> {
  for (let attempt = 1; ; attempt++) {
    const instance = startInstance(await freePort(), dataDir);
    if (await waitReady(instance)) return instance;
    await instance.exited;
    if (attempt < 3 && instance.output.text.includes('EADDRINUSE')) continue;
    assert.fail(`instance on ${instance.port} exited with ${instance.process.exitCode} before it was ready: ${instance.output.text}`);
  }
}

/** What nginx said about its start: its standard error and its logs. */
function nginxSaid(): string {
  const logs = ['startup.log', 'error.log'].map((name) => {
    try {
      return readFileSync(path.join(dir, 'logs', name), 'utf8');
    } catch {
      return '';
    }
  });
  return [nginxOutput, ...logs].filter(Boolean).join('\n') || '(nothing on its standard error or in its logs)';
}

/** Whether nginx answers on its port, or exited first. */
async function waitForNginx(): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fetch(`http://127.0.0.1:${nginxPort}/health`);
      return true;
    } catch {
      // not listening yet
    }
    if (nginx.exitCode !== null) return false;
    if (attempt > 600) assert.fail(`nginx did not start: ${nginxSaid()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Starts nginx with the recipe's site in front of the instances, on a free port (another should that one be taken by the time nginx binds it). */
async function startNginx(): Promise<void> {
  const siteFile = path.join(dir, 'site.conf');
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, 'tmp', name)};`;
  mkdirSync(path.join(dir, 'tmp'));
  chmodSync(path.join(dir, 'tmp'), 0o777);
  for (let attempt = 1; ; attempt++) {
    nginxPort = await freePort();
    writeFileSync(siteFile, testSite(readFileSync(site, 'utf8'), { port: nginxPort, upstreams: instances.map((instance) => instance.port), logDir: path.join(dir, 'logs') }));
    writeFileSync(
      path.join(dir, 'nginx.conf'),
      [
        `pid ${path.join(dir, 'nginx.pid')};`,
        `error_log ${path.join(dir, 'logs/error.log')} warn;`,
        'worker_processes 1;',
        'events { worker_connections 512; }',
        `http { ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join(' ')} include ${siteFile}; }`,
        '',
      ].join('\n'),
    );
    const check = await run('nginx', ['-t', '-p', dir, '-e', path.join(dir, 'logs/startup.log'), '-c', path.join(dir, 'nginx.conf')]);
    assert.equal(check.status, 0, `nginx -t: ${check.stderr}`);
    nginxOutput = '';
    nginx = spawn('nginx', ['-p', dir, '-e', path.join(dir, 'logs/startup.log'), '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;']);
    nginx.stderr!.on('data', (chunk) => (nginxOutput += chunk));
    if (await waitForNginx()) return;
    const said = nginxSaid();
    if (attempt < 3 && said.includes('Address already in use')) continue;
    assert.fail(`nginx exited with ${nginx.exitCode} before it answered: ${said}`);
  }
}

before(async () => {
  dir = tempDir();
  // nginx's workers drop root's rights: they must reach the folder.
  chmodSync(dir, 0o755);
  schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  mkdirSync(path.join(dir, 'logs'));
  mkdirSync(path.join(dir, 'maps'));
  const style = { version: 8, glyphs: 'fonts/{fontstack}/{range}.pbf', sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#123456' } }] };
  writeFileSync(path.join(dir, 'maps/plain.json'), JSON.stringify({ style }));
  // What the test asks of the gate: no per-key or key-management limit (it sends bursts), a small budget of unknown keys.
  writeFileSync(
    path.join(dir, 'meridian.json'),
    JSON.stringify({ rateLimit: { requestsPerSecond: 0, burst: 1 }, management: { requestsPerSecond: 0 }, unknownKeys: { requestsPerSecond: 0.001, burst: 3 } }),
  );
  const postgres = new URL(postgresUrl);
  database = await TcpProxy.start({ host: postgres.hostname, port: Number(postgres.port || 5432) });
  // deploy/meridian.env's settings, on this machine.
  env = {
    ...process.env,
    DATABASE_URL: database.urlFor(postgresUrl),
    MERIDIAN_DB_SCHEMA: schema,
    MERIDIAN_MASTER_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: redisUrl,
    MERIDIAN_TRUST_PROXY: '127.0.0.1',
    MERIDIAN_PUBLIC_URL: publicUrl,
    MERIDIAN_HOST: '127.0.0.1',
    MERIDIAN_MAPS_DIR: path.join(dir, 'maps'),
    MERIDIAN_MAPS_WATCH: 'false',
    MERIDIAN_MAPS_WORKERS: '1',
    MERIDIAN_COORDINATES_WORKERS: '1',
    MERIDIAN_COORDINATES_BUILD_CACHE: 'false',
    MERIDIAN_LOG_LEVEL: 'warn',
    MERIDIAN_METRICS_TOKEN: metricsToken,
    // A key verified before a cut is trusted for this long after the instance last heard key
    // changes: the longest bound, so that no cut of this file outlasts it however slow the machine.
    MERIDIAN_KEY_REVOCATION_BOUND_MS: '300000',
  };
  // One after the other: two instances creating a new schema at once can collide on CREATE SCHEMA
  // IF NOT EXISTS (it runs before the migrations' advisory lock); a deployment's schema exists already.
  for (let i = 0; i < 2; i++) instances.push(await startInstanceOnFreePort(path.join(dir, `data-${i}`)));
  await startNginx();

  const created = await run(process.execPath, [bin, 'accounts', 'create', 'proxied', '--config', path.join(dir, 'meridian.json'), '--data', path.join(dir, 'data-0')]);
  assert.equal(created.status, 0, `accounts create: ${created.stdout}${created.stderr}`);
  ({ service_token: serviceToken } = JSON.parse(created.stdout) as { service_token: string });
  const response = await fetch(`http://127.0.0.1:${nginxPort}/v1/api_keys`, {
    method: 'POST',
    headers: { authorization: `Token ${serviceToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'through nginx' }),
  });
  const body = await response.text();
  assert.equal(response.status, 200, `creating a key through nginx: ${body}; nginx's log: ${logLines().at(-1)}`);
  ({ token: key } = JSON.parse(body) as { token: string });
});

after(async () => {
  if (nginx && nginx.exitCode === null) {
    const stopped = new Promise((resolve) => nginx.on('close', resolve));
    nginx.kill('SIGQUIT');
    await stopped;
  }
  for (const instance of instances) {
    if (instance.process.exitCode === null && instance.process.signalCode === null) instance.process.kill('SIGTERM');
    await instance.exited;
  }
  await database?.close();
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
  rmSync(dir, { recursive: true, force: true });
});

const get = (pathAndQuery: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${nginxPort}${pathAndQuery}`, { headers });

test('requests spread over both instances', async () => {
  const before = logLines().length;
  for (let i = 0; i < 40; i++) assert.equal((await get(`/ping?key=${key}`)).status, 200);
  const counts = new Map<string, number>();
  for (const line of logLines().slice(before)) counts.set(upstreamOf(line), (counts.get(upstreamOf(line)) ?? 0) + 1);
  assert.deepEqual(
    [...counts.keys()].sort(),
    instances.map((instance) => `127.0.0.1:${instance.port}`).sort(),
    `each request answered by one instance: ${[...counts]}`,
  );
  for (const [upstream, count] of counts) assert.ok(count >= 10, `${upstream} answered ${count} of 40`);
});

test('links use the public URL, not the address nginx reached the instance at', async () => {
  for (let i = 0; i < 2; i++) {
    const response = await get(`/maps/plain/style.json?key=${key}`);
    assert.equal(response.status, 200);
    const style = (await response.json()) as { glyphs: string };
    assert.ok(style.glyphs.startsWith(`${publicUrl}/fonts/`), style.glyphs);
  }
});

test('a forged X-Forwarded-For buys no budget of unknown keys: nginx overwrites it', async () => {
  const statuses = [];
  for (let i = 0; i < 5; i++) statuses.push((await get(`/ping?key=guess-${i}-${randomBytes(4).toString('hex')}`, { 'x-forwarded-for': `198.51.100.${i}` })).status);
  assert.deepEqual(statuses, [403, 403, 403, 429, 429], 'one budget, the one of the address nginx saw, shared by both instances through Redis');
});

test('no key, token or key-like parameter reaches nginx logs, whatever its spelling', async () => {
  const secrets = Array.from({ length: 9 }, (_, i) => `s3cret${i}${randomBytes(6).toString('hex')}`);
  const urls = [
    `/ping?KEY=${secrets[0]}`,
    `/ping?foo=1&api_key=${secrets[1]}&key=${secrets[2]}&token=${secrets[3]}`,
    `/ping%3Fkey=${secrets[4]}`,
    `/ping?%6Bey=${secrets[5]}`,
    `/ping?x=1;key=${secrets[6]}`,
    `/ping?icon=http%3A%2F%2Fx%2F%3Fkey%3D${secrets[7]}`,
    `/ping?a=1&b=2&c=3&key=${secrets[8]}&apikey=${secrets[8]}&access-token=${secrets[8]}&Key=${secrets[8]}`,
  ];
  for (const url of urls) await get(url);
  const logs = [accessLog(), readFileSync(path.join(dir, 'logs/error.log'), 'utf8'), readFileSync(path.join(dir, 'logs/meridian.error.log'), 'utf8')].join('\n');
  for (const secret of [...secrets, key]) assert.ok(!logs.includes(secret), `${secret} is in the logs`);
  assert.ok(logs.includes('/ping?foo=1&REDACTED&REDACTED&REDACTED'), 'the rest of the line is kept');
  assert.ok(logs.includes('/ping?REDACTED '), 'a query with more than three is replaced whole');
});

/** How long the test waits for what a cut should bring about: only a test that would hang gets there. */
const PHASE_TIMEOUT_MS = 300_000;

/**
 * Waits until `instance` has heard every key change since `since` (`performance.now()` here) and
 * has verified the test's key since: a request with it straight to the instance answers 200.
 */
async function heardSince(instance: Instance, since: number): Promise<void> {
  const base = `http://127.0.0.1:${instance.port}`;
  const heardAge = async () => sample(await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text(), 'meridian_key_changes_heard_age_seconds');
  await until(async () => (await heardAge()) * 1000 < performance.now() - since, `instance ${instance.port} to hear key changes again`, 60_000);
  const ping = await fetch(`${base}/ping?key=${key}`);
  assert.equal(ping.status, 200, `the key at ${instance.port} after the cut: ${await ping.text()}`);
}

test('a database cut costs no 502: keys already verified get 200, key management 503, both instances stay in rotation', async (t) => {
  // Each instance verifies the key before the cut (each keeps the keys it verified).
  const answeredBy = new Set<string>();
  for (let i = 0; answeredBy.size < instances.length; i++) {
    assert.ok(i < 200, `requests reach both instances: ${[...answeredBy]}`);
    const before = logLines().length;
    assert.equal((await get(`/ping?key=${key}`)).status, 200);
    for (const line of logLines().slice(before)) answeredBy.add(upstreamOf(line));
  }
  const start = logLines().length;
  // Requests with the verified key that need no database, and key management, which does.
  const gated = [`/ping?key=${key}`, `/maps/plain/style.json?key=${key}`, `/maps/plain/0/0/0.png?key=${key}`, `/api/maps/plain/static/0,0,1/64x64.png?key=${key}`];
  type Kind = 'gated' | 'management';
  let phase = 'before';
  const answers: { phase: string; kind: Kind; status: number | string }[] = [];
  const send = async (kind: Kind, url: string, headers: Record<string, string> = {}) => {
    const at = phase;
    try {
      const response = await get(url, headers);
      const body = await response.text();
      // A refusal is told by its message, so that an unexpected one says which it was.
      const status = response.status === 200 || (kind === 'management' && response.status === 503) ? response.status : `${response.status} ${body.slice(0, 200)}`;
      answers.push({ phase: at, kind, status });
    } catch (error) {
      answers.push({ phase: at, kind, status: String(error) });
    }
  };
  const seen = (at: string, kind: Kind, refused = false) => answers.filter((answer) => answer.phase === at && answer.kind === kind && (!refused || answer.status !== 200)).length;
  let done = false;
  const gatedClient = async () => {
    for (let i = 0; !done; i++) await send('gated', gated[i % gated.length]!);
  };
  const managementClient = async () => {
    while (!done) await send('management', '/v1/api_keys', { authorization: `Token ${serviceToken}` });
  };
  // PostgreSQL restarting (connections reset, new ones refused), then a silent partition.
  const cuts: ProxyMode[] = ['reset', 'freeze'];
  const driver = async () => {
    try {
      await until(() => seen('before', 'gated') >= 20 && seen('before', 'management') >= 2, 'answers before the cut', PHASE_TIMEOUT_MS);
      for (const mode of cuts) {
        phase = mode;
        await database.set(mode);
        // Cut until each instance has refused key management a few times: were a 503 a failure to
        // nginx (max_fails=3), both would be out of rotation by then.
        await until(() => seen(mode, 'management', true) >= 8 && seen(mode, 'gated') >= 40, `answers during the cut (${mode})`, PHASE_TIMEOUT_MS);
        phase = `after ${mode}`;
        const passedAt = performance.now();
        await database.set('pass');
        await until(() => answers.some((answer) => answer.phase === phase && answer.kind === 'management' && answer.status === 200) && seen(phase, 'gated') >= 20, `key management back after the cut (${mode})`, PHASE_TIMEOUT_MS);
        // Each instance hears key changes again (its notification connection reconnects, with
        // a backoff of up to 5 s) and then verifies its cached keys again at their next use:
        // until both have, a next cut would find keys that need the database.
        for (const instance of instances) await heardSince(instance, passedAt);
      }
    } finally {
      done = true;
    }
  };
  await Promise.all([driver(), gatedClient(), gatedClient(), managementClient(), managementClient(), managementClient()]);

  const counts = new Map<string, number>();
  for (const { phase: at, kind, status } of answers) counts.set(`${at} ${kind} ${status}`, (counts.get(`${at} ${kind} ${status}`) ?? 0) + 1);
  const summary = [...counts].map(([what, count]) => `${what}: ${count}`).join(', ');
  t.diagnostic(`answers by phase, kind and status: ${summary}`);
  // Key management needs the database: 503 while it is away (docs/operations.md, Database outages).
  const wrong = answers.filter(({ kind, status }) => status !== 200 && (kind === 'gated' || status !== 503));
  assert.equal(wrong.length, 0, `answers other than 200 (and 503 for key management): ${summary}`);
  assert.ok(cuts.every((mode) => seen(mode, 'management', true) > 0), `key management was refused during each cut: ${summary}`);
  // nginx handed each 503 to the client as it came: it tried no other instance for it.
  const retried = logLines().slice(start).filter((line) => /upstream_status=\S*503, /.test(line));
  assert.deepEqual(retried, [], 'no 503 was retried on the other instance');
});

test('SIGKILL of one instance costs no client error: nginx tries the other', async () => {
  const before = logLines().length;
  const statuses: (number | string)[] = [];
  let killedAt = -1;
  const [victim, survivor] = instances as [Instance, Instance];
  // Four clients in a loop; the victim dies with requests in flight.
  const client = async () => {
    while (killedAt === -1 || statuses.length < killedAt + 200) {
      try {
        const response = await get(`/ping?key=${key}`);
        await response.arrayBuffer();
        statuses.push(response.status);
      } catch (error) {
        statuses.push(String(error));
      }
      if (killedAt === -1 && statuses.length >= 40) {
        killedAt = statuses.length;
        victim.process.kill('SIGKILL');
      }
    }
  };
  await Promise.all([client(), client(), client(), client()]);
  await victim.exited;
  const failures = statuses.filter((status) => status !== 200);
  assert.deepEqual(failures, [], `${failures.length} of ${statuses.length} requests failed`);
  const lines = logLines().slice(before);
  const victimAddress = `127.0.0.1:${victim.port}`;
  const survivorAddress = `127.0.0.1:${survivor.port}`;
  assert.ok(lines.some((line) => upstreamOf(line) === `${victimAddress}, ${survivorAddress}`), 'a request the victim could not answer was answered by the survivor');
  assert.ok(lines.slice(-50).every((line) => upstreamOf(line).endsWith(survivorAddress)), 'the survivor answers everything after');
});
