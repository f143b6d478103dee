import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { openMeridian, type Meridian } from '../../src/meridian.js';
import { cleanUp, newAccount, onPostgres, startTestServer, startTwoInstances, testConfig, type TestServer } from '../helpers.js';

let server: TestServer;
let admin: FastifyInstance;
let auth: string;

before(async () => {
  server = await startTestServer();
  admin = server.server.admin;
  ({ auth } = await newAccount(server.meridian));
});
after(() => server.close());

async function call(options: InjectOptions & { auth?: string | null }) {
  const { auth: token = auth, ...rest } = options;
  const headers: Record<string, string> = { ...(rest.headers as Record<string, string>) };
  if (token) headers.authorization = token;
  const response = await admin.inject({ ...rest, headers });
  const body = response.body ? response.json() : undefined;
  return { status: response.statusCode, body, headers: response.headers };
}

/** A create request with a body sent exactly as given. */
const createRaw = (payload: string, contentType = 'application/json') =>
  call({ method: 'POST', url: '/v1/api_keys', payload, headers: { 'content-type': contentType } });

const createKey = (payload: unknown = {}, token?: string) =>
  call({ method: 'POST', url: '/v1/api_keys', payload: payload as object, ...(token ? { auth: token } : {}) });

function assertErrorBody(body: unknown): void {
  const errors = (body as { errors?: { message?: unknown }[] }).errors;
  assert.ok(Array.isArray(errors) && errors.length > 0, `error body expected, got ${JSON.stringify(body)}`);
  assert.equal(typeof errors[0]!.message, 'string');
}

describe('service token authentication', () => {
  test('a request without Authorization is 401 with the error body', async () => {
    const response = await call({ method: 'GET', url: '/v1/api_keys', auth: null });
    assert.equal(response.status, 401);
    assertErrorBody(response.body);
    assert.equal(response.headers['www-authenticate'], 'Token');
  });

  test('an unknown token, a wrong scheme and a revoked token are 401', async () => {
    for (const header of ['Token mst_nope', 'Bearer ' + auth.slice(6), 'Token', auth.slice(6)]) {
      const response = await call({ method: 'GET', url: '/v1/api_keys', auth: header });
      assert.equal(response.status, 401, header);
    }
    const { auth: other } = await newAccount(server.meridian, 'revoked');
    assert.equal((await call({ method: 'GET', url: '/v1/api_keys', auth: other })).status, 200);
    assert.ok(await server.meridian.accounts.revokeToken(other.slice(6)));
    assert.equal((await call({ method: 'GET', url: '/v1/api_keys', auth: other })).status, 401);
  });

  test('authentication is checked before validation', async () => {
    const response = await call({ method: 'GET', url: '/v1/api_keys/not-a-uuid', auth: null });
    assert.equal(response.status, 401);
  });
});

