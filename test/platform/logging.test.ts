import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { loggedUserAgent, loggerOptions, redactUrl } from '../../src/platform/logging.js';
import { LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

test('redactUrl removes credential values from query strings', () => {
  assert.equal(redactUrl('/ping?key=abc123'), '/ping?key=REDACTED');
  assert.equal(redactUrl('/x?a=1&KEY=abc&b=2'), '/x?a=1&KEY=REDACTED&b=2');
  assert.equal(redactUrl('/x?token=t&key=k#frag'), '/x?token=REDACTED&key=REDACTED#frag');
  assert.equal(redactUrl('/x?center=8.5,47.3&zoom=12&size=600x400'), '/x?center=8.5,47.3&zoom=12&size=600x400', 'other parameters are kept');
  assert.equal(redactUrl('/plain'), '/plain');
});

let server: TestServer;
const logs = new LogCapture();

before(async () => {
  server = await startTestServer(testConfig({ logLevel: 'trace', rateLimit: { requestsPerSecond: 1, burst: 1 } }), {
    logStream: logs,
  });
});
after(() => server.close());

test('no token and no key= value reaches a log line, whatever the request', async () => {
  const { accountId, auth } = await newAccount(server.meridian);
  const serviceToken = auth.slice('Token '.length);
  const key = await server.meridian.keys.create(accountId, {});
  const app = server.server.public;
  const requests: InjectOptions[] = [
    { method: 'GET', url: `/ping?key=${key.token}` },
    { method: 'GET', url: `/ping?key=${key.token}` },
    { method: 'GET', url: `/ping?key=${key.token}x` },
    { method: 'GET', url: `/ping?a=1&key=${key.token}&key=${key.token}` },
    { method: 'GET', url: `/nowhere?key=${key.token}` },
    { method: 'GET', url: `/v1/api_keys?key=${key.token}`, headers: { authorization: auth } },
    { method: 'GET', url: `/v1/api_keys/${key.id}`, headers: { authorization: auth } },
    { method: 'GET', url: '/v1/api_keys', headers: { authorization: `Token ${serviceToken}x` } },
    { method: 'POST', url: '/v1/api_keys', headers: { authorization: auth, 'content-type': 'application/json' }, payload: `{"description": "${key.token}"` },
  ];
  for (const request of requests) await app.inject(request);

  const text = logs.text;
  assert.ok(logs.lines.length >= requests.length, 'requests were logged');
  assert.ok(!text.includes(key.token), 'an API key token was logged');
  assert.ok(!text.includes(serviceToken), 'a service token was logged');
  assert.doesNotMatch(text, /key=(?!REDACTED)/, 'a key= value was logged');
  for (const line of logs.lines) {
    const entry = JSON.parse(line);
    assert.equal(typeof entry.level, 'number');
    if (entry.req) assert.equal(typeof entry.reqId, 'string');
  }
});

test('a key sent under any parameter whose name holds "key" or "token" never reaches a log line, whatever the gate makes of it', async () => {
  const { accountId } = await newAccount(server.meridian, 'spellings');
  const { token } = await server.meridian.keys.create(accountId, {});
  const spellings = [
    'api_key', 'apikey', 'APIKEY', 'x-api-key', 'key%00', 'key%20', '%20key', 'key.', 'keys', 'mykey',
    'access-token', 'auth_token', 'Token%00', '%256Bey', '%25256Bey', '%EF%BD%8B%EF%BD%85%EF%BD%99',
  ];
  const urls = [
    ...spellings.map((name) => `/ping?${name}=${token}`),
    ...spellings.map((name) => `/maps/world/style.json?a=1&${name}=${encodeURIComponent(token)}&b=2`),
    // `;` separates parameters for many servers and proxies; Fastify keeps it inside `a`'s value.
    `/ping?a=1;key=${token}`,
    `/ping?a=1;api_key=${token};b=2`,
    `/nowhere?x=1&key%00=${token}#key=${token}`,
    `/ping?key%3D${token}`,
    `/ping%3Fkey=${token}`,
    `/api/maps/world/static/0,0,1/10x10.png?markers=icon:${encodeURIComponent(`https://icons.example/a.png?key=${token}`)}`,
  ];
  const before = logs.lines.length;
  for (const url of urls) await server.server.public.inject({ method: 'GET', url });
  const written = logs.lines.slice(before);
  assert.ok(written.length >= urls.length, 'requests were logged');
  const leaked = written.filter((line) => line.includes(token) || line.includes(encodeURIComponent(token)));
  assert.deepEqual(leaked, [], 'a key reached the log');
  assert.ok(written.some((line) => line.includes('api_key=REDACTED')), 'the parameter is kept, its value redacted');
});

test('every response carries its request id, and a sane X-Request-Id from the caller is kept', async () => {
  const mine = await server.server.public.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } });
  assert.equal(mine.headers['x-request-id'], 'abc-123');
  const generated = await server.server.public.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'bad id with spaces' } });
  assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  assert.ok(logs.text.includes('"reqId":"abc-123"'));
});

