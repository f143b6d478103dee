/**
 * @oneDatabase the database only checks the key; what is tested is pages drawn in a browser.
 *
 * The catalog (`/`), the map viewers (`/maps/{id}/viewer`) and the API reference page in a real
 * browser (Debian's Chromium through playwright-core) against a real server with a street map added
 * as `maps add` adds one (the Kirchberg MBTiles fixture: `kirchberg`, `-light` and `-dark`), over the
 * world fixture. Expected views come from `GET /maps` (the map's extent), asked by the test itself.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { addArchive } from '../../src/tools/osm/add.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { launchChromium, collectPageErrors, browserStep } from '../chromium.js';
import { requirePeers } from '../peers.js';
import { until } from '../until.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = path.join(root, 'test-artifacts/catalog');

let server: TestServer;
let origin: string;
let key: string;
let serviceToken: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

interface MapSummary {
  id: string;
  name: string;
  bounds: number[];
  center: number[];
  formats: string[];
}
let listed: MapSummary[];

before(async () => {
  requirePeers('chromium');
  if (!existsSync(path.join(root, 'dist/console/viewer.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', 'console', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  mkdirSync(artifacts, { recursive: true });
  const config = testConfig();
  const mapsDir = path.join(config.dataDir, 'maps');
  mkdirSync(path.join(mapsDir, 'world'), { recursive: true });
  copyFileSync(path.join(root, 'test/fixtures/osm/world.pmtiles'), path.join(mapsDir, 'world', 'world.pmtiles'));
  const added = await addArchive(path.join(root, 'test/fixtures/osm/kirchberg.mbtiles'), { mapsDir });
  assert.deepEqual(added.maps, ['kirchberg', 'kirchberg-light', 'kirchberg-dark']);
  server = await startTestServer(config);
  origin = (await server.server.listen()).public;
  const account = await newAccount(server.meridian, 'catalog');
  serviceToken = account.auth.slice('Token '.length);
  const created = await server.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: account.auth, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'viewer' }) });
  key = (created.json() as { token: string }).token;
  listed = ((await (await fetch(`${origin}/maps?key=${encodeURIComponent(key)}`)).json()) as { maps: MapSummary[] }).maps;

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  page = await context.newPage();
  collectPageErrors(page, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const step = (name: string, run: () => Promise<void>) => browserStep(name, run, () => page, artifacts);

/** What the test reads of elements in the page (its TypeScript has no DOM types). */
type Dataset = { dataset: Record<string, string | undefined> };
type Img = { complete: boolean; naturalWidth: number; naturalHeight: number; src: string };

const summary = (id: string) => listed.find((m) => m.id === id)!;

/** The viewer's map: loaded, its centre, zoom, and the URL of its style's sprite (which names the map). */
async function viewerState(): Promise<{ loaded: boolean; lng: number; lat: number; zoom: number; sprite: string }> {
  // A string: the test's TypeScript has no DOM types, and the page's policy does not apply to the browser's own evaluation.
  return page.evaluate(`(() => {
    const map = window.meridianViewer;
    if (!map) return { loaded: false, lng: NaN, lat: NaN, zoom: NaN, sprite: '' };
    const style = map.isStyleLoaded() ? map.getStyle() : undefined;
    return { loaded: map.loaded() && map.areTilesLoaded(), lng: map.getCenter().lng, lat: map.getCenter().lat, zoom: map.getZoom(), sprite: JSON.stringify(style?.sprite ?? '') };
  })()`);
}

step('the pages the server sends hold no key and are the same for every map', async () => {
  for (const url of ['/', '/maps/kirchberg/viewer', '/maps/kirchberg-dark/viewer', '/api-reference/']) {
    const response = await fetch(`${origin}${url}`);
    assert.equal(response.status, 200, url);
    const body = await response.text();
    assert.ok(!body.includes(key) && !body.includes(serviceToken), `${url} holds no secret`);
    assert.match(String(response.headers.get('content-security-policy')), /frame-ancestors 'none'/, url);
  }
  const viewerA = await (await fetch(`${origin}/maps/kirchberg/viewer`)).text();
  assert.equal(await (await fetch(`${origin}/maps/other/viewer`)).text(), viewerA);
  // No CDN: every script and stylesheet of the viewer comes from this server.
  for (const match of viewerA.matchAll(/(?:src|href)="([^"]+)"/g)) assert.ok(!/^(https?:)?\/\//.test(match[1]!), match[1]);
});

