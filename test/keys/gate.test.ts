import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryRateLimiter, RedisRateLimiter } from '../../src/platform/rate-limit.js';
import { loadConfig } from '../../src/config.js';
import { rateLimitBounds } from '../../src/keys/config.js';
import { newAccount, onPostgres, redisUrl, startTestServer, startTwoInstances, testConfig, uniqueSchema, type TestServer } from '../helpers.js';

/** A command timeout a loaded machine cannot reach: past it the limiter lets requests through, which these tests would read as a wrong decision. */
const unhurried = { commandTimeoutMs: 10_000 };

let server: TestServer;
let accountId: string;

before(async () => {
  server = await startTestServer(testConfig({ usage: { flushIntervalMs: 60_000 } }));
  ({ accountId } = await newAccount(server.meridian));
});
after(() => server.close());

async function newKey(settings: { origins?: string[]; user_agent?: string | null } = {}) {
  return server.meridian.keys.create(accountId, settings);
}

async function ping(target: TestServer, query: string, headers: Record<string, string> = {}) {
  const response = await target.server.public.inject({ method: 'GET', url: `/ping${query}`, headers });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

const rejected = { errors: [{ message: 'Key is missing, invalid or restricted' }] };

/** Removes the buckets a test left in Redis under its prefix. */
async function deleteKeys(prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    await redis.quit();
  }
}

