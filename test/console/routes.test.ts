import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Fastify from 'fastify';
import { consoleRoutes } from '../../src/platform/http/console.js';
import { tempDir } from '../scratch.js';

async function appWith(root: string) {
  const app = Fastify();
  await app.register(consoleRoutes, { root });
  return app;
}

test('the built console is served at /console/, with a strict content security policy', async () => {
  const root = tempDir();
  mkdirSync(path.join(root, 'assets'));
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(path.join(root, 'assets/index-abc.js'), 'export {};');
  const app = await appWith(root);
  const page = await app.inject('/console/');
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<title>console<\/title>/);
  assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
  assert.equal(page.headers['cache-control'], 'no-cache');
  const asset = await app.inject('/console/assets/index-abc.js');
  assert.match(String(asset.headers['cache-control']), /immutable/);
  const bare = await app.inject('/console');
  assert.equal(bare.statusCode, 301);
  assert.equal(bare.headers.location, '/console/');
  await app.close();
});

test('a console that was not built answers 404 saying how to build it', async () => {
  const app = await appWith(tempDir());
  for (const url of ['/console', '/console/', '/console/assets/x.js']) {
    const response = await app.inject(url);
    assert.equal(response.statusCode, 404, url);
    assert.match(response.json().errors[0].message, /npm run build/);
  }
  await app.close();
});