test('redactUrl redacts credentials whatever form the parameter name takes', () => {
  for (const name of ['%6Bey', 'k%65y', 'K%45Y', 'key[]', 'key[a]', '%6bey%5B%5D', 'token', 'access%5Ftoken', 'key+']) {
    assert.equal(redactUrl(`/ping?a=1&${name}=SECRET&b=2`), `/ping?a=1&${name}=REDACTED&b=2`, name);
  }
  // Any name holding "key" or "token" is taken for a credential, whatever the gate reads (issue 31).
  assert.equal(redactUrl('/x?monkey=SECRET&keys=1&k=1'), '/x?monkey=REDACTED&keys=REDACTED&k=1');
  assert.equal(redactUrl('/x?key=%ZZ'), '/x?key=REDACTED');
  // A name whose `=` is encoded, a key given inside another parameter's value, a `?` encoded in the path.
  assert.equal(redactUrl('/ping?a=1&key%3DSECRET&b=2'), '/ping?a=1&REDACTED&b=2');
  assert.equal(redactUrl('/x?markers=icon:https%3A%2F%2Fi.example%2Fa.png%3Fkey%3DSECRET&zoom=3'), '/x?markers=REDACTED&zoom=3');
  assert.equal(redactUrl('/x?path=a=b&note=key:SECRET'), '/x?path=a=b&note=key:SECRET', 'a value merely mentioning key is kept');
  assert.equal(redactUrl('/ping%3Fkey=SECRET'), '/ping%3Fkey=REDACTED');
  assert.equal(redactUrl('/x?q=turkey'), '/x?q=turkey');
});

test('logged errors carry no query parameters or details a database driver attached', () => {
  const serializer = (loggerOptions('info').serializers as Record<string, (error: unknown) => Record<string, unknown>>).err!;
  const error = Object.assign(new Error('duplicate key value'), { code: '23505', params: ['hash-SECRET'], query: 'INSERT …', detail: 'Key (token_hash)=(SECRET) already exists.' });
  const logged = JSON.stringify(serializer(error));
  assert.ok(!logged.includes('SECRET'), logged);
  assert.match(logged, /duplicate key value/);
  assert.match(logged, /23505/);
});

test('one access line per request: method, route template, redacted URL, status, time, bytes, key id, client and user agent', async () => {
  const { accountId } = await newAccount(server.meridian, 'access');
  const key = await server.meridian.keys.create(accountId, {});
  const id = 'access-line-1';
  const response = await server.server.public.inject({
    method: 'GET',
    url: `/ping?key=${key.token}&x=1`,
    headers: { 'x-request-id': id, 'user-agent': 'curl/8.5.0' },
    remoteAddress: '192.0.2.7',
  });
  assert.equal(response.statusCode, 200);
  const lines = logs.lines.map((line) => JSON.parse(line)).filter((entry) => entry.reqId === id);
  // Fastify's default logging writes "incoming request" and "request completed": two lines.
  assert.equal(lines.length, 1, JSON.stringify(lines));
  const [line] = lines;
  assert.equal(line.msg, 'request completed');
  assert.equal(line.method, 'GET');
  assert.equal(line.route, '/ping');
  assert.equal(line.url, '/ping?key=REDACTED&x=1');
  assert.equal(line.status, 200);
  assert.equal(typeof line.ms, 'number');
  assert.equal(line.bytes, response.rawPayload.byteLength);
  assert.ok(line.bytes > 0);
  assert.equal(line.keyId, key.id);
  assert.equal(line.client, '192.0.2.7');
  assert.equal(line.userAgent, 'curl/8.5.0');
  assert.ok(!JSON.stringify(line).includes(key.token));

  const unmatched = 'access-line-2';
  await server.server.public.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': unmatched } });
  const [missing] = logs.lines.map((text) => JSON.parse(text)).filter((entry) => entry.reqId === unmatched);
  assert.equal(missing.status, 404);
  assert.equal(missing.route, null);
  assert.equal(missing.keyId, null);
});

test('a user agent is logged short and without what looks like a key', () => {
  assert.equal(loggedUserAgent('app/1.0 (key=SECRET; linux)'), 'app/1.0 (key=REDACTED; linux)');
  assert.equal(loggedUserAgent('tool token: SECRET'), 'tool token: REDACTED');
  assert.equal(loggedUserAgent('x'.repeat(500))!.length, 201);
  assert.equal(loggedUserAgent(undefined), undefined);
});
