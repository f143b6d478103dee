/** The smaller findings of the hostile-input campaign (issue 15, item 13), each as the docs state it. */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

let server: TestServer;
let auth: string;

before(async () => {
  server = await startTestServer();
  ({ auth } = await newAccount(server.meridian));
});
after(() => server.close());

test('the unpadded base64url cursor the docs accept pages on', async () => {
  const admin = server.server.admin;
  for (let i = 0; i < 11; i++) await admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: auth }, payload: {} });
  const first = (await admin.inject({ method: 'GET', url: '/v1/api_keys?limit=10', headers: { authorization: auth } })).json() as { cursor: string };
  const url = first.cursor.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
  const padded = await admin.inject({ method: 'GET', url: `/v1/api_keys?limit=10&cursor=${encodeURIComponent(first.cursor)}`, headers: { authorization: auth } });
  const unpadded = await admin.inject({ method: 'GET', url: `/v1/api_keys?limit=10&cursor=${url}`, headers: { authorization: auth } });
  assert.equal(unpadded.statusCode, 200, unpadded.body);
  assert.deepEqual(unpadded.json(), padded.json());
});

test('a body that is not application/json is 415, text/plain included', async () => {
  for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
    const response = await server.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: auth, 'content-type': type }, payload: '{}' });
    assert.equal(response.statusCode, 415, type);
    assert.match(response.json().errors[0].message, /Unsupported Media Type/);
  }
});

test('an account holds at most maxKeysPerAccount keys, even when it asks for more at once', async () => {
  const limited = await startTestServer(testConfig({ management: { maxKeysPerAccount: 3 } }));
  try {
    const { auth: token } = await newAccount(limited.meridian);
    const create = () => limited.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: token }, payload: {} });
    const statuses = (await Promise.all(Array.from({ length: 6 }, create))).map((response) => response.statusCode).sort();
    assert.deepEqual(statuses, [200, 200, 200, 403, 403, 403]);
    const refused = await create();
    assert.match(refused.json().errors[0].message, /Key quota reached: an account holds at most 3 keys/);
    const page = (await limited.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: token } })).json() as { total_count: number };
    assert.equal(page.total_count, 3);
  } finally {
    await limited.close();
  }
});

test('key management is rate-limited per account, with Retry-After', async () => {
  // A token a hundred seconds: however slowly a loaded machine answers the first three, none comes back before the fourth.
  const limited = await startTestServer(testConfig({ management: { requestsPerSecond: 0.01, burst: 3 } }));
  try {
    const first = await newAccount(limited.meridian, 'first');
    const second = await newAccount(limited.meridian, 'second');
    const list = (authorization: string) => limited.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await list(first.auth)).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const refused = await list(first.auth);
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.match(refused.json().errors[0].message, /Rate limit exceeded for key management/);
    assert.equal((await list(second.auth)).statusCode, 200, 'another account has its own budget');
  } finally {
    await limited.close();
  }
});