describe('the key gate', () => {
  test('a valid key is admitted', async () => {
    const key = await newKey();
    const response = await ping(server, `?key=${key.token}`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { status: 'ok' });
    assert.equal(response.headers['access-control-allow-origin'], '*');
  });

  test('a missing, empty, unknown, repeated or over-long key is 403 with the documented message', async () => {
    const key = await newKey();
    for (const query of ['', '?key=', '?key=nope', `?key=${key.token}x`, `?key=${key.token}&key=${key.token}`, `?key=${'a'.repeat(300)}`]) {
      const response = await ping(server, query);
      assert.equal(response.status, 403, query);
      assert.deepEqual(response.body, rejected);
      assert.equal(response.headers['access-control-allow-origin'], '*', 'a web page can read the refusal');
    }
  });

  test('a deleted key is refused at once, though it was cached', async () => {
    const key = await newKey();
    assert.equal((await ping(server, `?key=${key.token}`)).status, 200);
    assert.ok(await server.meridian.keys.delete(accountId, key.id));
    assert.equal((await ping(server, `?key=${key.token}`)).status, 403);
  });

  test('the keys of a deleted account are refused at once, though cached; its service tokens stop working', async () => {
    const other = await newAccount(server.meridian, 'to delete');
    const keys = [await server.meridian.keys.create(other.accountId, {}), await server.meridian.keys.create(other.accountId, {})];
    for (const key of keys) assert.equal((await ping(server, `?key=${key.token}`)).status, 200);
    assert.deepEqual(await server.meridian.admin({ op: 'accounts.delete', accountId: other.accountId }), { account_id: other.accountId, deleted: true, api_keys: 2 });
    for (const key of keys) assert.equal((await ping(server, `?key=${key.token}`)).status, 403);
    const listing = await server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: other.auth } });
    assert.equal(listing.statusCode, 401, 'the service token went with the account');
    assert.ok(!(await server.meridian.accounts.list()).some((account) => account.account_id === other.accountId));
    await assert.rejects(server.meridian.admin({ op: 'accounts.delete', accountId: other.accountId }), /No account/);
    assert.equal((await ping(server, '?key=' + (await newKey()).token)).status, 200, 'other accounts keep their keys');
  });

  test('origin rules are checked against Origin, then Referer', async () => {
    const key = await newKey({ origins: ['example.com', '*.maps.test', 'https://secure.org', 'localhost:3000'] });
    const q = `?key=${key.token}`;
    const cases: [Record<string, string>, number][] = [
      [{ origin: 'https://example.com' }, 200],
      [{ origin: 'http://example.com:8080' }, 200],
      [{ origin: 'https://www.example.com' }, 403],
      [{ origin: 'https://a.maps.test' }, 200],
      [{ origin: 'https://a.b.maps.test' }, 200],
      [{ origin: 'https://maps.test' }, 403],
      [{ origin: 'https://evilmaps.test' }, 403],
      [{ origin: 'https://secure.org' }, 200],
      [{ origin: 'http://secure.org' }, 403],
      [{ origin: 'http://localhost:3000' }, 200],
      [{ origin: 'http://localhost:3001' }, 403],
      [{ origin: 'https://example.com.evil.net' }, 403],
      [{ referer: 'https://example.com/page?x=1' }, 200],
      [{ referer: 'https://other.com/page' }, 403],
      [{ origin: 'null', referer: 'https://example.com/' }, 200],
      [{ origin: 'https://other.com', referer: 'https://example.com/' }, 403],
      [{}, 403],
      [{ origin: 'not a url' }, 403],
    ];
    for (const [headers, status] of cases) {
      assert.equal((await ping(server, q, headers)).status, status, JSON.stringify(headers));
    }
  });

  test('the user_agent rule requires that text in User-Agent', async () => {
    const key = await newKey({ user_agent: 'MeridianApp/' });
    const q = `?key=${key.token}`;
    assert.equal((await ping(server, q, { 'user-agent': 'Mozilla/5.0 MeridianApp/2.1' })).status, 200);
    assert.equal((await ping(server, q, { 'user-agent': 'curl/8.0' })).status, 403);
    assert.equal((await ping(server, q)).status, 403);
  });

  test('a refusal says which rule refused an existing key, and no more than the documented words for an unknown one', async () => {
    const byOrigin = await newKey({ origins: ['example.com'] });
    const origin = await ping(server, `?key=${byOrigin.token}`, { origin: 'https://other.example' });
    assert.equal(origin.status, 403);
    assert.deepEqual(origin.body, { errors: [{ message: 'Key is missing, invalid or restricted: this key does not accept requests from this origin (Origin or Referer)' }] });
    assert.ok(!JSON.stringify(origin.body).includes('example.com'), 'the allowed origins are not named');
    const byAgent = await newKey({ user_agent: 'SecretApp/' });
    const agent = await ping(server, `?key=${byAgent.token}`, { 'user-agent': 'curl/8.0' });
    assert.deepEqual(agent.body, { errors: [{ message: 'Key is missing, invalid or restricted: this key does not accept requests with this User-Agent' }] });
    for (const query of ['', '?key=', `?key=${byAgent.token}x`, `?key=${'a'.repeat(5000)}`]) {
      assert.deepEqual((await ping(server, query)).body, rejected, query.slice(0, 20));
    }
    await server.meridian.keys.delete(accountId, byAgent.id);
    assert.deepEqual((await ping(server, `?key=${byAgent.token}`, { 'user-agent': 'SecretApp/1' })).body, rejected, 'a deleted key');
  });

  test('changing the settings of a cached key takes effect at once', async () => {
    const key = await newKey();
    const q = `?key=${key.token}`;
    assert.equal((await ping(server, q)).status, 200);
    await server.meridian.keys.update(accountId, key.id, { origins: ['example.com'] });
    assert.equal((await ping(server, q)).status, 403);
    assert.equal((await ping(server, q, { origin: 'https://example.com' })).status, 200);
  });

  test('requests are counted per key per UTC day and readable as usage', async (t) => {
    // The gate's clock is a fake one, a moment before a (new year's) midnight UTC: the test does not
    // depend on when it runs, and sees the count move on to the next day at midnight.
    t.mock.timers.enable({ apis: ['Date'], now: Date.parse('2099-12-31T23:59:59.900Z') });
    const key = await newKey();
    for (let i = 0; i < 7; i++) await ping(server, `?key=${key.token}`);
    await ping(server, '?key=unknown');
    const rows = await server.meridian.admin({ op: 'usage', keyId: key.id });
    const names = { key_name: key.name, account_name: 'test' };
    assert.deepEqual(rows, [{ key_id: key.id, ...names, account_id: accountId, day: '2099-12-31', requests: 7 }]);
    await ping(server, `?key=${key.token}`);
    t.mock.timers.tick(200);
    await ping(server, `?key=${key.token}`);
    await ping(server, `?key=${key.token}`);
    await server.meridian.usage.flush();
    assert.deepEqual(await server.meridian.usage.report({ keyId: key.id }), [
      { key_id: key.id, ...names, account_id: accountId, day: '2100-01-01', requests: 2 },
      { key_id: key.id, ...names, account_id: accountId, day: '2099-12-31', requests: 8 },
    ]);
    // A deleted key's counts stay, without its name.
    await server.meridian.keys.delete(accountId, key.id);
    const kept = await server.meridian.usage.report({ keyId: key.id });
    assert.deepEqual(kept.map((row) => [row.key_name, row.account_name, row.requests]), [[null, 'test', 2], [null, 'test', 8]]);
  });

  test('ungated endpoints need no key', async () => {
    const response = await server.server.public.inject({ method: 'GET', url: '/health' });
    assert.equal(response.statusCode, 200);
  });
});

