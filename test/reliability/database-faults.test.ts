/**
 * PostgreSQL faults through a TCP proxy the test controls (`TcpProxy`): the database refusing
 * connections, resetting them, or frozen by a silent network partition. Keys verified recently are
 * still served; what truly needs the database answers 503 with Retry-After in the documented body,
 * promptly; the weather catalog and the tiles of its keyframes read before keep being served;
 * `/ready` answers 503 within its time limit; a key deleted elsewhere during a partition
 * stops working within the revocation bound; the outage and its end are logged once each.
 */

import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, test } from 'node:test';
import {
  listenWarm,
  LogCapture,
  newAccount,
  onPostgres,
  startTestServer,
  startTwoInstances,
  testConfig,
  testDatabase,
  type TestServer,
} from '../helpers.js';
import { sample } from '../scratch.js';
import { TcpProxy, type ProxyMode } from '../tcp-proxy.js';
import { buildKeyframe } from '../../src/weather/tileset.js';
import { defaultVariables } from '../../src/weather/variables.js';
import { globalField } from '../weather/fields.js';

const skip = !onPostgres && 'needs PostgreSQL: the fault proxy sits on the TCP connection to the server, and PGlite runs in-process';

/** Short limits keep the test fast; the defaults are seconds (docs/operations.md). */
const revocationBoundMs = 6000;
const database = { connectTimeoutMs: 500, statementTimeoutMs: 500, heartbeatMs: 250, readyTimeoutMs: 500, revocationBoundMs };
/** The documented body of a 503 for want of the database. */
const unavailableBody = { errors: [{ message: 'Service temporarily unavailable: the database does not answer; try again later' }] };
/** A request not answered within this long is taken as hanging. */
const hangMs = 15_000;

interface Answer {
  status: number;
  retryAfter: string | null;
  body: unknown;
  ms: number;
}

/** GET `path`; a request that hangs answers status 0. */
async function get(base: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const start = performance.now();
  try {
    const response = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(hangMs) });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body, ms: performance.now() - start };
  } catch (error) {
    if ((error as Error).name !== 'TimeoutError') throw error;
    return { status: 0, retryAfter: null, body: `no answer within ${hangMs} ms`, ms: performance.now() - start };
  }
}

/** Polls `check` until it holds or `ms` pass; returns whether it held. */
async function until(check: () => Promise<boolean> | boolean, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(100);
  }
  return check();
}

function logLines(logs: LogCapture): { level: number; msg: string }[] {
  return logs.lines.map((line) => JSON.parse(line) as { level: number; msg: string });
}

/** `meridian_key_changes_heard_age_seconds` of a scrape. */
const heardAge = ({ body }: { body: string }) => sample(body, 'meridian_key_changes_heard_age_seconds');
const outageLogged = (logs: LogCapture) => logLines(logs).filter((line) => /^database unreachable/.test(line.msg)).length;
const recoveryLogged = (logs: LogCapture) => logLines(logs).filter((line) => /^database reachable again/.test(line.msg)).length;

