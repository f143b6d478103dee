/**
 * Every error from every layer leaves in the documented body, `{"errors":[{"message"}]}`, with
 * the right status, and never echoes the URL (which may carry a key): errors of the router, of
 * Node's HTTP parser, and input the database cannot hold.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseRaw, rawRequest } from '../scratch.js';
import { newAccount, startTestServer, type TestServer } from '../helpers.js';

let server: TestServer;
let port: number;

before(async () => {
  server = await startTestServer();
  port = Number(new URL((await server.server.listen()).public).port);
});
after(() => server.close());

const raw = (request: string) => rawRequest(port, request);
const parse = parseRaw;

const secret = 'SECRETKEY123';

test('router and parser errors answer in the documented body without echoing the URL', async () => {
  const cases: [string, string, number, RegExp][] = [
    ['bad percent-encoding in the path', `GET /maps/wor%ld/style.json?key=${secret} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 400, /percent-encoding/],
    ['a path parameter over 8192 characters', `GET /api/maps/${'a'.repeat(9000)}/static/0,0,1/10x10.png?key=${secret} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 414, /URI Too Long/],
    ['a URL over the header limit', `GET /api/maps/world/static/0,0,1/10x10.png?key=${secret}&x=${'a'.repeat(17000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, /URI Too Long/],
    ['headers over the limit', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17000)}\r\n\r\n`, 431, /header fields too large/],
    ['not HTTP', 'GARBAGE\r\n\r\n', 400, /Malformed/],
    ['an unknown HTTP version', 'GET / HTTP/9.9\r\n\r\n', 400, /Malformed/],
  ];
  for (const [name, request, status, message] of cases) {
    const response = parse(await raw(request));
    assert.equal(response.status, status, name);
    assert.ok(response.headers.includes('content-type: application/json'), name);
    const body = JSON.parse(response.body) as { errors: { message: string }[] };
    assert.equal(body.errors.length, 1, name);
    assert.match(body.errors[0]!.message, message, name);
    assert.ok(!response.body.includes(secret) && !response.headers.includes(secret.toLowerCase()), `${name}: the key is not echoed`);
  }
});

test('a HEAD request refused by the parser gets headers and no body', async () => {
  const response = await raw(`HEAD /api/maps/world/static/0,0,1/10x10.png?x=${'a'.repeat(17000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.match(response, /^HTTP\/1\.1 414 /);
  assert.ok(response.endsWith('\r\n\r\n'), 'nothing after the header section');
});

test('text the database cannot hold (NUL) and urn:uuid: key ids are refused with 400, not 500', async () => {
  const { auth } = await newAccount(server.meridian);
  const admin = server.server.admin;
  const headers = { authorization: auth };
  for (const field of ['name', 'description', 'user_agent']) {
    const created = await admin.inject({ method: 'POST', url: '/v1/api_keys', headers, payload: { [field]: 'a\u0000b' } });
    assert.equal(created.statusCode, 400, field);
    assert.match(created.json().errors[0].message, new RegExp(`${field} must not contain NUL`));
  }
  const key = (await admin.inject({ method: 'POST', url: '/v1/api_keys', headers, payload: {} })).json() as { id: string };
  const changed = await admin.inject({ method: 'POST', url: `/v1/api_keys/${key.id}/change_settings`, headers, payload: { description: '\u0000' } });
  assert.equal(changed.statusCode, 400);
  for (const method of ['GET', 'DELETE'] as const) {
    const response = await admin.inject({ method, url: `/v1/api_keys/urn:uuid:${key.id}`, headers });
    assert.equal(response.statusCode, 400, method);
    assert.ok(Array.isArray(response.json().errors), method);
  }
  const renamed = await admin.inject({ method: 'POST', url: `/v1/api_keys/urn:uuid:${key.id}/change_settings`, headers, payload: {} });
  assert.equal(renamed.statusCode, 400);
});
