/**
 * @oneDatabase the database only checks the keys; what is tested is where the console is served.
 *
 * With `admin.port` (the operations guide's advice) key management has its own listener: the
 * console is served there, signs in there, and calls the public listener for maps; the start-up
 * log names the console's URL that works, and the public listener's `/console/` says where it is
 * while still serving the assets the catalog and viewers load. In Chromium, as test/console does.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { launchChromium, collectPageErrors } from '../chromium.js';
import { requirePeers } from '../peers.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = path.join(root, 'test-artifacts/console');

/** Blue sea and a green square of land around 0,0. */
const style = {
  version: 8,
  sources: { land: { type: 'geojson', data: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-20, -20], [20, -20], [20, 20], [-20, 20], [-20, -20]]] } } } },
  layers: [
    { id: 'sea', type: 'background', paint: { 'background-color': '#4a90c8' } },
    { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#8fc98f' } },
  ],
};

let server: TestServer;
let urls: { public: string; admin: string };
let serviceToken: string;
let browser: Browser;
let page: Page;
const log = new LogCapture();
const pageErrors: string[] = [];

before(async () => {
  requirePeers('chromium');
  if (!existsSync(path.join(root, 'dist/console/index.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', 'console', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  mkdirSync(artifacts, { recursive: true });
  const config = testConfig({ logLevel: 'info', admin: { port: 0, host: '127.0.0.1' }, maps: { definitions: { test: { style: style as never, maxzoom: 12 } } } });
  server = await startTestServer(config, { logStream: log });
  urls = await server.server.listen();
  assert.notEqual(urls.public, urls.admin);
  const account = await newAccount(server.meridian, 'admin-port');
  serviceToken = account.auth.slice('Token '.length);
  await server.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: account.auth, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'console' }) });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  collectPageErrors(page, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('the start-up log names the console on the admin listener, and the catalog on the public one', () => {
  const line = log.lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.msg === 'Meridian is serving');
  assert.ok(line, log.text);
  assert.equal(line.console, `${urls.admin}/console/`);
  assert.equal(line.catalog, `${urls.public}/`);
  assert.ok(!log.text.includes(serviceToken));
});

test('the public listener says where the console is, and still serves the assets the catalog loads', async () => {
  const response = await fetch(`${urls.public}/console/`);
  assert.equal(response.status, 404);
  assert.match(((await response.json()) as { errors: { message: string }[] }).errors[0]!.message, /admin listener \(admin\.port\)/);
  assert.equal((await fetch(`${urls.public}/console/index.html`)).status, 404);
  const catalog = await (await fetch(`${urls.public}/`)).text();
  const assets = [...catalog.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((match) => match[1]!);
  assert.ok(assets.length > 0, catalog);
  for (const asset of assets) assert.equal((await fetch(`${urls.public}${asset}`)).status, 200, asset);
  assert.deepEqual(await (await fetch(`${urls.public}/console/settings.json`)).json(), { api: null });
});

test('the console on the admin listener signs in, lists keys and draws maps and static images from the public listener', async () => {
  assert.deepEqual(await (await fetch(`${urls.admin}/console/settings.json`)).json(), { api: urls.public });
  await page.goto(`${urls.admin}/console/`);
  await page.fill('input[name=token]', serviceToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('td', { hasText: 'console' }).first().waitFor();
  await page.goto(`${urls.admin}/console/#/static`);
  await page.locator('#builder-map[data-ready=true]').waitFor();
  await page.locator('#static-image[data-state=loaded]').waitFor();
  const url = new URL(await page.inputValue('input[name=static-url]'));
  assert.equal(url.origin, urls.public, 'the static URL is the public listener’s');
  await page.screenshot({ path: path.join(artifacts, 'admin-port-static.png') });
  assert.deepEqual(pageErrors, []);
});

test('the catalog on the public listener, where key management is not, says to paste a key when a service token is given', async () => {
  await page.goto(`${urls.public}/`);
  await page.fill('input[name=service-token]', serviceToken);
  await page.locator('form.key-signin button').click();
  await page.locator('.key-form .message.error', { hasText: 'admin.port' }).waitFor();
  assert.match(await page.locator('.key-form .message.error').innerText(), /paste an API key instead/);
  assert.deepEqual(pageErrors, []);
});