describe('rate limits', () => {
  test('a key over its budget gets 429 with Retry-After and the error body; the bucket refills at its rate', async (t) => {
    // The in-memory limiter reads performance.now(): a clock the test moves, so no wall-clock
    // time (a slow machine, a pause) changes what the bucket holds.
    let now = 1_000_000;
    t.mock.method(performance, 'now', () => now);
    const limited = await startTestServer(testConfig({ rateLimit: { requestsPerSecond: 1, burst: 3 } }));
    try {
      const { accountId: owner } = await newAccount(limited.meridian);
      const key = await limited.meridian.keys.create(owner, {});
      const other = await limited.meridian.keys.create(owner, {});
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await ping(limited, `?key=${key.token}`)).status);
      assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
      const refused = await ping(limited, `?key=${key.token}`);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.match(refused.body.errors[0].message, /rate limit/i);
      assert.equal((await ping(limited, `?key=${other.token}`)).status, 200, 'budgets are per key');
      now += 500;
      const half = await ping(limited, `?key=${key.token}`);
      assert.equal(half.status, 429, 'half a second refills half a token');
      assert.equal(half.headers['retry-after'], '1');
      now += 500;
      assert.equal((await ping(limited, `?key=${key.token}`)).status, 200, 'a second refills one token');
      assert.equal((await ping(limited, `?key=${key.token}`)).status, 429, 'and only one');
      now += 10_000;
      const refilled = [];
      for (let i = 0; i < 4; i++) refilled.push((await ping(limited, `?key=${key.token}`)).status);
      assert.deepEqual(refilled, [200, 200, 200, 429], 'a long pause refills up to the burst, no more');
    } finally {
      await limited.close();
    }
  });

  test('Redis buckets are shared by every limiter with the same prefix', async () => {
    const prefix = `meridian:${uniqueSchema()}:rate:`;
    // A token every 1000 s: nothing refills while the test runs, however slowly it runs.
    const settings = { requestsPerSecond: 0.001, burst: 4 };
    const errors: Error[] = [];
    const first = new RedisRateLimiter(redisUrl, prefix, settings, (error) => errors.push(error), unhurried);
    const second = new RedisRateLimiter(redisUrl, prefix, settings, (error) => errors.push(error), unhurried);
    try {
      await Promise.all([first.ready(), second.ready()]);
      const decisions = [];
      for (let i = 0; i < 3; i++) {
        decisions.push((await first.take('key-a')).allowed, (await second.take('key-a')).allowed);
      }
      assert.deepEqual(decisions, [true, true, true, true, false, false]);
      const refused = await first.take('key-a');
      assert.equal(refused.retryAfter, 1000, 'the next token comes in 1000 s');
      assert.equal((await second.take('key-b')).allowed, true);
      assert.deepEqual(errors, []);
    } finally {
      await first.close();
      await second.close();
      await deleteKeys(prefix);
    }
  });

  test('Redis leases never let instances together spend more than the budget', async () => {
    const prefix = `meridian:${uniqueSchema()}:rate:`;
    const settings = { requestsPerSecond: 100, burst: 20 };
    const limiters = [0, 1, 2].map(() => new RedisRateLimiter(redisUrl, prefix, settings, () => {}, unhurried));
    const redis = new Redis(redisUrl);
    try {
      await Promise.all(limiters.map((limiter) => limiter.ready()));
      // The budget is the burst plus what refills between the bucket's first and last use, on the
      // clock the bucket itself keeps in Redis (the time of each lease), not on this process's.
      const bucketTime = async () => Number(await redis.hget(`${prefix}busy`, 'at'));
      let admitted = (await limiters[0]!.take('busy')).allowed ? 1 : 0;
      const first = await bucketTime();
      for (let i = 1; i < 90; i++) if ((await limiters[i % 3]!.take('busy')).allowed) admitted++;
      const refill = (((await bucketTime()) - first) / 1000) * settings.requestsPerSecond;
      assert.ok(admitted >= settings.burst - 10, `admitted ${admitted}`);
      // The bucket stores its time with every digit, so its refills add up to exactly this; the
      // slack covers only floating-point sums.
      assert.ok(admitted <= settings.burst + refill + 1e-6, `admitted ${admitted}, budget ${settings.burst} + ${refill} refilled`);
    } finally {
      await Promise.all(limiters.map((limiter) => limiter.close()));
      await redis.quit();
      await deleteKeys(prefix);
    }
  });

  test('the limiters hold every bucket within the bounds: the slowest rate with the largest burst still limits, in Redis and in memory', async () => {
    const prefix = `meridian:${uniqueSchema()}:rate:`;
    const extremes = [
      { requestsPerSecond: rateLimitBounds.minRequestsPerSecond, burst: rateLimitBounds.maxBurst },
      { requestsPerSecond: rateLimitBounds.minRequestsPerSecond, burst: 1 },
      { requestsPerSecond: rateLimitBounds.maxRequestsPerSecond, burst: 1 },
    ];
    const errors: Error[] = [];
    const redisLimiter = new RedisRateLimiter(redisUrl, prefix, { requestsPerSecond: 0, burst: 1 }, (error) => errors.push(error), unhurried);
    const redis = new Redis(redisUrl);
    try {
      await redisLimiter.ready();
      for (const [index, settings] of extremes.entries()) {
        const memory = new MemoryRateLimiter(settings);
        for (const limiter of [redisLimiter, memory]) {
          const decision = await limiter.take(`bucket-${index}`, settings);
          assert.equal(decision.allowed, true);
          // RateLimit-Reset is a whole number of seconds (1e-300 made it 1e+300).
          assert.ok(Number.isSafeInteger(decision.bucket?.reset), JSON.stringify(decision));
        }
        await memory.close();
      }
      // The bucket of 2^31-1 tokens refilled at 0.001 a second expires from Redis once full again, in about 2.1e15 ms (Redis refuses an expiry it cannot read as an integer, and the limiter then fails open).
      assert.deepEqual(errors, []);
      assert.ok((await redis.pttl(`${prefix}bucket-0`)) > 2e15);
      assert.equal((await redisLimiter.take('bucket-1', extremes[1])).allowed, false, 'the slowest bucket, emptied, refuses');
      assert.deepEqual(errors, []);
    } finally {
      await redisLimiter.close();
      await redis.quit();
      await deleteKeys(prefix);
    }
  });

  test('an unreachable Redis lets requests through and reports the error', async () => {
    const errors: Error[] = [];
    const limiter = new RedisRateLimiter('redis://127.0.0.1:1', 'x:', { requestsPerSecond: 1, burst: 1 }, (error) =>
      errors.push(error),
    );
    try {
      await limiter.ready(300);
      assert.equal((await limiter.take('k')).allowed, true);
      assert.ok(errors.length > 0);
    } finally {
      await limiter.close();
    }
  });

  test('two servers on one PostgreSQL database and Redis share the budget', { skip: !onPostgres && 'needs PostgreSQL' }, async () => {
    // A token every 1000 s: nothing refills while the test runs.
    const instances = await startTwoInstances({ redisUrl, rateLimit: { requestsPerSecond: 0.001, burst: 4 } });
    const { first, second } = instances;
    try {
      const { accountId: owner } = await newAccount(first.meridian);
      const key = await first.meridian.keys.create(owner, {});
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await ping(first, `?key=${key.token}`)).status, (await ping(second, `?key=${key.token}`)).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
    } finally {
      await instances.close();
    }
  });
});