describe('create, get, change and delete', () => {
  test('create returns every APIKey field with a long random token', async () => {
    const { status, body } = await createKey({
      name: 'web',
      description: 'Website',
      user_agent: 'MyApp/1.0',
      origins: ['Example.com', '*.example.com', 'example.com'],
    });
    assert.equal(status, 200);
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.equal(body.name, 'web');
    assert.equal(body.description, 'Website');
    assert.equal(body.user_agent, 'MyApp/1.0');
    assert.deepEqual(body.origins, ['example.com', '*.example.com']);
    assert.ok(body.token.length >= 22, 'at least 128 bits in base64url');
    assert.equal(body.created, body.changed);
    assert.ok(!Number.isNaN(Date.parse(body.created)));
  });

  test('create with an empty or absent body uses defaults and generates a name', async () => {
    for (const response of [await createKey({}), await call({ method: 'POST', url: '/v1/api_keys' })]) {
      assert.equal(response.status, 200);
      assert.equal(response.body.description, null);
      assert.equal(response.body.user_agent, null);
      assert.deepEqual(response.body.origins, []);
      assert.match(response.body.name, /^key-[0-9a-f]{8}$/);
    }
  });

  test('tokens of different keys differ', async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 20; i++) tokens.add((await createKey()).body.token);
    assert.equal(tokens.size, 20);
  });

  test('get returns the key with the same token', async () => {
    const created = (await createKey({ description: 'get me' })).body;
    const { status, body } = await call({ method: 'GET', url: `/v1/api_keys/${created.id}` });
    assert.equal(status, 200);
    assert.deepEqual(body, created);
  });

  test('change_settings changes only the fields present and updates changed', async () => {
    const created = (await createKey({ description: 'before', user_agent: 'UA', origins: ['a.com'] })).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { status, body } = await call({
      method: 'POST',
      url: `/v1/api_keys/${created.id}/change_settings`,
      payload: { description: null },
    });
    assert.equal(status, 200);
    assert.equal(body.description, null);
    assert.equal(body.user_agent, 'UA');
    assert.deepEqual(body.origins, ['a.com']);
    assert.equal(body.token, created.token);
    assert.equal(body.created, created.created);
    assert.ok(Date.parse(body.changed) > Date.parse(created.changed));
    const again = await call({
      method: 'POST',
      url: `/v1/api_keys/${created.id}/change_settings`,
      payload: { origins: [], user_agent: '', name: 'renamed' },
    });
    assert.deepEqual(again.body.origins, []);
    assert.equal(again.body.user_agent, null);
    assert.equal(again.body.name, 'renamed');
  });

  test('delete answers 200, then the key is gone', async () => {
    const created = (await createKey()).body;
    const deleted = await call({ method: 'DELETE', url: `/v1/api_keys/${created.id}` });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, { id: created.id, deleted: true });
    assert.equal((await call({ method: 'GET', url: `/v1/api_keys/${created.id}` })).status, 404);
    assert.equal((await call({ method: 'DELETE', url: `/v1/api_keys/${created.id}` })).status, 404);
  });

  test('a missing key is 404 on get, delete and change_settings', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [method, url] of [
      ['GET', `/v1/api_keys/${id}`],
      ['DELETE', `/v1/api_keys/${id}`],
      ['POST', `/v1/api_keys/${id}/change_settings`],
    ] as const) {
      const response = await call({ method, url, ...(method === 'POST' ? { payload: {} } : {}) });
      assert.equal(response.status, 404, `${method} ${url}`);
      assertErrorBody(response.body);
    }
  });
});

describe('accounts see only their own keys', () => {
  test("another account's key answers exactly like a missing one", async () => {
    const mine = (await createKey({ description: 'mine' })).body;
    const { auth: other } = await newAccount(server.meridian, 'other');
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/change_settings'],
    ] as const) {
      const payload = method === 'POST' ? { payload: { description: 'stolen' } } : {};
      const theirs = await call({ method, url: `/v1/api_keys/${mine.id}${suffix}`, auth: other, ...payload });
      const absent = await call({ method, url: `/v1/api_keys/${missing}${suffix}`, auth: other, ...payload });
      assert.equal(theirs.status, 404);
      assert.deepEqual(theirs.body, absent.body);
    }
    const list = await call({ method: 'GET', url: '/v1/api_keys', auth: other });
    assert.equal(list.body.total_count, 0);
    assert.deepEqual((await call({ method: 'GET', url: `/v1/api_keys/${mine.id}` })).body, mine);
  });
});

