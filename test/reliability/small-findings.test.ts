/** The smaller findings of the hostile-input campaign (issue 15, item 13), each as the docs state it. */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { originAllowed, parseOriginRule } from '../../src/keys/origins.js';
import { newAccount, startTestServer, type TestServer } from '../helpers.js';

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

test('an unparseable Origin is refused, not passed over for the Referer', () => {
  const rules = [parseOriginRule('example.com')!];
  assert.equal(originAllowed(rules, 'not a url', 'https://example.com/page'), false);
  assert.equal(originAllowed(rules, undefined, 'https://example.com/page'), true, 'no Origin: the Referer decides');
  assert.equal(originAllowed(rules, 'null', 'https://example.com/page'), true, 'Origin null: the Referer decides');
  assert.equal(originAllowed(rules, 'https://example.com', undefined), true);
});