describe('unknown keys', () => {
  /** A request from `address` (the socket's: no proxy is trusted, so X-Forwarded-For changes nothing). */
  async function pingFrom(target: TestServer, address: string, token: string, headers: Record<string, string> = {}) {
    const response = await target.server.public.inject({ method: 'GET', url: `/ping?key=${token}`, remoteAddress: address, headers });
    return { status: response.statusCode, body: response.json(), headers: response.headers };
  }
  let guesses = 0;
  const guess = () => `guess-${guesses++}`;

  test('a client spending its budget of unknown keys gets 429 with Retry-After, and no database query, until it refills', async (t) => {
    let now = 1_000_000;
    t.mock.method(performance, 'now', () => now);
    const limited = await startTestServer(testConfig({ unknownKeys: { requestsPerSecond: 1, burst: 3 } }));
    try {
      const { accountId: owner } = await newAccount(limited.meridian);
      const [cached, fresh] = [await limited.meridian.keys.create(owner, {}), await limited.meridian.keys.create(owner, {})];
      const lookups = t.mock.method(limited.meridian.keys, 'findForGate');
      const guesser = '203.0.113.5';
      assert.equal((await pingFrom(limited, guesser, cached.token)).status, 200);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await pingFrom(limited, guesser, guess())).status);
      assert.deepEqual(statuses, [403, 403, 403], 'a key that exists costs nothing: the whole budget is left for unknown ones');
      assert.equal(lookups.mock.callCount(), 4);
      const refused = await pingFrom(limited, guesser, guess(), { 'x-forwarded-for': '198.51.100.1' });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.deepEqual(refused.body, { errors: [{ message: 'Too many requests with unknown keys from this address' }] });
      assert.equal((await pingFrom(limited, guesser, fresh.token)).status, 429, 'a key not verified here needs the database too');
      assert.equal(lookups.mock.callCount(), 4, 'refused before the database');
      assert.equal((await pingFrom(limited, guesser, cached.token)).status, 200, 'a key verified here still works');
      assert.equal((await pingFrom(limited, '203.0.113.6', guess())).status, 403, 'another address has its own budget');
      now += 1000;
      assert.equal((await pingFrom(limited, guesser, fresh.token)).status, 200, 'a second refills one lookup');
      assert.equal((await pingFrom(limited, guesser, guess())).status, 403, 'given back, as the key existed');
      assert.equal((await pingFrom(limited, guesser, guess())).status, 429);
    } finally {
      await limited.close();
    }
  });

  test('behind trusted proxies, a forged X-Forwarded-For buys no budget: only what a trusted hop forwarded is believed', async () => {
    // The setting as an operator writes it in the environment: the proxy's address and a network.
    const { trustProxy } = loadConfig({ env: { MERIDIAN_TRUST_PROXY: '10.0.0.5, 192.168.0.0/16' } });
    const limited = await startTestServer(testConfig({ trustProxy, unknownKeys: { requestsPerSecond: 0.001, burst: 3 } }));
    try {
      const statuses = async (from: string, forwarded: (i: number) => string) => {
        const seen = [];
        for (let i = 0; i < 6; i++) seen.push((await pingFrom(limited, from, guess(), { 'x-forwarded-for': forwarded(i) })).status);
        return seen;
      };
      // nginx's $proxy_add_x_forwarded_for appends the address it saw to what the client sent.
      assert.deepEqual(await statuses('10.0.0.5', (i) => `198.51.100.${i}, 203.0.113.20`), [403, 403, 403, 429, 429, 429], 'the proxy saw 203.0.113.20; the addresses before it are the client\'s own words');
      assert.deepEqual(await statuses('192.168.3.4', (i) => `198.51.100.${i}, 203.0.113.21, 10.0.0.5`), [403, 403, 403, 429, 429, 429], 'two trusted hops: the first untrusted address from the right is the client');
      assert.deepEqual(await statuses('203.0.113.22', (i) => `198.51.100.${i}`), [403, 403, 403, 429, 429, 429], 'a client reaching the instance directly is not a proxy: its header is ignored');
      assert.equal((await pingFrom(limited, '10.0.0.5', guess(), { 'x-forwarded-for': '203.0.113.23' })).status, 403, 'another client behind the proxy has its own budget');
    } finally {
      await limited.close();
    }
  });

  test('redisKeyPrefix keeps deployments on one Redis apart: the same prefix shares a budget, another prefix has its own', async () => {
    const prefix = (name: string) => `meridian-test-${process.pid}-${name}-${Math.random().toString(36).slice(2, 8)}:`;
    const [ours, theirs] = [prefix('ours'), prefix('theirs')];
    const settings = { redisUrl, unknownKeys: { requestsPerSecond: 0.001, burst: 1 } };
    const servers = [
      await startTestServer(testConfig({ ...settings, redisKeyPrefix: ours })),
      await startTestServer(testConfig({ ...settings, redisKeyPrefix: ours })),
      await startTestServer(testConfig({ ...settings, redisKeyPrefix: theirs })),
    ] as const;
    try {
      const address = '203.0.113.30';
      assert.equal((await pingFrom(servers[0], address, guess())).status, 403);
      assert.equal((await pingFrom(servers[1], address, guess())).status, 429, 'same prefix: one budget');
      assert.equal((await pingFrom(servers[2], address, guess())).status, 403, 'another prefix: a budget of its own');
      const redis = new Redis(redisUrl);
      try {
        assert.ok((await redis.keys(`${ours}*`)).length > 0, 'the buckets are under the prefix');
      } finally {
        await redis.quit();
      }
    } finally {
      for (const server of servers) await server.close();
      await deleteKeys(ours);
      await deleteKeys(theirs);
    }
  });

  test('many guesses sent at once reach the database no more often than the budget allows', async (t) => {
    // No time passes: the budget cannot refill while the requests are in flight.
    t.mock.method(performance, 'now', () => 1_000_000);
    const limited = await startTestServer(testConfig({ unknownKeys: { requestsPerSecond: 1, burst: 5 } }));
    try {
      const lookups = t.mock.method(limited.meridian.keys, 'findForGate');
      const responses = await Promise.all(Array.from({ length: 50 }, () => pingFrom(limited, '203.0.113.7', guess())));
      const statuses = responses.map((response) => response.status).sort();
      assert.deepEqual(statuses, [...Array(5).fill(403), ...Array(45).fill(429)]);
      assert.equal(lookups.mock.callCount(), 5);
    } finally {
      await limited.close();
    }
  });

  test('an IPv6 client has one budget for its /64', async () => {
    const limited = await startTestServer(testConfig({ unknownKeys: { requestsPerSecond: 0.001, burst: 2 } }));
    try {
      const statuses = [];
      for (const address of ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::3', '2001:db8:1:3::1']) {
        statuses.push((await pingFrom(limited, address, guess())).status);
      }
      assert.deepEqual(statuses, [403, 403, 429, 403]);
    } finally {
      await limited.close();
    }
  });

  test('the same unknown key again is answered from the negative cache, at no cost', async (t) => {
    const limited = await startTestServer(testConfig({ unknownKeys: { requestsPerSecond: 0.001, burst: 1 } }));
    try {
      const lookups = t.mock.method(limited.meridian.keys, 'findForGate');
      const token = guess();
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await pingFrom(limited, '203.0.113.8', token)).status);
      assert.deepEqual(statuses, [403, 403, 403, 403, 403]);
      assert.equal(lookups.mock.callCount(), 1);
    } finally {
      await limited.close();
    }
  });

  test('the negative cache holds at most negativeCacheSize tokens, and guesses never push verified keys out', async (t) => {
    const limited = await startTestServer(testConfig({ gate: { cacheSize: 2, negativeCacheSize: 2 } }));
    try {
      const { accountId: owner } = await newAccount(limited.meridian);
      const keys = [await limited.meridian.keys.create(owner, {}), await limited.meridian.keys.create(owner, {})];
      for (const key of keys) assert.equal((await ping(limited, `?key=${key.token}`)).status, 200);
      const lookups = t.mock.method(limited.meridian.keys, 'findForGate');
      const tokens = [guess(), guess(), guess()];
      for (const token of tokens) assert.equal((await ping(limited, `?key=${token}`)).status, 403);
      assert.equal(lookups.mock.callCount(), 3);
      for (const key of keys) assert.equal((await ping(limited, `?key=${key.token}`)).status, 200);
      assert.equal(lookups.mock.callCount(), 3, 'the verified keys are still cached');
      await ping(limited, `?key=${tokens[2]}`);
      assert.equal(lookups.mock.callCount(), 3, 'the latest unknown token is remembered');
      await ping(limited, `?key=${tokens[0]}`);
      assert.equal(lookups.mock.callCount(), 4, 'the oldest was dropped to keep two');
    } finally {
      await limited.close();
    }
  });

  test('a refund never lifts a bucket above its burst, in memory or in Redis', async () => {
    const settings = { requestsPerSecond: 0.001, burst: 2 };
    const prefix = `meridian:${uniqueSchema()}:unknown-keys:`;
    const memory = new MemoryRateLimiter(settings, () => 1_000_000);
    const redis = new RedisRateLimiter(redisUrl, prefix, settings, (error) => assert.fail(error), unhurried);
    try {
      await redis.ready();
      for (const limiter of [memory, redis]) {
        const take = async () => (await limiter.take('client')).allowed;
        assert.equal(await take(), true);
        limiter.refund('client');
        limiter.refund('client');
        // The Redis refund is sent without waiting; the next command on the connection follows it.
        assert.deepEqual([await take(), await take(), await take()], [true, true, false]);
        limiter.refund('client');
        assert.deepEqual([await take(), await take()], [true, false]);
      }
    } finally {
      await memory.close();
      await redis.close();
      await deleteKeys(prefix);
    }
  });

  test('two servers on one PostgreSQL database and Redis share the budget of unknown keys', { skip: !onPostgres && 'needs PostgreSQL' }, async () => {
    const instances = await startTwoInstances({ redisUrl, unknownKeys: { requestsPerSecond: 0.001, burst: 3 } });
    const { first, second } = instances;
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await pingFrom(first, '203.0.113.9', guess())).status, (await pingFrom(second, '203.0.113.9', guess())).status);
      }
      assert.deepEqual(statuses, [403, 403, 403, 429, 429, 429]);
    } finally {
      await instances.close();
    }
  });
});