step('/ without a key asks for one, refuses a wrong one, and with a key lists every map with its thumbnail, area and viewer', async () => {
  await page.goto(`${origin}/`);
  await page.locator('a[href="/api-reference/"]').first().waitFor();
  assert.equal(await page.locator('.map-card').count(), 0, 'nothing of the data without a key');
  await page.fill('input[name=api-key]', 'not-a-key');
  await page.locator('form.key-paste button').click();
  await page.locator('.key-form .message.error').waitFor();
  await page.fill('input[name=api-key]', key);
  await page.locator('form.key-paste button').click();
  await page.locator('.map-card').nth(listed.length - 1).waitFor();
  assert.deepEqual(await page.locator('.map-card').evaluateAll((cards) => cards.map((card) => (card as unknown as Dataset).dataset.map)), listed.map((m) => m.id));
  assert.ok(listed.some((m) => m.id === 'kirchberg'));
  for (const map of listed) {
    const card = page.locator(`.map-card[data-map="${map.id}"]`);
    assert.equal(await card.locator('.map-name').textContent(), map.name);
    const [w, s, e, n] = map.bounds.map((v) => v.toFixed(4));
    assert.equal(await card.locator('.map-area').textContent(), `${w}, ${s} to ${e}, ${n}`);
    assert.match(String(await card.locator('.map-formats').textContent()), /WMTS/);
    assert.equal(await card.locator('a.map-name').getAttribute('href'), `/maps/${map.id}/viewer`);
    // The thumbnail Meridian drew, shown from memory: no key in the element.
    const thumbnail = card.locator('img.thumbnail');
    await until(() => thumbnail.evaluate((img) => (img as unknown as Img).complete && (img as unknown as Img).naturalWidth > 0), `${map.id}'s thumbnail`);
    assert.deepEqual(await thumbnail.evaluate((img) => [(img as unknown as Img).naturalWidth, (img as unknown as Img).naturalHeight, (img as unknown as Img).src.startsWith('blob:')]), [256, 192, true]);
  }
  assert.ok(!(await page.content()).includes(key), 'no key in the document');
  assert.equal(await page.evaluate('document.cookie'), '');
  await page.screenshot({ path: path.join(artifacts, 'catalog.png'), fullPage: true });
});

