/**
 * The console in a real browser (Debian's Chromium through playwright-core) against a real
 * server: sign in, keys, the static-map builder, the weather viewer and coordinates search. A
 * screenshot of each page goes to test-artifacts/console/.
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { decode } from 'fast-png';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { ingestFiles } from '../../src/weather/ingest.js';
import { buildKeyframe } from '../../src/weather/tileset.js';
import { defaultVariables } from '../../src/weather/variables.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { launchChromium, collectPageErrors, browserStep } from '../chromium.js';
import { GRIB_EXAMPLES, requirePeers } from '../peers.js';
import { globalField } from '../weather/fields.js';
import { until } from '../until.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const artifacts = path.join(root, 'test-artifacts/console');
const gfsSample = path.join(GRIB_EXAMPLES, 'gfs.t12z.pgrbf120.2p5deg.grib2');
const safricaSample = path.join(GRIB_EXAMPLES, 'safrica.grib2');

/** A small map: blue sea, a green square of land around 0,0, and a label out at sea (away from the land the builder's test measures). */
const style = {
  version: 8,
  sources: {
    land: {
      type: 'geojson',
      attribution: '© Test Data',
      data: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-20, -20], [20, -20], [20, 20], [-20, 20], [-20, -20]]] } },
    },
    places: { type: 'geojson', data: { type: 'Feature', properties: { name: 'Open Sea' }, geometry: { type: 'Point', coordinates: [60, -40] } } },
  },
  layers: [
    { id: 'sea', type: 'background', paint: { 'background-color': '#4a90c8' } },
    { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': '#8fc98f' } },
    { id: 'place-labels', type: 'symbol', source: 'places', layout: { 'text-field': ['get', 'name'], 'text-font': ['Noto Sans Regular'] } },
  ],
};

let server: TestServer;
let origin: string;
let serviceToken: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  // CI must run this test, not skip it: say what is missing.
  requirePeers('chromium', 'gribExamples', 'proj');
  if (!existsSync(path.join(root, 'dist/console/index.html'))) {
    execFileSync(path.join(root, 'node_modules/.bin/vite'), ['build', 'console', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  }
  mkdirSync(artifacts, { recursive: true });

  // `test` covers the world (a GeoJSON source claims it); `test-sea` is the same style recorded, as
  // `maps add` records an archive's, with its data and opening view out at sea.
  const definitions = { test: { style: style as never, maxzoom: 12 }, 'test-sea': { style: style as never, maxzoom: 12, bounds: [55, -45, 65, -35], center: [60, -40, 5] } };
  server = await startTestServer(testConfig({ maps: { definitions: definitions as never } }));
  origin = (await server.server.listen()).public;
  const { meridian } = server;
  serviceToken = (await newAccount(meridian, 'console')).auth.slice('Token '.length);

  await ingestFiles(meridian.weather, meridian.weatherDirectory, [gfsSample], { model: 'gfs', attribution: 'GFS', variables: defaultVariables, format: 'png', keepRuns: 1 });
  // The quick start's second sample (scripts/prepare-data.sh), as it ingests it: a 3-hourly run.
  await ingestFiles(meridian.weather, meridian.weatherDirectory, [safricaSample], { model: 'safrica', attribution: 'NCEP', variables: defaultVariables, format: 'png', keepRuns: 1 });
  // Two keyframes 3 h apart whose values differ by 3 °C everywhere: what lies between them is interpolation.
  const temperature = defaultVariables.find((v) => v.id === 'temperature-2m')!;
  const reference = new Date('2026-11-22T00:00:00Z');
  const keyframes = [];
  for (const hours of [0, 3]) {
    keyframes.push(
      await buildKeyframe(meridian.weatherDirectory, globalField(1, (_lon, lat) => lat / 2 + hours), {
        variable: temperature,
        model: 'synthetic',
        attribution: 'Test',
        referenceTime: reference,
        validTime: new Date(reference.getTime() + hours * 3_600_000),
        maxZoom: 1,
        format: 'png',
      }),
    );
  }
  await meridian.weather.publish('synthetic', reference, keyframes, 1);

  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  page = await context.newPage();
  collectPageErrors(page, pageErrors);
});

after(async () => {
  await browser?.close();
  await server?.close();
});

