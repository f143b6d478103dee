/**
 * The deployment recipe, run: Debian's nginx with the site of deploy/nginx-meridian.conf (plain HTTP
 * on a free port instead of its TLS listeners, the upstream pointed at the test's instances) in
 * front of two `meridian serve` processes sharing one PostgreSQL schema and Redis, set as
 * deploy/meridian.env sets an instance. Requests spread over both, links use the public URL, a
 * forged X-Forwarded-For buys no budget, SIGKILL of one instance costs no client error, and no key
 * reaches nginx's logs.
 *
 * @oneDatabase the instances need PostgreSQL to share their state: the file runs them on the
 * PostgreSQL server of the suite (MERIDIAN_TEST_POSTGRES_URL) in whichever pass runs it.
 */

import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { freePort, tempDir } from '../scratch.js';

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

async function waitReady(instance: Instance): Promise<void> {
  // Start-up takes what it takes on a loaded machine; the limit only stops a test that would hang.
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(`http://127.0.0.1:${instance.port}/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (instance.process.exitCode !== null || attempt > 3000) assert.fail(`instance on ${instance.port} did not start: ${instance.output.text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitForNginx(): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fetch(`http://127.0.0.1:${nginxPort}/health`);
      return;
    } catch {
      // not listening yet
    }
    if (nginx.exitCode !== null || attempt > 600) assert.fail(`nginx did not start: ${nginxOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
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
  // What the test asks of the gate: no per-key limit (it sends bursts), a small budget of unknown keys.
  writeFileSync(path.join(dir, 'meridian.json'), JSON.stringify({ rateLimit: { requestsPerSecond: 0, burst: 1 }, unknownKeys: { requestsPerSecond: 0.001, burst: 3 } }));
  // deploy/meridian.env's settings, on this machine.
  env = {
    ...process.env,
    DATABASE_URL: postgresUrl,
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
  };
  const ports: number[] = [];
  while (ports.length < 3) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  nginxPort = ports.pop()!;
  // One after the other: two instances creating a new schema at once can collide on CREATE SCHEMA
  // IF NOT EXISTS (it runs before the migrations' advisory lock); a deployment's schema exists already.
  for (const [i, port] of ports.entries()) {
    const instance = startInstance(port, path.join(dir, `data-${i}`));
    instances.push(instance);
    await waitReady(instance);
  }

  const siteFile = path.join(dir, 'site.conf');
  writeFileSync(siteFile, testSite(readFileSync(site, 'utf8'), { port: nginxPort, upstreams: ports, logDir: path.join(dir, 'logs') }));
  const temp = (name: string) => `${name}_temp_path ${path.join(dir, 'tmp', name)};`;
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
  mkdirSync(path.join(dir, 'tmp'));
  chmodSync(path.join(dir, 'tmp'), 0o777);
  const check = spawnSync('nginx', ['-t', '-p', dir, '-e', path.join(dir, 'logs/startup.log'), '-c', path.join(dir, 'nginx.conf')], { encoding: 'utf8' });
  assert.equal(check.status, 0, `nginx -t: ${check.stderr}`);
  nginx = spawn('nginx', ['-p', dir, '-e', path.join(dir, 'logs/startup.log'), '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;']);
  nginx.stderr!.on('data', (chunk) => (nginxOutput += chunk));
  await waitForNginx();

  const created = spawnSync(process.execPath, [bin, 'accounts', 'create', 'proxied', '--config', path.join(dir, 'meridian.json'), '--data', path.join(dir, 'data-0')], { env, encoding: 'utf8' });
  assert.equal(created.status, 0, created.stderr);
  const { service_token } = JSON.parse(created.stdout) as { service_token: string };
  const response = await fetch(`http://127.0.0.1:${nginxPort}/v1/api_keys`, {
    method: 'POST',
    headers: { authorization: `Token ${service_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'through nginx' }),
  });
  assert.equal(response.status, 200);
  ({ token: key } = (await response.json()) as { token: string });
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
