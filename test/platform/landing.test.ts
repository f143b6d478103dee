/**
 * @oneDatabase the database only checks the key; what is tested is the landing page.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../helpers.js';

let server: TestServer;

before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const inject = (method: 'GET' | 'HEAD' | 'POST', url: string) => server.server.public.inject({ method, url });

test('/ is an HTML page linking to the console, the OpenAPI document and health, without a key', async () => {
  const response = await inject('GET', '/');
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  for (const link of ['/console/', '/openapi.json', '/health', '/ready']) assert.ok(response.body.includes(`href="${link}"`), link);
  assert.ok(response.body.includes('docs/api.md') && response.body.includes('docs/operations.md'));
  assert.equal((await inject('HEAD', '/')).statusCode, 200);
});

test('/ loads nothing from elsewhere and cannot be framed', async () => {
  const response = await inject('GET', '/');
  const policy = String(response.headers['content-security-policy']);
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  assert.ok(!/<script/i.test(response.body));
});

test('other methods on /, and unknown paths, keep the JSON 404; / is not in the OpenAPI document', async () => {
  for (const [method, url] of [['POST', '/'], ['GET', '/nope']] as const) {
    const response = await inject(method, url);
    assert.equal(response.statusCode, 404, `${method} ${url}`);
    assert.deepEqual(response.json(), { errors: [{ message: 'The item does not exist' }] });
  }
  const document = (await inject('GET', '/openapi.json')).json() as { paths: Record<string, unknown> };
  assert.equal(document.paths['/'], undefined);
});