const shot = (name: string) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

/**
 * Where the test map's green land lies in a screenshot of `element`, as fractions of its width and
 * height: [left, top, right, bottom]. The land's edges are what the frame and the image are compared by.
 */
async function landBox(element: Locator): Promise<[number, number, number, number]> {
  const png = decode(await element.screenshot());
  const channels = png.channels;
  let [left, top, right, bottom] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = 0; y < png.height; y++) {
    for (let x = 0; x < png.width; x++) {
      const i = (y * png.width + x) * channels;
      const [r, g, b] = [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
      // #8fc98f land against #4a90c8 sea: green well above both other channels.
      if (g > 175 && g - b > 30 && g - r > 30) {
        left = Math.min(left, x);
        right = Math.max(right, x + 1);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y + 1);
      }
    }
  }
  assert.ok(right > left, 'the land is in the screenshot');
  return [left / png.width, top / png.height, right / png.width, bottom / png.height];
}

/** The frame and the image show the same area: the land sits at the same fractions of both (within a pixel or two). */
async function assertFrameMatchesImage(what: string): Promise<void> {
  await page.waitForTimeout(300);
  const frame = await landBox(page.locator('#builder-map canvas'));
  const image = await landBox(page.locator('#static-image'));
  for (let i = 0; i < 4; i++) assert.ok(Math.abs(frame[i]! - image[i]!) < 0.006, `${what}: land in the frame ${frame.map((f) => f.toFixed(3))}, in the image ${image.map((f) => f.toFixed(3))}`);
}

/** A browser step: when it fails, a screenshot of the page shows why. */
const step = (name: string, run: () => Promise<void>) => browserStep(name, run, () => page, artifacts);

step('/console redirects to the console, which asks for a service token and refuses a wrong one', async () => {
  await page.goto(`${origin}/console`);
  assert.equal(new URL(page.url()).pathname, '/console/');
  await page.waitForURL(/#\/signin/);
  await page.fill('input[name=token]', 'mst_wrong');
  await page.click('button[type=submit]');
  // The console's own words, not the API's (`send Authorization: Token …` is for programs).
  await page.locator('.message.error').filter({ hasText: 'This service token was not accepted' }).waitFor();
  assert.equal(await page.locator('.message.error', { hasText: 'Authorization' }).count(), 0);
  await shot('signin');
  await page.fill('input[name=token]', serviceToken);
  await page.click('button[type=submit]');
  await page.waitForURL(/#\/keys/);
  await page.locator('td.empty', { hasText: 'No keys yet.' }).waitFor();
  assert.equal(await page.evaluate('document.cookie'), '', 'no cookie holds the token');
  assert.equal(await page.evaluate('localStorage.length'), 0, 'nor localStorage');
});

step('keys: creates a key, copies its token, edits it and deletes another after confirming', async () => {
  await page.fill('.settings-form input[name=description]', 'Console test');
  await page.fill('.settings-form textarea[name=origins]', '127.0.0.1');
  await page.click('.settings-form button[type=submit]');
  await page.locator('.message.notice', { hasText: 'Created' }).waitFor();
  const listed = await server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: `Token ${serviceToken}` } });
  const [key] = listed.json().items as { id: string; token: string; name: string }[];
  assert.ok(key);
  const row = page.locator(`tr[data-key-id="${key.id}"]`);
  await row.getByText('Console test').waitFor();

  await row.getByRole('button', { name: 'Copy token' }).click();
  await row.getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate('navigator.clipboard.readText()'), key.token);

  await row.getByRole('button', { name: 'Edit' }).click();
  await page.fill('dialog input[name=description]', 'Console test, edited');
  await page.click('dialog button[type=submit]');
  await row.getByText('Console test, edited').waitFor();

  // A rate limit and a monthly quota of its own, shown in the list and stored; half a rate limit is refused.
  const stored = async () => (await server.server.admin.inject({ method: 'GET', url: `/v1/api_keys/${key.id}`, headers: { authorization: `Token ${serviceToken}` } })).json();
  await row.getByRole('button', { name: 'Edit' }).click();
  await page.fill('dialog input[name=requests_per_second]', '2.5');
  await page.fill('dialog input[name=requests_per_month]', '500');
  await page.click('dialog button[type=submit]');
  await page.locator('dialog .message.error', { hasText: 'Give both the requests a second and the burst' }).waitFor();
  await page.fill('dialog input[name=burst]', '4');
  await page.click('dialog button[type=submit]');
  await row.locator('td.limits', { hasText: '2.5/s, burst 4; 500 a month' }).waitFor();
  const limited = await stored();
  assert.deepEqual([limited.rate_limit, limited.quota], [{ requests_per_second: 2.5, burst: 4 }, { requests_per_month: 500 }]);
  await shot('keys-limits');
  // Emptied: the server's limit and no quota again (the later pages use this key freely).
  await row.getByRole('button', { name: 'Edit' }).click();
  assert.equal(await page.inputValue('dialog input[name=burst]'), '4', 'the form shows the key’s limit');
  for (const name of ['requests_per_second', 'burst', 'requests_per_month']) await page.fill(`dialog input[name=${name}]`, '');
  await page.click('dialog button[type=submit]');
  await row.locator('td.limits', { hasText: "server's rate limit; no quota" }).waitFor();
  const cleared = await stored();
  assert.deepEqual([cleared.rate_limit, cleared.quota], [null, null]);

  await page.fill('.settings-form input[name=description]', 'Temporary');
  await page.click('.settings-form button[type=submit]');
  const temporary = page.locator('tr', { hasText: 'Temporary' });
  await temporary.waitFor();
  await page.locator('.summary', { hasText: '1–2 of 2' }).waitFor();
  await temporary.getByRole('button', { name: 'Delete' }).click();
  await page.locator('dialog').getByRole('button', { name: /^Delete key-/ }).click();
  await temporary.waitFor({ state: 'detached' });
  await page.locator('.summary', { hasText: '1–1 of 1' }).waitFor();
  await shot('keys');
});