describe('validation', () => {
  const bad: [string, unknown][] = [
    ['unknown field', { descripton: 'typo' }],
    ['description of the wrong type', { description: 42 }],
    ['origins not an array', { origins: 'example.com' }],
    ['origin of the wrong type', { origins: [1] }],
    ['malformed origin', { origins: ['exa mple.com'] }],
    ['origin with a path', { origins: ['example.com/path'] }],
    ['origin with a bad port', { origins: ['example.com:99999'] }],
    ['double wildcard', { origins: ['*.*.example.com'] }],
    ['over-long description', { description: 'x'.repeat(1025) }],
    ['over-long user agent', { user_agent: 'x'.repeat(513) }],
    ['over-long name', { name: 'x'.repeat(129) }],
    ['blank name', { name: '   ' }],
    ['too many origins', { origins: Array.from({ length: 101 }, (_, i) => `h${i}.example.com`) }],
    ['a JSON array body', ['x']],
  ];
  for (const [what, payload] of bad) {
    test(`create rejects ${what} with 400 and the error body`, async () => {
      const response = await createKey(payload);
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assertErrorBody(response.body);
    });
  }

  test('change_settings validates like create', async () => {
    const id = (await createKey()).body.id;
    const response = await call({
      method: 'POST',
      url: `/v1/api_keys/${id}/change_settings`,
      payload: { origins: ['bad origin'] },
    });
    assert.equal(response.status, 400);
    assert.match(response.body.errors[0].message, /origins\[0\]/);
  });

  test('a non-uuid key_id is 400', async () => {
    for (const id of ['abc', '123', '00000000-0000-4000-8000-00000000000g']) {
      const response = await call({ method: 'GET', url: `/v1/api_keys/${id}` });
      assert.equal(response.status, 400, id);
      assertErrorBody(response.body);
    }
  });

  test('a body that is not JSON is 415 or 400, never 500', async () => {
    for (const [payload, type] of [['description=x', 'application/x-www-form-urlencoded'], ['hello', 'text/plain'], ['', 'text/plain']]) {
      const wrongType = await createRaw(payload!, type);
      assert.equal(wrongType.status, 415, type);
      assert.equal(wrongType.body.errors[0].message, 'Unsupported Media Type: send application/json');
    }
    const empty = await createRaw('');
    assert.equal(empty.status, 400);
    assert.equal(empty.body.errors[0].message, 'Request body is empty; send a JSON object', 'as the keys guide says');
    const broken = await createRaw('{"description": ');
    assert.equal(broken.status, 400);
    assertErrorBody(broken.body);
  });

  test('an oversized body is 413', async () => {
    const response = await createRaw(JSON.stringify({ description: 'x'.repeat(100_000) }));
    assert.equal(response.status, 413);
    assertErrorBody(response.body);
  });

  test('random JSON bodies never cause a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const response = await createRaw(JSON.stringify(value));
        assert.ok([200, 400].includes(response.status), `${response.status} for ${JSON.stringify(value)}`);
      }),
      { numRuns: 150 },
    );
  });

  test('random settings objects either validate or are 400, never 500', async () => {
    const settings = fc.record(
      {
        name: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        description: fc.oneof(fc.string(), fc.constant(null), fc.boolean()),
        user_agent: fc.oneof(fc.string(), fc.constant(null)),
        origins: fc.array(fc.oneof(fc.domain(), fc.string(), fc.webUrl())),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(settings, async (value) => {
        const response = await createKey(value);
        assert.ok([200, 400].includes(response.status), `${response.status} for ${JSON.stringify(value)}`);
      }),
      { numRuns: 150 },
    );
  });
});