function assertUnavailable(answer: Answer, what: string): void {
  assert.equal(answer.status, 503, `${what}: ${JSON.stringify(answer.body)}`);
  assert.match(answer.retryAfter ?? '', /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.deepEqual(answer.body, unavailableBody, what);
}

/** Where the proxy forwards to: the PostgreSQL server of the suite. */
function upstream(): { host: string; port: number } {
  const url = new URL(testDatabase);
  return { host: url.hostname, port: Number(url.port || 5432) };
}

/** One instance whose database connections all pass through a proxy. */
async function proxiedServer(limits: Partial<typeof database> = {}): Promise<{ proxy: TcpProxy; server: TestServer; base: string; logs: LogCapture; close(): Promise<void> }> {
  const proxy = await TcpProxy.start(upstream());
  const logs = new LogCapture();
  const config = testConfig({ databaseUrl: proxy.urlFor(testDatabase), logLevel: 'info', database: { ...database, ...limits } });
  let server: TestServer | undefined;
  // What is tested is the outage, not starting through the proxy within 500 ms on a loaded machine
  // (it failed once at load 8): a start that fails is tried again, twice at most.
  for (let attempt = 1; !server; attempt++) {
    try {
      server = await startTestServer(config, { logStream: logs });
    } catch (error) {
      if (attempt < 3) continue;
      // A listening proxy would keep the test process alive after the failure is reported.
      await proxy.close();
      throw error;
    }
  }
  const base = (await listenWarm(server.server)).public;
  return {
    proxy,
    server,
    base,
    logs,
    async close() {
      await proxy.set('pass');
      await until(async () => (await get(base, '/ready')).status === 200, 10_000);
      await server.close();
      await proxy.close();
    },
  };
}

const faults: [string, ProxyMode[]][] = [
  ['PostgreSQL is down (connections reset, new ones refused)', ['reset', 'refuse']],
  ['every connection to PostgreSQL is reset', ['reset']],
  ['the network to PostgreSQL is silently partitioned (frozen)', ['freeze']],
];

describe('PostgreSQL faults', () => {
  for (const [fault, modes] of faults) {
    test(`while ${fault}: cached keys are served, the rest answers 503 promptly, and service resumes`, { skip }, async () => {
      const env = await proxiedServer();
      const { proxy, server, base, logs } = env;
      try {
        const { accountId, auth } = await newAccount(server.meridian);
        const cached = await server.meridian.keys.create(accountId, {});
        const uncached = await server.meridian.keys.create(accountId, {});
        const reference = new Date('2026-11-22T00:00:00Z');
        const keyframe = await buildKeyframe(server.meridian.weatherDirectory, globalField(1, (_lon, lat) => lat / 2), {
          variable: defaultVariables.find((v) => v.id === 'temperature-2m')!,
          model: 'gfs',
          attribution: 'GFS',
          referenceTime: reference,
          validTime: reference,
          maxZoom: 0,
          format: 'png',
        });
        await server.meridian.weather.publish('gfs', reference, [keyframe], 1);
        const gated = ['/ping', '/coordinates/transform/8.5,47.3.json?s_srs=4326&t_srs=2056', '/maps', '/weather/latest.json', `/tiles/${keyframe.id}/0/0/0.png`];
        for (const path of gated) assert.equal((await get(base, `${path}${path.includes('?') ? '&' : '?'}key=${cached.token}`)).status, 200, path);
        const faultStarted = Date.now();
        for (const mode of modes) await proxy.set(mode);
        // Long enough for the heartbeat to notice; the cached key must stay usable after that.
        await delay(1000);

        for (let round = 0; round < 3; round++) {
          for (const path of gated) {
            const answer = await get(base, `${path}${path.includes('?') ? '&' : '?'}key=${cached.token}`);
            assert.equal(answer.status, 200, `a cached key on ${path} during the outage: ${JSON.stringify(answer.body)}`);
          }
        }
        assertUnavailable(await get(base, `/ping?key=${uncached.token}`), 'a key not verified before the outage');
        const management = await get(base, '/v1/api_keys', { authorization: auth });
        assertUnavailable(management, 'key management');
        // Promptly: within the configured limits (about 1.5 s here), with slack for a loaded
        // machine; before, it hung for as long as the network did.
        assert.ok(management.ms < 5000, `key management answered after ${Math.round(management.ms)} ms`);
        const ready = await get(base, '/ready');
        assert.equal(ready.status, 503, `/ready: ${JSON.stringify(ready.body)}`);
        assert.deepEqual(ready.body, { status: 'unavailable', reason: 'database', database: 'postgres', message: `the database does not answer within ${database.readyTimeoutMs} ms` });
        // Its time limit is 500 ms here (1 s by default); the rest is slack for a loaded machine.
        assert.ok(ready.ms < 3000, `/ready answered after ${Math.round(ready.ms)} ms`);

        // Past the revocation bound, a cached key is no longer trusted without the database.
        await delay(Math.max(0, faultStarted + revocationBoundMs + 500 - Date.now()));
        assertUnavailable(await get(base, `/ping?key=${cached.token}`), 'a cached key past the revocation bound');
        assert.ok(heardAge(await server.server.metrics.scrape()) > revocationBoundMs / 1000, 'the metrics show the bound passed');

        assert.equal(outageLogged(logs), 1, 'the outage is logged once');
        assert.equal(recoveryLogged(logs), 0);
        await proxy.set('pass');
        assert.ok(await until(async () => (await get(base, `/ping?key=${uncached.token}`)).status === 200), 'service resumes');
        assert.equal((await get(base, `/ping?key=${cached.token}`)).status, 200);
        assert.equal((await get(base, '/v1/api_keys', { authorization: auth })).status, 200);
        assert.equal((await get(base, '/ready')).status, 200);
        assert.ok(await until(async () => heardAge(await server.server.metrics.scrape()) < revocationBoundMs / 1000, 10_000), 'key changes are heard again');
        assert.ok(await until(() => recoveryLogged(logs) > 0, 10_000), 'the end of the outage is logged');
        await delay(500);
        assert.equal(outageLogged(logs), 1, 'the outage is logged once');
        assert.equal(recoveryLogged(logs), 1, 'its end is logged once');
        const failures = logLines(logs).filter((line) => line.msg === 'request failed');
        assert.equal(failures.length, 0, 'no request logs an error of its own');
      } finally {
        await env.close();
      }
    });
  }
});

describe('weather during a partition', () => {
  test('once a catalog read has failed for want of the database, weather requests are answered from memory without asking it again', { skip }, async (t) => {
    // A bound no part of this test reaches: the cached key must not be what refuses.
    const env = await proxiedServer({ revocationBoundMs: 300_000 });
    const { proxy, server, base, logs } = env;
    try {
      const { accountId } = await newAccount(server.meridian);
      const key = (await server.meridian.keys.create(accountId, {})).token;
      const reference = new Date('2026-11-22T00:00:00Z');
      const keyframe = await buildKeyframe(server.meridian.weatherDirectory, globalField(1, (_lon, lat) => lat / 2), {
        variable: defaultVariables.find((v) => v.id === 'temperature-2m')!,
        model: 'gfs',
        attribution: 'GFS',
        referenceTime: reference,
        validTime: reference,
        maxZoom: 0,
        format: 'png',
      });
      await server.meridian.weather.publish('gfs', reference, [keyframe], 1);
      const paths = ['/weather/latest.json', `/tiles/${keyframe.id}/0/0/0.png`];
      for (const path of paths) assert.equal((await get(base, `${path}?key=${key}`)).status, 200, path);
      await proxy.set('freeze');
      assert.ok(await until(() => outageLogged(logs) > 0), 'the outage is noticed');
      // Calls through to the catalog, counted: each is a query that waits out its time limit.
      const latest = t.mock.method(server.meridian.weather, 'latest');
      const archiveOf = t.mock.method(server.meridian.weather, 'archiveOf');
      const rounds = 5;
      for (let round = 0; round < rounds; round++) {
        for (const path of paths) assert.equal((await get(base, `${path}?key=${key}`)).status, 200, `${path} during the partition`);
      }
      // The first of each after a change is heard (the partition noticed by the weather watch's
      // own connection, maybe after the first requests) asks the database; the rest do not.
      const asked = latest.mock.callCount() + archiveOf.mock.callCount();
      assert.ok(asked <= 4, `${asked} catalog queries for ${2 * rounds} weather requests during the partition`);
    } finally {
      await env.close();
    }
  });
});

describe('after an outage', () => {
  test('keys verified before it are verified again without spending the budget of unknown keys', { skip }, async () => {
    // The default revocation bound (60 s): what the instance decides after the outage comes from
    // hearing again, not from its cached keys running out of trust meanwhile.
    const proxy = await TcpProxy.start(upstream());
    const instances = await startTwoInstances(
      { database: { ...database, revocationBoundMs: 60_000 } },
      { second: { databaseUrl: proxy.urlFor(testDatabase), unknownKeys: { requestsPerSecond: 0.001, burst: 1 } } },
    );
    const { first, second } = instances;
    try {
      const secondUrl = (await second.server.listen()).public;
      const { accountId } = await newAccount(first.meridian);
      const kept = await first.meridian.keys.create(accountId, {});
      const changed = await first.meridian.keys.create(accountId, {});
      const ping = async (token: string) => (await get(secondUrl, `/ping?key=${token}`)).status;
      assert.equal(await ping(kept.token), 200);
      assert.equal(await ping(changed.token), 200);
      // This client spends its budget of unknown keys (one): its next unknown token gets 429.
      assert.equal(await ping('guess-1'), 403);
      assert.equal(await ping('guess-2'), 429);

      await proxy.set('reset');
      // A change the partitioned instance cannot hear: it learns of it by verifying the key again.
      await first.meridian.keys.update(accountId, changed.id, { origins: ['example.com'] });
      assert.equal(await ping(kept.token), 200, 'cached keys are served during the outage');
      await proxy.set('pass');
      // The changed key is admitted from the cache until the instance hears again and verifies it.
      assert.ok(await until(async () => (await ping(changed.token)) !== 200, 60_000), 'the instance heard again');
      assert.equal(await ping(changed.token), 403, 'the change, read from the database: not a 429 for an unknown key');
      assert.equal(await ping(kept.token), 200, 'a key verified before the outage, verified again');
    } finally {
      await proxy.set('pass');
      await instances.close();
      await proxy.close();
    }
  });
});

describe('revocation during a partition', () => {
  test('a key deleted through another instance is refused by the partitioned one within the revocation bound', { skip }, async () => {
    const proxy = await TcpProxy.start(upstream());
    const logs = new LogCapture();
    const instances = await startTwoInstances({ database }, {
      second: { databaseUrl: proxy.urlFor(testDatabase), logLevel: 'info' },
      secondLogStream: logs,
    });
    const { first, second } = instances;
    try {
      const firstUrl = (await first.server.listen()).public;
      const secondUrl = (await second.server.listen()).public;
      const { accountId, auth } = await newAccount(first.meridian);
      const key = await first.meridian.keys.create(accountId, {});
      assert.equal((await get(secondUrl, `/ping?key=${key.token}`)).status, 200, 'the partitioned instance has verified the key');

      await proxy.set('freeze');
      const deleted = await fetch(`${firstUrl}/v1/api_keys/${key.id}`, { method: 'DELETE', headers: { authorization: auth } });
      assert.equal(deleted.status, 200);
      const committed = Date.now();
      assert.equal((await get(firstUrl, `/ping?key=${key.token}`)).status, 403, 'the instance that hears the change refuses at once');

      // Every request sent later than the bound after the delete must be refused.
      const statuses: { sentAfterMs: number; status: number }[] = [];
      while (Date.now() - committed < revocationBoundMs + 5000) {
        const sent = Date.now();
        const answer = await get(secondUrl, `/ping?key=${key.token}`);
        statuses.push({ sentAfterMs: sent - committed, status: answer.status });
        await delay(200);
      }
      const admittedLate = statuses.filter((s) => s.status === 200 && s.sentAfterMs > revocationBoundMs);
      assert.deepEqual(admittedLate, [], `admitted past the ${revocationBoundMs} ms bound`);
      const late = statuses.filter((s) => s.sentAfterMs > revocationBoundMs);
      assert.ok(late.length > 0 && late.every((s) => s.status === 403 || s.status === 503), JSON.stringify(late));

      await proxy.set('pass');
      assert.ok(await until(async () => (await get(secondUrl, `/ping?key=${key.token}`)).status === 403), 'refused (403) once the database answers');
      assert.equal(outageLogged(logs), 1, 'the partition is logged once');
    } finally {
      await proxy.set('pass');
      await instances.close();
      await proxy.close();
    }
  });
});