step('a viewer opens on the map’s data, switches between its styles and offers well-formed URLs that answer', async () => {
  await page.locator('.map-card[data-map="kirchberg"] a.map-name').click();
  await page.waitForURL(`${origin}/maps/kirchberg/viewer**`);
  await until(async () => (await viewerState()).loaded, 'the map to load');
  const opened = await viewerState();
  const [lon, lat, zoom] = summary('kirchberg').center as [number, number, number];
  // Bounds of Kirchberg's data: the view is inside them, at the map's centre and zoom.
  assert.ok(Math.abs(opened.lng - lon) < 1e-6 && Math.abs(opened.lat - lat) < 1e-6, `centre ${opened.lng},${opened.lat}, expected ${lon},${lat}`);
  assert.equal(opened.zoom, zoom);
  const [west, south, east, north] = summary('kirchberg').bounds as [number, number, number, number];
  assert.ok(opened.lng > west && opened.lng < east && opened.lat > south && opened.lat < north);
  assert.match(opened.sprite, /\/maps\/kirchberg\/sprite/);
  await page.screenshot({ path: path.join(artifacts, 'viewer.png') });

  await page.locator('button[name=style-dark]').click();
  await until(async () => (await viewerState()).sprite.includes('/maps/kirchberg-dark/') && (await viewerState()).loaded, 'the dark style');
  const dark = await viewerState();
  assert.ok(Math.abs(dark.lng - lon) < 1e-6 && Math.abs(dark.lat - lat) < 1e-6 && dark.zoom === zoom, 'the view stays where it was');
  assert.equal(new URL(page.url()).pathname, '/maps/kirchberg-dark/viewer');
  await page.screenshot({ path: path.join(artifacts, 'viewer-dark.png') });

  const items = await page.locator('[data-copy]').evaluateAll((nodes) => nodes.map((node) => (node as unknown as Dataset).dataset.copy!));
  for (const name of ['style', 'vector-tilejson-openmaptiles', 'raster-tilejson', 'raster-tilejson-256', 'xyz-512', 'xyz-256', 'wmts', 'static', 'leaflet', 'openlayers', 'qgis']) assert.ok(items.includes(name), name);
  // The tile that holds the centre, in the 512-px pyramid (256-px tiles: one zoom further).
  const tile = (z: number) => {
    const x = Math.floor(((lon + 180) / 360) * 2 ** z);
    const rad = (lat * Math.PI) / 180;
    const y = Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * 2 ** z);
    return { z, x, y };
  };
  for (const name of items) {
    const item = page.locator(`[data-copy="${name}"]`);
    assert.ok(!(await item.locator('.copy-text').textContent())!.includes(key), `${name}: the shown text holds no key`);
    await item.getByRole('button', { name: 'Copy' }).click();
    const copied = String(await page.evaluate('navigator.clipboard.readText()'));
    assert.ok(copied.includes('kirchberg-dark'), `${name}: ${copied}`);
    assert.ok(copied.includes(`key=${encodeURIComponent(key)}`), `${name} carries the key`);
    if (name === 'leaflet' || name === 'openlayers' || name === 'qgis') continue;
    const url = new URL(copied);
    assert.equal(url.origin, origin, name);
    assert.equal(url.searchParams.get('key'), key, name);
    const t = tile(name === 'xyz-256' ? zoom + 1 : zoom);
    const concrete = copied.replace('{z}', String(t.z)).replace('{x}', String(t.x)).replace('{y}', String(t.y));
    const response = await fetch(concrete);
    assert.equal(response.status, 200, `${name}: ${concrete.replace(key, 'KEY')} answers ${response.status}`);
    if (name === 'xyz-256') {
      const png = Buffer.from(await response.arrayBuffer());
      assert.equal(png.readUInt32BE(16), 512, '@2x of a 256-px tile is 512 px wide');
    }
  }
  assert.ok(!(await page.content()).includes(key), 'no key in the document');
  assert.equal(await page.evaluate('document.cookie'), '');
});

step('a viewer of a map the server does not have says so; a viewer opened with a #zoom/lat/lon hash opens there', async () => {
  await page.goto(`${origin}/maps/nowhere/viewer`);
  await page.locator('.message.error').filter({ hasText: 'There is no map “nowhere”' }).waitFor();
  await page.goto(`${origin}/maps/kirchberg-light/viewer#15/48.1/10.07`);
  await until(async () => (await viewerState()).loaded, 'the light map');
  const state = await viewerState();
  assert.deepEqual([state.zoom, Number(state.lat.toFixed(4)), Number(state.lng.toFixed(4))], [15, 48.1, 10.07]);
  assert.match(state.sprite, /\/maps\/kirchberg-light\//);
});

step('/ with a service token: the account’s keys to pick from, the token not kept; Forget key asks again', async () => {
  await page.goto(`${origin}/`);
  await page.locator('button[name=forget-key]').click();
  await page.locator('input[name=service-token]').waitFor();
  await page.fill('input[name=service-token]', serviceToken);
  await page.locator('form.key-signin button').click();
  await page.locator('select[name=account-key]').waitFor();
  assert.equal(await page.inputValue('input[name=service-token]'), '', 'the token is cleared');
  await page.getByRole('button', { name: 'Use this key' }).last().click();
  await page.locator('.map-card').nth(listed.length - 1).waitFor();
  const stored = (await page.evaluate('JSON.stringify(Object.entries(sessionStorage))')) as string;
  assert.ok(stored.includes(key), 'the chosen key is kept in the tab');
  assert.ok(!stored.includes(serviceToken), 'the service token is not kept');
  assert.ok(!(await page.content()).includes(serviceToken));
});

step('the API reference is a readable page of this server’s OpenAPI document, linked from /', async () => {
  await page.goto(`${origin}/`);
  await page.locator('nav a[href="/api-reference/"]').click();
  await page.waitForURL(`${origin}/api-reference/`);
  await page.locator('.opblock-summary-path', { hasText: '/maps/{mapId}/style.json' }).first().waitFor({ timeout: 30_000 });
  assert.ok((await page.locator('.opblock').count()) > 20);
  await page.screenshot({ path: path.join(artifacts, 'api-reference.png') });
});

test('no page error and no blocked resource', () => {
  assert.deepEqual(pageErrors, []);
});