describe('listing', () => {
  let token: string;
  let ids: string[];

  before(async () => {
    token = (await newAccount(server.meridian, 'lister')).auth;
    ids = [];
    for (let i = 0; i < 25; i++) ids.push((await createKey({ description: `k${i}` }, token)).body.id);
  });

  const list = (query: string, as = token) => call({ method: 'GET', url: `/v1/api_keys${query}`, auth: as });

  test('the default page holds up to 50 keys, with an exact total and a null cursor at the end', async () => {
    const { status, body } = await list('');
    assert.equal(status, 200);
    assert.equal(body.total_count, 25);
    assert.equal(body.items.length, 25);
    assert.equal(body.cursor, null);
    assert.deepEqual(
      body.items.map((k: { id: string }) => k.id),
      ids,
    );
  });

  test('limit outside 10..100 or not an integer is 400', async () => {
    for (const limit of ['9', '101', '0', '-5', '10.5', 'ten']) {
      const response = await list(`?limit=${limit}`);
      assert.equal(response.status, 400, limit);
      assertErrorBody(response.body);
    }
    assert.equal((await list('?limit=10')).status, 200);
    assert.equal((await list('?limit=100')).status, 200);
  });

  test('cursors walk every key once, in creation order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await list(query);
      assert.equal(status, 200);
      assert.equal(body.total_count, 25);
      seen.push(...body.items.map((k: { id: string }) => k.id));
      cursor = body.cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, ids);
  });

  test('an invalid cursor is 400', async () => {
    for (const cursor of ['%%%', 'bm90LWEtY3Vyc29y', Buffer.from('v1:-1').toString('base64'), 'x'.repeat(300)]) {
      const response = await list(`?cursor=${encodeURIComponent(cursor)}`);
      assert.equal(response.status, 400, cursor);
      assertErrorBody(response.body);
    }
  });

  const invalidCursor = { errors: [{ message: 'cursor is not a valid page cursor' }] };

  test("another account's cursor and an altered cursor are 400 with the error body", async () => {
    const { body } = await list('?limit=10');
    const intruder = (await newAccount(server.meridian, 'intruder')).auth;
    for (let i = 0; i < 11; i++) await createKey({}, intruder);
    const foreign = await list(`?limit=10&cursor=${encodeURIComponent(body.cursor)}`, intruder);
    assert.equal(foreign.status, 400);
    assert.deepEqual(foreign.body, invalidCursor);
    // The last character's lowest bit is padding that a lenient decoder ignores: still an alteration.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const last = alphabet[alphabet.indexOf(body.cursor.replace(/=+$/, '').at(-1)) ^ 1];
    const altered = body.cursor.replace(/.(=*)$/, `${last}$1`);
    const response = await list(`?limit=10&cursor=${encodeURIComponent(altered)}`);
    assert.equal(response.status, 400);
    assert.deepEqual(response.body, invalidCursor);
  });

  test('a cursor does not carry the global creation sequence', async () => {
    const before = (await list('?limit=10')).body.cursor as string;
    // As if a quadrillion keys had been created by other accounts since.
    await server.meridian.db.query(`SELECT setval(pg_get_serial_sequence('api_keys', 'seq'), 1000000000000000)`);
    const late = (await newAccount(server.meridian, 'late')).auth;
    const lateIds: string[] = [];
    for (let i = 0; i < 11; i++) lateIds.push((await createKey({}, late)).body.id);
    const { body } = await list('?limit=10', late);
    const [row] = await server.meridian.db.query<{ seq: string }>('SELECT seq::text AS seq FROM api_keys WHERE id = $1', [lateIds[9]]);
    assert.equal(row!.seq.length, 16);
    assert.ok(!Buffer.from(body.cursor, 'base64').includes(Buffer.from(row!.seq)), 'sequence in clear');
    assert.equal(body.cursor.length, before.length, 'a cursor is as long whatever the position');
    const again = await list('?limit=10', late);
    assert.notEqual(again.body.cursor, body.cursor, 'the same position is sealed anew each time');
    const next = await list(`?limit=10&cursor=${encodeURIComponent(again.body.cursor)}`, late);
    assert.deepEqual(next.body.items.map((k: { id: string }) => k.id), lateIds.slice(10));
  });

  test('paging neither skips nor repeats keys while others are created and deleted', async () => {
    const pager = (await newAccount(server.meridian, 'pager')).auth;
    const original: string[] = [];
    for (let i = 0; i < 30; i++) original.push((await createKey({}, pager)).body.id);
    const deleted = new Set<string>();
    const seen: string[] = [];
    let cursor: string | null = null;
    let round = 0;
    do {
      const query: string = `?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { body } = await list(query, pager);
      seen.push(...body.items.map((k: { id: string }) => k.id));
      cursor = body.cursor;
      // Between pages: delete a key not yet seen and one already seen, and create a new one.
      const unseen = original.find((id) => !seen.includes(id) && !deleted.has(id));
      for (const id of [unseen, seen[round]]) {
        if (!id) continue;
        await call({ method: 'DELETE', url: `/v1/api_keys/${id}`, auth: pager });
        deleted.add(id);
      }
      await createKey({}, pager);
      round++;
    } while (cursor);
    assert.equal(new Set(seen).size, seen.length, 'no key repeated');
    for (const id of original) {
      if (!deleted.has(id)) assert.ok(seen.includes(id), `key ${id} present throughout was skipped`);
    }
  });
});

describe('cursors outside one process', () => {
  test('a cursor stays valid after a restart', async () => {
    const config = testConfig();
    let meridian: Meridian | null = await openMeridian(config);
    try {
      const { accountId } = await newAccount(meridian);
      const ids: string[] = [];
      for (let i = 0; i < 11; i++) ids.push((await meridian.keys.create(accountId, {})).id);
      const page = await meridian.keys.list(accountId, 10, null);
      await meridian.close();
      meridian = null;
      meridian = await openMeridian(config);
      const next = await meridian.keys.list(accountId, 10, page.cursor);
      assert.deepEqual(next.items.map((key) => key.id), ids.slice(10));
    } finally {
      await meridian?.close();
      await cleanUp(config);
    }
  });

  test('a cursor made by one instance pages on at another sharing the database', { skip: !onPostgres && 'needs PostgreSQL' }, async () => {
    const { first, second, close } = await startTwoInstances();
    try {
      const { auth: token } = await newAccount(first.meridian);
      const ids: string[] = [];
      for (let i = 0; i < 11; i++) {
        const created = await first.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: token }, payload: {} });
        ids.push(created.json().id);
      }
      const page = (await first.server.admin.inject({ method: 'GET', url: '/v1/api_keys?limit=10', headers: { authorization: token } })).json();
      const next = await second.server.admin.inject({ method: 'GET', url: `/v1/api_keys?limit=10&cursor=${encodeURIComponent(page.cursor)}`, headers: { authorization: token } });
      assert.equal(next.statusCode, 200, next.body);
      assert.deepEqual(next.json().items.map((key: { id: string }) => key.id), ids.slice(10));
    } finally {
      await close();
    }
  });
});

describe('usage', () => {
  const gated = (url: string) => server.server.public.inject({ method: 'GET', url });
  const usage = (query: string, token: string | null) => call({ method: 'GET', url: `/v1/usage${query}`, auth: token });

  test("counts the account's requests per key, UTC day and area, with totals, last use and the keys' rate limit", async () => {
    const { auth: token } = await newAccount(server.meridian, 'usage');
    const first = (await createKey({ name: 'first' }, token)).body as { id: string; token: string };
    const second = (await createKey({ name: 'second' }, token)).body as { id: string; token: string };
    const unused = (await createKey({ name: 'unused' }, token)).body as { id: string };
    const gone = (await createKey({ name: 'gone' }, token)).body as { id: string; token: string };
    const started = Date.now();
    for (let i = 0; i < 2; i++) assert.equal((await gated(`/ping?key=${first.token}`)).statusCode, 200);
    for (let i = 0; i < 3; i++) assert.equal((await gated(`/maps?key=${first.token}`)).statusCode, 200);
    assert.equal((await gated(`/coordinates/search/wgs.json?key=${second.token}`)).statusCode, 200);
    assert.equal((await gated(`/weather/latest.json?key=${gone.token}`)).statusCode, 200);
    // Refused requests are not usage.
    assert.equal((await gated(`/ping?key=${second.token}x`)).statusCode, 403);
    assert.equal((await call({ method: 'DELETE', url: `/v1/api_keys/${gone.id}`, auth: token })).status, 200);
    const ended = Date.now();

    const today = new Date().toISOString().slice(0, 10);
    const response = await usage('', token);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    const body = response.body as {
      since: string;
      until: string;
      rate_limit: unknown;
      total: number;
      by_area: Record<string, number>;
      days: unknown[];
      keys: { id: string; name: string | null; last_used: string | null; total: number; days: unknown[] }[];
    };
    const since = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    assert.deepEqual([body.since, body.until], [since, today]);
    assert.deepEqual(body.rate_limit, { requests_per_second: 0, burst: 1 });
    assert.equal(body.total, 7);
    assert.deepEqual(body.by_area, { keys: 2, maps: 3, coordinates: 1, weather: 1 });
    assert.deepEqual(body.days, [
      { day: today, area: 'coordinates', requests: 1 },
      { day: today, area: 'keys', requests: 2 },
      { day: today, area: 'maps', requests: 3 },
      { day: today, area: 'weather', requests: 1 },
    ]);
    assert.deepEqual(body.keys.map((key) => [key.id, key.name, key.total, key.days]), [
      [first.id, 'first', 5, [{ day: today, area: 'keys', requests: 2 }, { day: today, area: 'maps', requests: 3 }]],
      [second.id, 'second', 1, [{ day: today, area: 'coordinates', requests: 1 }]],
      [unused.id, 'unused', 0, []],
      [gone.id, null, 1, [{ day: today, area: 'weather', requests: 1 }]],
    ]);
    for (const key of [body.keys[0]!, body.keys[1]!, body.keys[3]!]) {
      const used = Date.parse(key.last_used!);
      assert.ok(used >= started - 1 && used <= ended + 1, `${key.name} last used ${key.last_used}`);
    }
    assert.equal(body.keys[2]!.last_used, null);

    // Another account sees none of it.
    const other = await usage('', auth);
    assert.equal(other.status, 200);
    assert.ok(!(other.body as typeof body).keys.some((key) => [first.id, second.id, gone.id].includes(key.id)));
  });

  test('days outside 1..366 or not an integer is 400 with the error body', async () => {
    for (const query of ['?days=0', '?days=367', '?days=1.5', '?days=x']) {
      const response = await usage(query, auth);
      assert.equal(response.status, 400, query);
      assertErrorBody(response.body);
    }
    assert.equal((await usage('?days=1', auth)).status, 200);
  });

  test('usage needs a valid service token', async () => {
    for (const token of [null, 'Token mst_nope']) {
      const response = await usage('', token);
      assert.equal(response.status, 401);
      assertErrorBody(response.body);
    }
  });
});

describe('per-key rate limits and quotas', () => {
  test('create and change_settings set a rate limit and a monthly quota; get returns them; null clears them', async () => {
    const created = await createKey({ name: 'limited', rate_limit: { requests_per_second: 2.5, burst: 5 }, quota: { requests_per_month: 1000 } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(created.body.rate_limit, { requests_per_second: 2.5, burst: 5 });
    assert.deepEqual(created.body.quota, { requests_per_month: 1000 });
    const plain = await createKey({});
    assert.equal(plain.body.rate_limit, null, 'no limit of its own: the server limit');
    assert.equal(plain.body.quota, null);

    const url = `/v1/api_keys/${created.body.id}`;
    const changed = await call({ method: 'POST', url: `${url}/change_settings`, payload: { quota: { requests_per_month: 10 } } });
    assert.equal(changed.status, 200);
    assert.deepEqual(changed.body.rate_limit, { requests_per_second: 2.5, burst: 5 }, 'a field absent stays');
    assert.deepEqual(changed.body.quota, { requests_per_month: 10 });
    assert.deepEqual((await call({ method: 'GET', url })).body.quota, { requests_per_month: 10 });
    const cleared = await call({ method: 'POST', url: `${url}/change_settings`, payload: { rate_limit: null, quota: null } });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.rate_limit, null);
    assert.equal(cleared.body.quota, null);
    assert.equal(cleared.body.name, 'limited');
    // The listing carries them too (every APIKey does).
    const listed = await call({ method: 'GET', url: '/v1/api_keys?limit=100' });
    assert.ok(listed.body.items.every((key: { rate_limit?: unknown; quota?: unknown }) => key.rate_limit !== undefined && key.quota !== undefined));
  });

  test('bad limits and quotas are 400 with the error body, on create and change_settings', async () => {
    const key = (await createKey({})).body as { id: string };
    const bodies = [
      { rate_limit: { requests_per_second: 0, burst: 5 } },
      { rate_limit: { requests_per_second: -1, burst: 5 } },
      { rate_limit: { requests_per_second: 1, burst: 0 } },
      { rate_limit: { requests_per_second: 1, burst: 1.5 } },
      { rate_limit: { requests_per_second: 1 } },
      { rate_limit: { requests_per_second: 1, burst: 2, window: 3 } },
      { rate_limit: 5 },
      { quota: { requests_per_month: 0 } },
      { quota: { requests_per_month: 2.5 } },
      { quota: { requests_per_month: 10, requests_per_day: 1 } },
      { quota: 100 },
    ];
    for (const payload of bodies) {
      for (const [method, url] of [['POST', '/v1/api_keys'], ['POST', `/v1/api_keys/${key.id}/change_settings`]] as const) {
        const response = await call({ method, url, payload });
        assert.equal(response.status, 400, `${url} ${JSON.stringify(payload)}`);
        assertErrorBody(response.body);
      }
    }
  });

  test('limits beyond what storage and the limiter hold are 400, with the server limit off as with it on', async () => {
    // testConfig turns the server-wide limit off (requestsPerSecond 0), so nothing but the schema bounds a key's limit here.
    assert.equal(server.meridian.config.rateLimit.requestsPerSecond, 0);
    const bodies = [
      // burst is a PostgreSQL integer: at most 2^31 - 1.
      '{"rate_limit":{"requests_per_second":1,"burst":3000000000}}',
      '{"rate_limit":{"requests_per_second":1,"burst":2147483648}}',
      '{"rate_limit":{"requests_per_second":1,"burst":1e308}}',
      // 1e309 parses as Infinity, which no limit means.
      '{"rate_limit":{"requests_per_second":1e309,"burst":5}}',
      // A refill this slow makes the Redis bucket's expiry no integer: Redis refuses it and the limiter fails open.
      '{"rate_limit":{"requests_per_second":1e-300,"burst":5}}',
      '{"quota":{"requests_per_month":1e308}}',
    ];
    const key = (await createKey({})).body as { id: string };
    for (const payload of bodies) {
      for (const url of ['/v1/api_keys', `/v1/api_keys/${key.id}/change_settings`]) {
        const response = await call({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });
        assert.equal(response.status, 400, `${url} ${payload}: ${JSON.stringify(response.body)}`);
        assertErrorBody(response.body);
      }
    }
    const largest = await createRaw('{"rate_limit":{"requests_per_second":0.001,"burst":2147483647}}');
    assert.equal(largest.status, 200, JSON.stringify(largest.body));
    assert.deepEqual(largest.body.rate_limit, { requests_per_second: 0.001, burst: 2147483647 });
  });

  test("a key's rate limit may not exceed the server's", async () => {
    const limited = await startTestServer(testConfig({ rateLimit: { requestsPerSecond: 10, burst: 20 } }));
    try {
      const { auth: token } = await newAccount(limited.meridian);
      const create = (payload: object) => limited.server.admin.inject({ method: 'POST', url: '/v1/api_keys', payload, headers: { authorization: token } });
      const faster = await create({ rate_limit: { requests_per_second: 11, burst: 20 } });
      assert.equal(faster.statusCode, 400);
      assert.deepEqual(faster.json(), { errors: [{ message: "rate_limit.requests_per_second must be at most 10, the server's limit" }] });
      const bigger = await create({ rate_limit: { requests_per_second: 10, burst: 21 } });
      assert.equal(bigger.statusCode, 400);
      assert.match(bigger.json().errors[0].message, /burst must be at most 20/);
      assert.equal((await create({ rate_limit: { requests_per_second: 10, burst: 20 } })).statusCode, 200, 'the server limit itself is allowed');
    } finally {
      await limited.close();
    }
  });

  test("another account cannot see or change a key's limit and quota: 404, and the key is unchanged", async () => {
    const { auth: intruder } = await newAccount(server.meridian, 'intruder');
    const key = (await createKey({ quota: { requests_per_month: 5 } })).body as { id: string };
    const attempt = await call({ method: 'POST', url: `/v1/api_keys/${key.id}/change_settings`, payload: { quota: null, rate_limit: { requests_per_second: 1, burst: 1 } }, auth: intruder });
    assert.equal(attempt.status, 404);
    assertErrorBody(attempt.body);
    assert.equal((await call({ method: 'GET', url: `/v1/api_keys/${key.id}`, auth: intruder })).status, 404);
    const own = await call({ method: 'GET', url: `/v1/api_keys/${key.id}` });
    assert.deepEqual([own.body.quota, own.body.rate_limit], [{ requests_per_month: 5 }, null]);
  });

  test("usage lists each key's own rate limit, quota and requests this month", async () => {
    const { auth: token } = await newAccount(server.meridian, 'quota usage');
    const key = (await createKey({ rate_limit: { requests_per_second: 3, burst: 6 }, quota: { requests_per_month: 50 } }, token)).body as { id: string; token: string };
    const plain = (await createKey({}, token)).body as { id: string };
    for (let i = 0; i < 3; i++) assert.equal((await server.server.public.inject({ method: 'GET', url: `/ping?key=${key.token}` })).statusCode, 200);
    const response = await call({ method: 'GET', url: '/v1/usage', auth: token });
    assert.equal(response.status, 200);
    const keys = response.body.keys as { id: string; rate_limit: unknown; quota: unknown; month_requests: number }[];
    assert.deepEqual(keys.map((k) => [k.id, k.rate_limit, k.quota, k.month_requests]), [
      [key.id, { requests_per_second: 3, burst: 6 }, { requests_per_month: 50 }, 3],
      [plain.id, null, null, 0],
    ]);
  });
});
