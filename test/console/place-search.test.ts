/**
 * @oneDatabase the database only checks the key; what is tested is the search box in a browser.
 *
 * The place search box (console/src/place-search.ts: `@maplibre/maplibre-gl-geocoder` over
 * `/geocoding`) in Debian's Chromium, on a console map (the static-map builder) and on a map viewer,
 * against a real server with the world place index and the Kirchberg sample's index (built as
 * `maps import` builds it). Expected places come from the API itself, asked by the test, and from
 * GeoNames' own record of the city.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { launchChromium, collectPageErrors, browserStep } from '../chromium.js';
import { requirePeers } from '../peers.js';
import { tempDir } from '../scratch.js';
import { addSampleMap } from '../geocoding/extracts/samples.js';
import { until } from '../until.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = path.join(root, 'test-artifacts/place-search');

/** Zürich as GeoNames publishes it (geonames.org, record 2657896): latitude 47.36667, longitude 8.55. */
const ZURICH_GEONAMES = { lon: 8.55, lat: 47.36667 };

/** A map of the whole world that draws fast: a background and a box of land around Zürich. */
const style = {
  version: 8,
  sources: { land: { type: 'geojson', data: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[5, 45], [11, 45], [11, 49], [5, 49], [5, 45]]] } } } },
  layers: [
    { id: 'sea', type: 'background', paint: { 'background-color': '#4a90c8' } },
    { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#8fc98f' } },
  ],
};

let server: TestServer;
let origin: string;
let key: string;
let serviceToken: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

interface Feature {
  text: string;
  place_name: string;
  place_type: string[];
  center: [number, number];
}