step('static maps: the view and a clicked marker make a static URL whose image loads beside the map', async () => {
  await page.goto(`${origin}/console/#/static`);
  await page.locator('#builder-map[data-ready=true]').waitFor();
  assert.equal(await page.locator('.pane .message.notice').isVisible(), false, 'the interactive style of the map loaded');
  await page.locator('#static-image[data-state=loaded]').waitFor();
  // The frame is narrower than the 600-px image (the comparison would prove nothing otherwise).
  const frameWidth = (await page.locator('#builder-map canvas').boundingBox())!.width;
  assert.ok(Math.abs(frameWidth - 600) > 30, `frame ${frameWidth} px wide`);
  await assertFrameMatchesImage('centre and zoom');
  await page.selectOption('select[name=mode]', 'bounds');
  await until(async () => /\/static\/[^/,]+(,[^/,]+){3}\//.test(await page.inputValue('input[name=static-url]')), 'a static URL of bounds');
  await page.locator('#static-image[data-state=loaded]').waitFor();
  await assertFrameMatchesImage('bounds');
  await page.selectOption('select[name=mode]', 'center');
  await until(async () => /\/static\/[^/,]+(,[^/,]+){2}\//.test(await page.inputValue('input[name=static-url]')), 'a static URL of centre and zoom');

  await page.selectOption('select[name=tool]', 'marker');
  const box = (await page.locator('#builder-map canvas').boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await until(async () => (await page.inputValue('input[name=static-url]')).includes('markers='), 'a static URL with markers');
  await page.locator('#static-image[data-state=loaded]').waitFor();
  const url = new URL(await page.inputValue('input[name=static-url]'));
  assert.match(url.pathname, /^\/api\/maps\/test\/static\/-?[\d.]+,-?[\d.]+,[\d.]+\/600x400\.png$/);
  assert.match(url.searchParams.get('markers')!, /^-?[\d.]+,-?[\d.]+,#e4572e$/);
  await page.locator('.image-status', { hasText: /^600 × 400 px PNG/ }).waitFor();

  // Auto fits the markers: the frame moves to show what the image will.
  await page.mouse.click(box.x + box.width * 0.2, box.y + box.height * 0.7);
  await until(async () => new URL(await page.inputValue('input[name=static-url]')).searchParams.get('markers')?.split('|').length === 2, 'a static URL with two markers');
  await page.selectOption('select[name=mode]', 'auto');
  await until(async () => /\/static\/auto\//.test(await page.inputValue('input[name=static-url]')), 'a static URL of auto');
  await page.locator('#static-image[data-state=loaded]').waitFor();
  await assertFrameMatchesImage('auto');
  await page.selectOption('select[name=mode]', 'center');
  await until(async () => /\/static\/[^/,]+(,[^/,]+){2}\//.test(await page.inputValue('input[name=static-url]')), 'a static URL of centre and zoom again');

  await page.check('input[name=retina]');
  await until(async () => (await page.inputValue('input[name=static-url]')).includes('@2x'), 'a static URL at @2x');
  await page.locator('#static-image[data-state=loaded]').waitFor();
  await page.locator('.image-status', { hasText: /^1200 × 800 px PNG/ }).waitFor();
  await shot('static');
});

/** Longitude and latitude of the static URL's centre form. */
async function staticCenter(): Promise<[string, number, number]> {
  const match = /\/api\/maps\/([^/]+)\/static\/(-?[\d.]+),(-?[\d.]+),[\d.]+\//.exec(await page.inputValue('input[name=static-url]'));
  return match ? [match[1]!, Number(match[2]), Number(match[3])] : ['', NaN, NaN];
}

step('static maps: picking a map moves the frame to where its data is', async () => {
  await page.goto('about:blank');
  await page.goto(`${origin}/console/#/static`);
  await page.locator('#builder-map[data-ready=true]').waitFor();
  const key = (await server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: `Token ${serviceToken}` } })).json().items[0].token as string;
  const maps = (await server.server.public.inject({ method: 'GET', url: `/maps?key=${key}`, headers: { origin } })).json().maps as { id: string; center: number[] }[];
  for (const id of ['test-sea', 'test']) {
    const [lon, lat] = maps.find((m) => m.id === id)!.center as [number, number];
    await page.selectOption('select[name=map]', id);
    await until(async () => {
      const [shown, x, y] = await staticCenter();
      return shown === id && Math.abs(x - lon) < 1e-3 && Math.abs(y - lat) < 1e-3;
    }, `the frame on ${id}'s centre ${lon},${lat} (the URL says ${(await staticCenter()).join(',')})`);
    await page.locator('#static-image[data-state=loaded]').waitFor();
  }
});

step('weather: the value under the cursor is interpolated between the two keyframes around the chosen time', async () => {
  await page.goto(`${origin}/console/#/weather`);
  await page.locator('#weather-map[data-ready=true]').waitFor();
  await page.selectOption('select[name=variable]', 'temperature-2m:synthetic');
  // Drawn under the basemap's labels, as static maps draw weather.
  assert.equal(await page.locator('#weather-map').getAttribute('data-weather-under'), 'place-labels');
  // Half-way between the keyframes of 00:00 (about 0 °C at the equator) and 03:00 (about 3 °C).
  await page.focus('input[name=time]');
  for (let i = 0; i < 90 / 5; i++) await page.keyboard.press('ArrowRight');
  await page.locator('#weather-time', { hasText: '2026-11-22 01:30 UTC' }).waitFor();
  const box = (await page.locator('#weather-map canvas').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await until(async () => Boolean(await page.locator('#weather-value').getAttribute('data-value')), 'a value under the cursor');
  const value = Number(await page.locator('#weather-value').getAttribute('data-value'));
  assert.ok(value > 0.6 && value < 2.4, `interpolated value ${value}`);
  assert.match(await page.locator('#weather-value').innerText(), /°C$/);
  await page.waitForTimeout(300);
  await shot('weather');

  await page.selectOption('select[name=variable]', 'wind-10m:gfs');
  await page.mouse.move(box.x + box.width / 2 + 40, box.y + box.height / 2 + 30);
  await page.locator('#weather-value', { hasText: /m\/s from \d+°/ }).waitFor();
});

step('weather: a variable whose tiles are loading says so, instead of the previous variable’s time, legend and value', async () => {
  await page.goto('about:blank');
  // The weather tiles wait until the test lets them through (then come from the server as they are).
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const tiles = /\/tiles\/[^/]+\/\d+\/\d+\/\d+\.(png|webp)/;
  await page.route(tiles, async (route) => {
    await held;
    await route.continue();
  });
  try {
    await page.goto(`${origin}/console/#/weather`);
    await page.locator('#weather-map[data-ready=true]').waitFor();
    await page.locator('#weather-loading', { hasText: 'Loading' }).waitFor();
    release();
    await page.locator('#weather-loading').waitFor({ state: 'hidden' });
    await page.locator('.legend-ticks span').first().waitFor();
    const firstLegend = await page.locator('.legend-slot').innerText();
    await page.unroute(tiles);
    let releaseNext!: () => void;
    const heldNext = new Promise<void>((resolve) => (releaseNext = resolve));
    await page.route(tiles, async (route) => {
      await heldNext;
      await route.continue();
    });
    await page.selectOption('select[name=variable]', 'temperature-2m:synthetic');
    const name = (await page.locator('select[name=variable] option:checked').innerText()).replace(/ \(.*$/, '');
    await page.locator('#weather-loading', { hasText: `Loading ${name}…` }).waitFor();
    assert.equal(await page.locator('.legend-slot').innerText(), '', `no legend while loading (it was ${firstLegend})`);
    // The time is the new variable's (the synthetic run's first keyframe), not the one shown before.
    assert.equal(await page.locator('#weather-time').innerText(), '2026-11-22 00:00 UTC');
    assert.equal(await page.locator('#weather-value').innerText(), `Loading ${name}…`);
    releaseNext();
    await page.locator('#weather-loading').waitFor({ state: 'hidden' });
    await page.locator('.legend-slot', { hasText: '°C' }).waitFor();
  } finally {
    release();
    await page.unroute(tiles);
  }
});

step('weather: the sample run with the most keyframes is shown first and plays; legend labels never overlap', async () => {
  // A fresh load (the page is at #/weather already: going there again would not draw it anew).
  await page.goto('about:blank');
  await page.goto(`${origin}/console/#/weather`);
  await page.locator('#weather-map[data-ready=true]').waitFor();
  // The quick start's 3-hourly sample: 25 keyframes, 72 hours.
  assert.equal(await page.inputValue('select[name=variable]'), 'precipitation-1h:safrica', (await page.locator('select[name=variable] option').allInnerTexts()).join());
  await page.locator('.variable-details', { hasText: /^25 keyframes/ }).waitFor();
  // The regional run fills the map: its centre lies within the run's grid.
  const listed = await server.server.admin.inject({ method: 'GET', url: '/v1/api_keys', headers: { authorization: `Token ${serviceToken}` } });
  const catalog = (await server.server.public.inject({ method: 'GET', url: `/weather/latest.json?key=${listed.json().items[0].token}`, headers: { origin } })).json();
  const safrica = catalog.variables.find((v: { metadata: { weather_variable: { variable_id: string } } }) => v.metadata.weather_variable.variable_id === 'precipitation-1h:safrica');
  const [west, south, east, north] = safrica.metadata.bounds as number[];
  const mapBox = (await page.locator('#weather-map canvas').boundingBox())!;
  await page.mouse.move(mapBox.x + mapBox.width / 2, mapBox.y + mapBox.height / 2);
  await page.locator('#weather-value', { hasText: /°, / }).waitFor();
  const [lat, lon] = (await page.locator('#weather-value').innerText()).split(':')[0]!.split(',').map((part) => parseFloat(part));
  assert.ok(lat! > south! && lat! < north! && lon! > west! && lon! < east!, `map centre ${lat}, ${lon} outside the run's grid ${[west, south, east, north]}`);
  await page.mouse.move(0, 0);
  const startLabel = await page.locator('#weather-time').innerText();
  await page.getByRole('button', { name: 'Play' }).click();
  await until(async () => Number(await page.inputValue('input[name=time]')) >= 3 * 60, 'the slider to play past the second keyframe');
  await page.getByRole('button', { name: 'Pause' }).click();
  const paused = await page.inputValue('input[name=time]');
  assert.notEqual(await page.locator('#weather-time').innerText(), startLabel);
  await page.waitForTimeout(500);
  assert.equal(await page.inputValue('input[name=time]'), paused, 'paused');
  await shot('weather-sample');

  const variables = await page.locator('select[name=variable] option').evaluateAll((options) => options.map((o) => o.getAttribute('value')!));
  assert.ok(variables.length >= 6, variables.join());
  for (const id of variables) {
    await page.selectOption('select[name=variable]', id);
    const ticks = page.locator('.legend-ticks span:visible');
    await ticks.first().waitFor();
    const boxes = [];
    for (let i = 0; i < (await ticks.count()); i++) boxes.push({ text: await ticks.nth(i).innerText(), box: (await ticks.nth(i).boundingBox())! });
    assert.ok(boxes.length >= 2, `${id}: the ends of the scale are labelled`);
    const all = await page.locator('.legend-ticks span').allInnerTexts();
    assert.deepEqual([boxes[0]!.text, boxes[boxes.length - 1]!.text], [all[0], all[all.length - 1]], `${id}: both ends labelled`);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i]!.box, boxes[j]!.box];
        const apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y;
        assert.ok(apart, `${id}: legend labels ${boxes[i]!.text} and ${boxes[j]!.text} overlap`);
      }
    }
  }
});

step('coordinates: a search shows results, a result its area and exports, and the transform form transforms', async () => {
  await page.goto(`${origin}/console/#/coordinates`);
  await page.locator('#area-map[data-ready=true]').waitFor();
  await page.fill('input[name=query]', 'swit');
  await page.click('.search-form button[type=submit]');
  const lv95 = page.locator('tr[data-code="2056"]');
  await lv95.waitFor();
  await lv95.click();
  await page.locator('.detail dd', { hasText: 'EPSG:2056' }).waitFor();
  await page.getByRole('button', { name: 'Show exports (PROJ, WKT)' }).click();
  assert.match(await page.locator('pre.export-proj4').innerText(), /\+proj=somerc/);

  await page.getByRole('button', { name: 'Transform to' }).click();
  await page.click('.transform-form button[type=submit]');
  // Metres to the millimetre, as cs2cs gives them (it reads EPSG:4326 in its own latitude, longitude order).
  const [east, north] = execFileSync('cs2cs', ['-d', '3', 'EPSG:4326', 'EPSG:2056'], { input: '46.95108 7.43863\n', encoding: 'utf8' }).trim().split(/\s+/);
  await page.locator('.transformed tbody td').first().filter({ hasText: /^\d+\.\d{3}$/ }).waitFor();
  const cells = async () => (await page.locator('.transformed tbody tr').first().locator('td.number').allInnerTexts());
  const metres = await cells();
  assert.ok(Math.abs(Number(metres[0]) - Number(east)) <= 0.002 && Math.abs(Number(metres[1]) - Number(north)) <= 0.002, `${metres} against cs2cs ${east} ${north}`);
  assert.match(metres[2]!, /^-?\d+\.\d{3}$/);
  // The operation PROJ applied, code and name: cs2cs applies the same (projinfo's only candidate, EPSG:1676 inverted, then the projection).
  const projinfo = execFileSync('projinfo', ['-s', 'EPSG:4326', '-t', 'EPSG:2056', '--summary'], { encoding: 'utf8' });
  const applied = await page.locator('.transformed tbody tr').first().locator('td.operation').innerText();
  assert.equal(applied, 'EPSG:1676 Inverse of CH1903+ to WGS 84 (1) + Swiss Oblique Mercator 1995');
  assert.ok(projinfo.includes(applied.replace(/^EPSG:1676 /, '')), projinfo);
  await page.locator('.transformed tbody tr').first().getByRole('button', { name: 'Copy' }).click();
  assert.equal(await page.evaluate('navigator.clipboard.readText()'), metres.join(','));
  await page.waitForTimeout(300);
  await shot('coordinates');

  // Degrees to nine decimals (about 0.1 mm), back from the metres.
  await page.fill('textarea[name=coordinates]', `${east},${north}`);
  await page.fill('input[name=s_srs]', '2056');
  await page.fill('input[name=t_srs]', '4326');
  await page.click('.transform-form button[type=submit]');
  await page.locator('.transformed tbody td').first().filter({ hasText: /^\d+\.\d{9}$/ }).waitFor();
  const [lat, lon] = execFileSync('cs2cs', ['-d', '9', 'EPSG:2056', 'EPSG:4326'], { input: `${east} ${north}\n`, encoding: 'utf8' }).trim().split(/\s+/);
  const degrees = await cells();
  assert.ok(Math.abs(Number(degrees[0]) - Number(lon)) < 2e-9 && Math.abs(Number(degrees[1]) - Number(lat)) < 2e-9, `${degrees} against cs2cs ${lon} ${lat}`);

  // A failed search says why beside the box and leaves no results of the previous one.
  await page.fill('input[name=query]', 'kind:NOSUCHKIND');
  await page.click('.search-form button[type=submit]');
  await page.locator('.search-form + .message.error').waitFor();
  assert.equal(await page.locator('tr[data-code]').count(), 0, 'the previous results are gone');
  assert.equal(await page.locator('.summary').innerText(), '');
  assert.equal(await page.locator('.detail dd').count(), 0, 'nor the details of one of them');
  await shot('coordinates-error');
});

step('a key restricted to another origin: each page says what to do instead of an empty map, and adding the origin works', async () => {
  const created = await server.server.admin.inject({
    method: 'POST',
    url: '/v1/api_keys',
    headers: { authorization: `Token ${serviceToken}` },
    payload: { name: 'elsewhere', origins: ['example.com'] },
  });
  const elsewhere = created.json() as { id: string };
  await page.goto(`${origin}/console/#/static`);
  await page.locator('#static-image[data-state=loaded]').waitFor();
  await page.selectOption('select[name=key]', elsewhere.id);
  const refused = page.locator('.key-refused');
  await refused.filter({ hasText: `restricted to the origins example.com, and this console is at ${origin}` }).waitFor();
  assert.equal(await page.locator('#builder-map').isVisible(), false, 'no empty map');
  assert.equal(await page.locator('#static-image').isVisible(), false, 'no broken image');
  await shot('static-refused-key');

  for (const [name, map] of [['weather', '#weather-map'], ['coordinates', '#area-map']]) {
    await page.goto(`${origin}/console/#/${name}`);
    await refused.filter({ hasText: 'elsewhere does not work on this page' }).waitFor();
    assert.equal(await page.locator(map!).isVisible(), false, `${name}: no empty map`);
  }

  await page.goto(`${origin}/console/#/static`);
  await refused.getByRole('button', { name: `Add ${origin} to elsewhere` }).click();
  await page.locator('#static-image[data-state=loaded]').waitFor();
  assert.equal(await refused.count(), 0);
  const changed = await server.server.admin.inject({ method: 'GET', url: `/v1/api_keys/${elsewhere.id}`, headers: { authorization: `Token ${serviceToken}` } });
  assert.deepEqual(changed.json().origins, ['example.com', origin]);
});

step('usage: per key a chart of requests per day by area, its total, last use, limits and quota used; the account totals and the rate limit', async () => {
  const created = await server.server.admin.inject({
    method: 'POST',
    url: '/v1/api_keys',
    headers: { authorization: `Token ${serviceToken}` },
    payload: { name: 'counted', rate_limit: { requests_per_second: 5, burst: 10 }, quota: { requests_per_month: 100 } },
  });
  const counted = created.json() as { id: string; token: string };
  const idle = (await server.server.admin.inject({ method: 'POST', url: '/v1/api_keys', headers: { authorization: `Token ${serviceToken}` }, payload: { name: 'idle' } })).json() as { id: string };
  // Requests the test makes itself: what the chart must show for this key today.
  const made = { maps: 2, coordinates: 1, keys: 3 };
  const started = Date.now();
  const get = (url: string) => server.server.public.inject({ method: 'GET', url: `${url}${url.includes('?') ? '&' : '?'}key=${counted.token}` });
  for (let i = 0; i < made.maps; i++) assert.equal((await get('/maps')).statusCode, 200);
  for (let i = 0; i < made.coordinates; i++) assert.equal((await get('/coordinates/search/wgs.json')).statusCode, 200);
  for (let i = 0; i < made.keys; i++) assert.equal((await get('/ping')).statusCode, 200);
  const ended = Date.now();

  await page.goto(`${origin}/console/#/usage`);
  const row = page.locator(`.usage-keys tr[data-key-id="${counted.id}"]`);
  await row.locator('svg.usage-chart').waitFor();
  assert.equal(await row.locator('td[data-total]').getAttribute('data-total'), '6');
  const today = new Date().toISOString().slice(0, 10);
  const bars = row.locator('rect[data-day]');
  const seen: Record<string, number> = {};
  const heights: Record<string, number> = {};
  for (let i = 0; i < (await bars.count()); i++) {
    const bar = bars.nth(i);
    assert.equal(await bar.getAttribute('data-day'), today);
    const area = (await bar.getAttribute('data-area'))!;
    seen[area] = Number(await bar.getAttribute('data-requests'));
    heights[area] = (await bar.boundingBox())!.height;
  }
  assert.deepEqual(seen, made);
  // Drawn to scale: segment heights in the ratio of the counts.
  assert.ok(Math.abs(heights.maps! / heights.keys! - 2 / 3) < 0.02 && Math.abs(heights.coordinates! / heights.keys! - 1 / 3) < 0.02, JSON.stringify(heights));
  const lastUsed = Date.parse((await row.locator('.last-used').innerText()).replace(' UTC', 'Z').replace(' ', 'T'));
  assert.ok(lastUsed >= Math.floor(started / 60_000) * 60_000 && lastUsed <= ended, `last used ${lastUsed}`);
  // A key not used in the period says so instead of an empty chart.
  await page.locator(`.usage-keys tr[data-key-id="${idle.id}"]`, { hasText: 'no requests' }).waitFor();
  assert.equal(await page.locator(`.usage-keys tr[data-key-id="${idle.id}"] .last-used`).innerText(), 'never');

  // The account's total is every key's, and its chart's bars for today add up to it.
  const keyTotals = await page.locator('.usage-keys td[data-total]').evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-total'))));
  const total = Number(await page.locator('.usage-total [data-total]').getAttribute('data-total'));
  assert.equal(total, keyTotals.reduce((a, b) => a + b, 0));
  const accountBars = await page.locator('.usage-summary rect[data-requests]').evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-requests'))));
  assert.equal(accountBars.reduce((a, b) => a + b, 0), total);
  assert.match(await page.locator('.rate-limit').innerText(), /^Server's rate limit: none/);
  // The key's own limits, and its quota used by the requests made above (all this month).
  assert.equal(await row.locator('td.limits').innerText(), '5/s, burst 10; 100 a month\n6 of 100 used this month');
  assert.match(await page.locator(`.usage-keys tr[data-key-id="${idle.id}"] td.limits`).innerText(), /^server's rate limit; no quota\n0 this month$/);
  await shot('usage');
});

step('static maps with an account that has no key: the page says to create one, and shows no empty map nor broken image', async () => {
  const empty = (await newAccount(server.meridian, 'no keys')).auth.slice('Token '.length);
  await page.goto(`${origin}/console/#/keys`);
  await page.evaluate('sessionStorage.clear()');
  await page.goto('about:blank');
  await page.goto(`${origin}/console/#/signin`);
  await page.fill('input[name=token]', empty);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/#\/keys/);
  await page.goto(`${origin}/console/#/static`);
  await page.locator('.no-key', { hasText: 'this account has none yet' }).waitFor();
  assert.equal(await page.locator('.no-key a[href="#/keys"]').count(), 1);
  assert.equal(await page.locator('#builder-map').isVisible(), false, 'no empty map');
  assert.equal(await page.locator('#static-image').isVisible(), false, 'no broken image');
  assert.equal(await page.locator('input[name=static-url]').isVisible(), false, 'no URL without a key');
  await shot('static-no-key');
  // Back to the account the other steps use.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.fill('input[name=token]', serviceToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/#\/keys/);
});

test('the pages raised no script errors and no Content Security Policy violations', () => {
  assert.deepEqual(pageErrors, []);
});

step('a refused service token ends the session with the console’s message', async () => {
  await server.meridian.accounts.revokeToken(serviceToken);
  // A fresh load of the keys page: its own request is refused.
  await page.goto('about:blank');
  await page.goto(`${origin}/console/#/keys`);
  await page.waitForURL(/#\/signin/);
  const refused = page.locator('.message.error', { hasText: 'This service token was not accepted: it may be mistyped, or revoked' });
  await refused.waitFor();
  // The message is the session's, not the page's: a reload (or a request of the page being left
  // that ended the session just before a new load) keeps it until the next sign-in.
  await page.reload();
  await refused.waitFor();
});