describe('per-key rate limits and quotas', () => {
  /** The RateLimit-* headers of a response, as numbers. */
  const rateHeaders = (headers: Record<string, unknown>) => ['limit', 'remaining', 'reset'].map((name) => (headers[`ratelimit-${name}`] === undefined ? undefined : Number(headers[`ratelimit-${name}`])));

  test("a key's own limit replaces the server's; RateLimit-* headers tell the bucket; a change applies at once", async (t) => {
    let now = 1_000_000;
    t.mock.method(performance, 'now', () => now);
    const limited = await startTestServer(testConfig({ rateLimit: { requestsPerSecond: 1, burst: 3 } }));
    try {
      const { accountId: owner } = await newAccount(limited.meridian);
      // Half a token a second, two at most: after n requests at once, 2 - n left, full again in (2 - left) / 0.5 s.
      const key = await limited.meridian.keys.create(owner, { rate_limit: { requests_per_second: 0.5, burst: 2 } });
      const first = await ping(limited, `?key=${key.token}`);
      assert.equal(first.status, 200);
      assert.deepEqual(rateHeaders(first.headers), [2, 1, 2]);
      assert.deepEqual(rateHeaders((await ping(limited, `?key=${key.token}`)).headers), [2, 0, 4]);
      const refused = await ping(limited, `?key=${key.token}`);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '2', 'one token takes 2 s at half a token a second');
      assert.deepEqual(rateHeaders(refused.headers), [2, 0, 4]);
      assert.match(refused.body.errors[0].message, /rate limit/i);
      // A key without a limit of its own has the server's: 3 tokens, 1 a second.
      const other = await limited.meridian.keys.create(owner, {});
      assert.deepEqual(rateHeaders((await ping(limited, `?key=${other.token}`)).headers), [3, 2, 1]);

      // Changed through the API: the gate's cached key is dropped and the new bucket size applies.
      assert.ok(await limited.meridian.keys.update(owner, key.id, { rate_limit: null }));
      now += 1000;
      const after = await ping(limited, `?key=${key.token}`);
      assert.equal(after.status, 200, 'one second at the server rate refilled one token');
      assert.deepEqual(rateHeaders(after.headers), [3, 0, 3]);
    } finally {
      await limited.close();
    }
  });

  test('a monthly quota: headers count it down, then 429 naming the quota and its reset; raising or clearing it admits again', async () => {
    // Rate limits off (the test configuration's default): only the quota speaks in the headers.
    const key = await newKey();
    await server.meridian.keys.update(accountId, key.id, { quota: { requests_per_month: 3 } });
    const q = `?key=${key.token}`;
    const monthEnd = () => {
      const date = new Date();
      return Math.ceil((Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - Date.now()) / 1000);
    };
    for (const left of [2, 1, 0]) {
      const before = monthEnd();
      const response = await ping(server, q);
      const after = monthEnd();
      assert.equal(response.status, 200);
      const [limit, remaining, reset] = rateHeaders(response.headers);
      assert.deepEqual([limit, remaining], [3, left]);
      assert.ok(reset! <= before && reset! >= after, `reset ${reset} between ${after} and ${before}`);
    }
    const refused = await ping(server, q);
    assert.equal(refused.status, 429);
    const next = new Date();
    const resets = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1)).toISOString().replace('.000Z', 'Z');
    assert.deepEqual(refused.body, { errors: [{ message: `Monthly quota of 3 requests for this key is used up; it resets at ${resets}` }] });
    assert.equal(refused.headers['retry-after'], refused.headers['ratelimit-reset']);
    assert.deepEqual(rateHeaders(refused.headers).slice(0, 2), [3, 0]);

    await server.meridian.keys.update(accountId, key.id, { quota: { requests_per_month: 4 } });
    assert.equal((await ping(server, q)).status, 200, 'the raised quota applies at once');
    assert.equal((await ping(server, q)).status, 429);
    await server.meridian.keys.update(accountId, key.id, { quota: null });
    const free = await ping(server, q);
    assert.equal(free.status, 200);
    assert.deepEqual(rateHeaders(free.headers), [undefined, undefined, undefined], 'nothing limits the key: no headers');
  });

  test("a quota counts the month's requests already written, by any instance", async () => {
    const key = await newKey();
    const today = new Date().toISOString().slice(0, 10);
    await server.meridian.db.query(
      "INSERT INTO api_key_usage (key_id, account_id, day, area, requests, last_request) VALUES ($1, $2, $3, 'maps', 9, now())",
      [key.id, accountId, today],
    );
    await server.meridian.keys.update(accountId, key.id, { quota: { requests_per_month: 10 } });
    const last = await ping(server, `?key=${key.token}`);
    assert.equal(last.status, 200);
    assert.deepEqual(rateHeaders(last.headers).slice(0, 2), [10, 0]);
    assert.equal((await ping(server, `?key=${key.token}`)).status, 429);
  });

  test('per-key limits in Redis: the limiter takes each key\'s bucket size and rate, and reports what is left', async () => {
    const prefix = `meridian:${uniqueSchema()}:rate:`;
    const limiter = new RedisRateLimiter(redisUrl, prefix, { requestsPerSecond: 0, burst: 1 }, (error) => assert.fail(error));
    try {
      await limiter.ready();
      // A token every 1000 s: nothing refills while the test runs.
      const own = { requestsPerSecond: 0.001, burst: 2 };
      const decisions = [await limiter.take('a', own), await limiter.take('a', own), await limiter.take('a', own)];
      assert.deepEqual(decisions.map((d) => [d.allowed, d.bucket?.limit, d.bucket?.remaining]), [[true, 2, 1], [true, 2, 0], [false, 2, 0]]);
      assert.equal(decisions[2]!.retryAfter, 1000);
      assert.deepEqual(await limiter.take('b'), { allowed: true, retryAfter: 0 }, 'the server default limits nothing here');
    } finally {
      await limiter.close();
      await deleteKeys(prefix);
    }
  });

  test('a server with Redis applies a key\'s own limit and quota', async () => {
    const shared = await startTestServer(testConfig({ redisUrl, rateLimit: { requestsPerSecond: 0.001, burst: 4 } }));
    const buckets: string[] = [];
    try {
      const { accountId: owner } = await newAccount(shared.meridian);
      const key = await shared.meridian.keys.create(owner, { rate_limit: { requests_per_second: 0.001, burst: 2 } });
      buckets.push(key.id);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await ping(shared, `?key=${key.token}`)).status);
      assert.deepEqual(statuses, [200, 200, 429]);
      const quota = await shared.meridian.keys.create(owner, { quota: { requests_per_month: 1 } });
      buckets.push(quota.id);
      const first = await ping(shared, `?key=${quota.token}`);
      assert.deepEqual(rateHeaders(first.headers).slice(0, 2), [1, 0], 'the quota is nearer to refusing than the bucket');
      const second = await ping(shared, `?key=${quota.token}`);
      assert.equal(second.status, 429);
      assert.match(second.body.errors[0].message, /^Monthly quota of 1 requests/);
    } finally {
      await shared.close();
      for (const id of buckets) await deleteKeys(`meridian:${shared.meridian.config.databaseSchema}:rate:${id}`);
    }
  });

  test('two servers on one PostgreSQL database and Redis share a key\'s own budget, and hear its change', { skip: !onPostgres && 'needs PostgreSQL' }, async () => {
    const instances = await startTwoInstances({ redisUrl, rateLimit: { requestsPerSecond: 10, burst: 10 } });
    const { first, second } = instances;
    try {
      const { accountId: owner } = await newAccount(first.meridian);
      const key = await first.meridian.keys.create(owner, { rate_limit: { requests_per_second: 0.001, burst: 2 } });
      const statuses = [(await ping(first, `?key=${key.token}`)).status, (await ping(second, `?key=${key.token}`)).status, (await ping(first, `?key=${key.token}`)).status];
      assert.deepEqual(statuses, [200, 200, 429]);
      // Changed on the first instance: the second hears it (NOTIFY) and refills at the new rate.
      await first.meridian.keys.update(owner, key.id, { rate_limit: { requests_per_second: 10, burst: 10 } });
      let status = 429;
      for (let attempt = 0; attempt < 50 && status === 429; attempt++) {
        status = (await ping(second, `?key=${key.token}`)).status;
        if (status === 429) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(status, 200);
    } finally {
      await instances.close();
    }
  });

  for (const limiter of ['memory', 'redis'] as const) {
    test(`a key's limit lowered on one instance applies at once on the other, whose headers stay within the new bucket (${limiter} limiter)`, { skip: !onPostgres && 'needs PostgreSQL' }, async () => {
      const instances = await startTwoInstances(limiter === 'redis' ? { redisUrl } : {});
      const { first, second } = instances;
      try {
        const { accountId: owner } = await newAccount(first.meridian);
        // 1,000 a second, 800 at most: a Redis lease is 100 tokens, so the second instance always holds some.
        const key = await first.meridian.keys.create(owner, { rate_limit: { requests_per_second: 1000, burst: 800 } });
        const responses: { status: number; limit: number; remaining: number; reset: number }[] = [];
        let lowered = false;
        const record = async () => {
          const { status, headers } = await ping(second, `?key=${key.token}`);
          const [limit, remaining, reset] = rateHeaders(headers);
          responses.push({ status, limit: limit!, remaining: remaining!, reset: reset! });
        };
        const sinceLowered = () => responses.length - responses.findIndex((response) => response.limit === 1);
        // Requests go to the second instance without pause while the first lowers the limit to one
        // request (a token every 1,000 s), until 40 have been answered under the new limit.
        const requests = (async () => {
          while (!lowered || !responses.some((response) => response.limit === 1) || sinceLowered() < 40) {
            await record();
            // Both instances share this event loop: a cached key on the in-memory limiter is answered
            // without I/O, so let the database's replies (the update, its NOTIFY) in between requests.
            await new Promise((resolve) => setImmediate(resolve));
          }
        })();
        while (responses.length < 5) await new Promise((resolve) => setImmediate(resolve));
        await first.meridian.keys.update(owner, key.id, { rate_limit: { requests_per_second: 0.001, burst: 1 } });
        lowered = true;
        await requests;
        for (const response of responses) {
          assert.ok(response.limit === 800 || response.limit === 1, JSON.stringify(response));
          assert.ok(response.remaining >= 0 && response.remaining <= response.limit && response.reset >= 0, `headers out of their bucket: ${JSON.stringify(response)}`);
        }
        const after = responses.slice(responses.findIndex((response) => response.limit === 1));
        assert.ok(after.every((response) => response.limit === 1), 'once heard, the new limit stays');
        assert.ok(after.filter((response) => response.status === 200).length <= 1, `${after.filter((response) => response.status === 200).length} of ${after.length} passed under a limit of 1`);
      } finally {
        await instances.close();
        if (limiter === 'redis') await deleteKeys(`meridian:${first.meridian.config.databaseSchema}:`);
      }
    });
  }
});