before(async () => {
  requirePeers('chromium', 'osmSamples');
  if (!existsSync(path.join(root, 'dist/console/viewer.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', 'console', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  mkdirSync(artifacts, { recursive: true });
  const mapsDir = tempDir();
  const config = testConfig({ geocoding: { buildIndex: true }, maps: { dir: mapsDir, watch: false, definitions: { test: { style: style as never, maxzoom: 18 } } } });
  await addSampleMap(mapsDir, 'kirchberg', config.dataDir);
  server = await startTestServer(config);
  await server.server.geocoder.ready;
  origin = (await server.server.listen()).public;
  const account = await newAccount(server.meridian, 'search');
  serviceToken = account.auth.slice('Token '.length);
  const created = await server.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: account.auth, 'content-type': 'application/json' }, payload: JSON.stringify({ name: 'search' }) });
  key = (created.json() as { token: string }).token;

  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' })).newPage();
  collectPageErrors(page, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

/** The API's answer to `query`, asked as a program would (English names, as the browser's locale asks). */
async function geocode(query: string, extra = ''): Promise<Feature[]> {
  const response = await fetch(`${origin}/geocoding/${encodeURIComponent(query)}.json?key=${encodeURIComponent(key)}&language=en${extra}`);
  assert.equal(response.status, 200);
  return ((await response.json()) as { features: Feature[] }).features;
}

/** Distance in kilometres between two points (haversine on a sphere of 6,371 km). */
function km(a: { lon: number; lat: number }, b: { lon: number; lat: number }): number {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.sqrt(h));
}

/**
 * Types `text` into the search box of `mapBox` and waits for the suggestions the page got from
 * `/geocoding` for it (`asked`: the query of the path, when not the text): returns the suggestions shown and the API answer they came from (the page's
 * own request and response). All but the last letter is filled in at once: the control asks on a
 * key press, so the one press asks once, and no answer to a shorter text can arrive after it.
 */
async function suggest(mapBox: Locator, text: string, asked = encodeURIComponent(text)): Promise<{ shown: string[]; answer: Feature[]; url: URL }> {
  const input = mapBox.locator('.maplibregl-ctrl-geocoder input');
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === `/geocoding/${asked}.json`);
  await input.fill(text.slice(0, -1));
  await input.press(text.slice(-1));
  const response = await answered;
  assert.equal(response.status(), 200);
  const answer = ((await response.json()) as { features: Feature[] }).features;
  const items = mapBox.locator('.maplibregl-ctrl-geocoder .suggestions li');
  await until(async () => (await items.count()) === answer.length && (await items.first().isVisible()), 'the suggestions');
  return { shown: await items.allTextContents(), answer, url: new URL(response.url()) };
}

/** A suggestion shows the place name: its first part, then under it the rest. */
const shownAs = (feature: Feature) => feature.place_name.replace(', ', '');

/** Whether the search marker is drawn over the middle of the map (the point it marks is where the map is centred). */
async function markedAtCentre(mapBox: Locator): Promise<boolean> {
  const marker = (await mapBox.locator('.maplibregl-marker').boundingBox())!;
  const canvas = (await mapBox.locator('canvas').boundingBox())!;
  const [x, y] = [canvas.x + canvas.width / 2, canvas.y + canvas.height / 2];
  return Math.abs(marker.x + marker.width / 2 - x) < 2 && marker.y <= y && y <= marker.y + marker.height;
}

const step = (name: string, run: () => Promise<void>) => browserStep(name, run, () => page, artifacts);

step('the API finds Zürich where GeoNames has it, by its name and with a typo', async () => {
  // The independent check of what the pages are compared with below.
  for (const query of ['Zürich', 'Zuirch']) {
    const [first] = await geocode(query);
    assert.equal(first?.place_name, 'Zürich, Switzerland', query);
    assert.ok(km({ lon: first.center[0], lat: first.center[1] }, ZURICH_GEONAMES) < 1, `${query}: ${first.center}`);
  }
});

step('console: the static-map builder’s search box suggests places from /geocoding as one types, and flies to and marks the one chosen', async () => {
  await page.goto(`${origin}/console/#/signin`);
  await page.fill('input[name=token]', serviceToken);
  await page.click('button[type=submit]');
  await page.waitForURL(/#\/keys/);
  await page.goto(`${origin}/console/#/static`);
  const mapBox = page.locator('#builder-map');
  await page.locator('#builder-map[data-ready=true]').waitFor();

  // A prefix: autocomplete finds the city before its name is typed out.
  const { shown, answer, url } = await suggest(mapBox, 'Züri');
  assert.equal(url.searchParams.get('key'), key, 'asked with the chosen key');
  assert.ok(answer.length > 0);
  assert.deepEqual(shown, answer.map(shownAs), 'every suggestion is a feature of the answer, in its order');
  const zurich = answer.findIndex((feature) => feature.place_name === 'Zürich, Switzerland');
  assert.ok(zurich >= 0, `Zürich among ${shown.join(' | ')}`);
  const expected = (await geocode('Zürich'))[0]!;
  await page.screenshot({ path: path.join(artifacts, 'console-suggestions.png') });

  await mapBox.locator('.maplibregl-ctrl-geocoder .suggestions li').nth(zurich).click();
  // The builder's URL follows the frame's centre (five decimals): it shows where the map went.
  await until(async () => {
    const centre = /\/static\/(-?[\d.]+),(-?[\d.]+),[\d.]+\//.exec(await page.inputValue('input[name=static-url]'));
    return !!centre && Math.abs(Number(centre[1]) - expected.center[0]) < 1e-4 && Math.abs(Number(centre[2]) - expected.center[1]) < 1e-4;
  }, 'the map to centre on Zürich');
  const centre = /\/static\/(-?[\d.]+),(-?[\d.]+),/.exec(await page.inputValue('input[name=static-url]'))!;
  assert.ok(km({ lon: Number(centre[1]), lat: Number(centre[2]) }, ZURICH_GEONAMES) < 1, 'where GeoNames has Zürich');
  assert.equal(await mapBox.locator('.maplibregl-ctrl-geocoder input').inputValue(), 'Zürich');
  assert.equal(await mapBox.locator('.maplibregl-marker').count(), 1, 'one marker: the place chosen');
  assert.ok(await markedAtCentre(mapBox), 'the marker is at the centre');
  await page.screenshot({ path: path.join(artifacts, 'console.png') });
});

step('viewer: a typo still finds the place, chosen with the keyboard; the map flies there and marks it', async () => {
  await page.goto(`${origin}/maps/test/viewer`);
  await page.fill('input[name=api-key]', key);
  await page.locator('form.key-paste button').click();
  const mapBox = page.locator('#viewer-map');
  await mapBox.locator('.maplibregl-ctrl-geocoder input').waitFor();
  const opened = (await page.evaluate('window.meridianViewer.getCenter().toArray()')) as [number, number];
  assert.ok(km({ lon: opened[0], lat: opened[1] }, ZURICH_GEONAMES) > 100, 'the viewer opens away from Zürich');

  const { shown, answer } = await suggest(mapBox, 'Zuirch');
  assert.deepEqual(shown, answer.map(shownAs));
  assert.equal(answer[0]?.place_name, 'Zürich, Switzerland', 'fuzzyMatch: the typo finds Zürich first');
  const expected = (await geocode('Zuirch'))[0]!;

  const input = mapBox.locator('.maplibregl-ctrl-geocoder input');
  await input.press('ArrowDown');
  await input.press('Enter');
  await until(async () => {
    const [lon, lat] = (await page.evaluate('window.meridianViewer.getCenter().toArray()')) as [number, number];
    return Math.abs(lon - expected.center[0]) < 1e-6 && Math.abs(lat - expected.center[1]) < 1e-6;
  }, 'the map to centre on Zürich');
  const [lon, lat] = (await page.evaluate('window.meridianViewer.getCenter().toArray()')) as [number, number];
  assert.ok(km({ lon, lat }, ZURICH_GEONAMES) < 1, 'where GeoNames has Zürich');
  assert.equal(await mapBox.locator('.maplibregl-marker').count(), 1, 'one marker: the place chosen');
  assert.ok(await markedAtCentre(mapBox), 'the marker is at the centre');
  await page.screenshot({ path: path.join(artifacts, 'viewer.png') });
});

step('viewer: latitude, longitude typed in names the place there (a reverse lookup), and choosing it flies there', async () => {
  const mapBox = page.locator('#viewer-map');
  await page.evaluate('window.meridianViewer.jumpTo({ center: [0, 0], zoom: 2 })');
  // The control reads "latitude, longitude" and asks for one feature; the API takes longitude,latitude.
  // A space after the numbers, as a paste may bring, is still a position.
  const { shown, answer } = await suggest(mapBox, '47.3667, 8.55 ', '8.55,47.3667');
  const expected = await geocode('8.55,47.3667', '&limit=1');
  assert.deepEqual(answer.map((f) => f.place_name), expected.map((f) => f.place_name));
  assert.match(expected[0]!.place_name, /Zürich.*, Switzerland$/);
  assert.deepEqual(shown, answer.map(shownAs));
  await mapBox.locator('.maplibregl-ctrl-geocoder .suggestions li').first().click();
  await until(async () => {
    const [lon, lat] = (await page.evaluate('window.meridianViewer.getCenter().toArray()')) as [number, number];
    return Math.abs(lon - expected[0]!.center[0]) < 1e-6 && Math.abs(lat - expected[0]!.center[1]) < 1e-6;
  }, 'the map to centre on the place found');
});

step('viewer: a country whose box crosses the antimeridian is framed across it, not across the rest of the world', async () => {
  const mapBox = page.locator('#viewer-map');
  const [russia] = await geocode('Russia', '&types=country');
  const [west, , east] = (russia as Feature & { bbox: number[] }).bbox as [number, number, number, number];
  assert.ok(west > east, `Russia's box crosses the antimeridian: ${west} > ${east}`);
  // Longitude is linear in Web Mercator: the fitted view's centre is the box's middle, going east from its west edge.
  const middle = (west + east + 360) / 2;
  // Zoomed in on the place found before: places near the map's centre rank higher. The control
  // takes the centre as its proximity on `moveend`: on a busy machine the flight may still be ending.
  await until(async () => !(await page.evaluate('window.meridianViewer.isMoving()')), 'the flight to end');
  const [zoom, centre] = (await page.evaluate('[window.meridianViewer.getZoom(), window.meridianViewer.getCenter().toArray()]')) as [number, [number, number]];
  assert.ok(zoom > 9, `zoom ${zoom}`);
  const { answer, url } = await suggest(mapBox, 'Russia');
  const proximity = url.searchParams.get('proximity')!.split(',').map(Number);
  assert.ok(Math.abs(proximity[0]! - centre[0]) < 1e-6 && Math.abs(proximity[1]! - centre[1]) < 1e-6, `proximity ${proximity}, centre ${centre}`);
  const index = answer.findIndex((feature) => feature.place_name === russia!.place_name);
  assert.ok(index >= 0);
  await mapBox.locator('.maplibregl-ctrl-geocoder .suggestions li').nth(index).click();
  await until(async () => {
    const [lon] = (await page.evaluate('window.meridianViewer.getCenter().wrap().toArray()')) as [number, number];
    return Math.abs(lon - middle) < 0.01;
  }, `the map to centre on longitude ${middle}`);
});

step('viewer: an address of an imported map is suggested and kept with its number, and flown to', async () => {
  const mapBox = page.locator('#viewer-map');
  const { shown, answer } = await suggest(mapBox, 'Haydnstraße 5');
  assert.deepEqual(shown, answer.map(shownAs));
  const expected = answer[0]!;
  assert.deepEqual([expected.place_type, expected.place_name], [['address'], 'Haydnstraße 5, Kirchberg an der Iller, Baden-Württemberg, Germany']);
  await mapBox.locator('.maplibregl-ctrl-geocoder .suggestions li').first().click();
  await until(async () => {
    const [lon, lat] = (await page.evaluate('window.meridianViewer.getCenter().toArray()')) as [number, number];
    return Math.abs(lon - expected.center[0]) < 1e-6 && Math.abs(lat - expected.center[1]) < 1e-6;
  }, 'the map to centre on the address');
  assert.equal(await mapBox.locator('.maplibregl-ctrl-geocoder input').inputValue(), 'Haydnstraße 5', 'the box keeps the number');
  await page.screenshot({ path: path.join(artifacts, 'viewer-address.png') });
});

step('viewer: a name holding markup is shown as text, not made into elements', async () => {
  // No name of the world index holds markup, and imported OpenStreetMap names may: the API's real
  // answer is given a name with an element in it on its way to the page.
  await page.route('**/geocoding/**', async (route) => {
    const response = await route.fetch();
    const body = (await response.json()) as { features: Feature[] };
    for (const feature of body.features) {
      feature.text = `<img src="x">${feature.text}`;
      feature.place_name = `<img src="x">${feature.place_name}`;
    }
    await route.fulfill({ response, json: body });
  });
  const mapBox = page.locator('#viewer-map');
  const { shown } = await suggest(mapBox, 'Basel');
  await page.unroute('**/geocoding/**');
  assert.ok(shown.length > 0 && shown.every((text) => text.startsWith('<img src="x">')), shown.join(' | '));
  assert.equal(await mapBox.locator('.suggestions img').count(), 0);
});

test('the pages raised no script errors and no Content Security Policy violations', () => {
  assert.deepEqual(pageErrors, []);
});
