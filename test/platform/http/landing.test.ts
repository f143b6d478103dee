import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createHttpApp } from '../../../src/platform/http/server.js';
import { landingRoute } from '../../../src/platform/http/landing.js';
import { apiReferencePageRoutes } from '../../../src/platform/http/api-reference-page.js';
import { viewerRoutes } from '../../../src/maps/serve/viewer-routes.js';
import { defaultConfig } from '../../../src/config.js';
import { tempDir } from '../../scratch.js';

/** A listener as the server builds one, with the pages over `root` (a console build, or an empty folder). */
async function appWith(root: string) {
  const app = await createHttpApp({ logLevel: 'silent', trustProxy: false, title: 'test', sharedSchemas: [], http: defaultConfig.http });
  await app.register(landingRoute, { root });
  await app.register(viewerRoutes, { root });
  await app.register(apiReferencePageRoutes);
  await app.ready();
  return app;
}

test('/ is the catalog page of the console build, under its policy, the same for everyone', async () => {
  const root = tempDir();
  writeFileSync(path.join(root, 'catalog.html'), '<!doctype html><title>catalog</title><script type="module" src="/console/assets/catalog-x.js"></script>');
  writeFileSync(path.join(root, 'viewer.html'), '<!doctype html><title>viewer</title>');
  const app = await appWith(root);
  const response = await app.inject('/');
  assert.equal(response.statusCode, 200);
  assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
  assert.match(response.body, /<title>catalog<\/title>/);
  const policy = String(response.headers['content-security-policy']);
  assert.match(policy, /script-src 'self'/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.equal(response.headers['cache-control'], 'no-cache');
  assert.equal((await app.inject({ method: 'HEAD', url: '/' })).statusCode, 200);
  for (const id of ['streets', 'streets-dark']) {
    const viewer = await app.inject(`/maps/${id}/viewer`);
    assert.equal(viewer.statusCode, 200);
    assert.match(viewer.body, /<title>viewer<\/title>/);
  }
  assert.equal((await app.inject('/maps/not%20an%20id/viewer')).statusCode, 400);
  await app.close();
});

test('without a console build, / is a static page linking the API reference, OpenAPI and health, and the viewer says how to build it', async () => {
  const app = await appWith(tempDir());
  const response = await app.inject('/');
  assert.equal(response.statusCode, 200);
  for (const link of ['/api-reference/', '/openapi.json', '/health', '/ready']) assert.ok(response.body.includes(`href="${link}"`), link);
  assert.match(response.body, /npm run build/);
  assert.match(String(response.headers['content-security-policy']), /default-src 'none'/);
  assert.ok(!/<script/i.test(response.body));
  const viewer = await app.inject('/maps/streets/viewer');
  assert.equal(viewer.statusCode, 404);
  assert.match(viewer.json().errors[0].message, /npm run build/);
  await app.close();
});

test('the API reference page is Swagger UI served from here, reading /openapi.json', async () => {
  const app = await appWith(tempDir());
  const response = await app.inject('/api-reference/');
  assert.equal(response.statusCode, 200);
  for (const src of response.body.matchAll(/(?:src|href)="([^"]+)"/g)) assert.ok(!/^(https?:)?\/\//.test(src[1]!), `${src[1]} is local`);
  const bundle = await app.inject('/api-reference/swagger-ui-bundle.js');
  assert.equal(bundle.statusCode, 200);
  assert.match(bundle.body, /SwaggerUIBundle/);
  assert.equal((await app.inject({ url: '/api-reference/swagger-ui-bundle.js', headers: { 'if-none-match': String(bundle.headers.etag) } })).statusCode, 304);
  assert.match((await app.inject('/api-reference/start.js')).body, /url: '\/openapi\.json'/);
  assert.equal((await app.inject('/api-reference/swagger-ui.css')).statusCode, 200);
  assert.equal((await app.inject('/api-reference')).headers.location, '/api-reference/');
});

test('other methods on /, and unknown paths, keep the JSON 404; the pages are not in the OpenAPI document', async () => {
  const app = await appWith(tempDir());
  for (const [method, url] of [['POST', '/'], ['GET', '/nope']] as const) {
    const response = await app.inject({ method, url });
    assert.equal(response.statusCode, 404, `${method} ${url}`);
    assert.deepEqual(response.json(), { errors: [{ message: 'The item does not exist' }] });
  }
  const document = (await app.inject('/openapi.json')).json() as { paths: Record<string, unknown> };
  assert.deepEqual(Object.keys(document.paths), []);
  await app.close();
});
