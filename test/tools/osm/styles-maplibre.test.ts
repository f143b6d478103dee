/**
 * The streets, light and dark styles, as the import publishes them over the real samples
 * (test/fixtures/render/_data/streets, street-fixtures.ts), load and draw in MapLibre GL JS 6.17 in
 * Chromium without a warning or an error: none in the console of the page or of its workers (where
 * MapLibre reports a missing sprite image or an expression that fails on a feature), no error event
 * of the map, no error in the page.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { ConsoleMessage, Page } from 'playwright-core';
import { STYLES } from '../../../src/tools/osm/sprite.js';
import { fixturesDir } from '../../render/suite/cases.js';
import { openPage, render, styleFor, type OpenPage } from '../../render/suite/maplibre-page.js';

const SAMPLES = { oakland: [-122.3004, 37.8076], kirchberg: [10.0695, 48.136] } as const;
/** The world beneath at zoom 12, the whole street map at 14, the labels of every layer at 17. */
const ZOOMS = [12, 14, 17];

let opened: OpenPage | undefined;
let origin: string;
let page: Page;
const messages: string[] = [];
const missing: string[] = [];

before(async () => {
  opened = await openPage(missing);
  ({ page, origin } = opened);
  // Listened to only now: the page itself asks for a favicon the server does not have.
  const keep = (where: string) => (message: ConsoleMessage) => {
    if (message.type() === 'warning' || message.type() === 'error') messages.push(`${where} ${message.type()}: ${message.text()}`);
  };
  page.on('console', keep('page'));
  page.on('worker', (worker) => worker.on('console', keep('worker')));
  page.on('pageerror', (error) => messages.push(`page error: ${error.message}`));
});

after(async () => {
  await opened?.close();
});

for (const [sample, center] of Object.entries(SAMPLES)) {
  for (const name of STYLES) {
    test(`${name} over ${sample} loads in MapLibre GL JS without a warning or an error at zooms ${ZOOMS.join(', ')}`, async () => {
      const style = styleFor(path.join(fixturesDir, '_data/streets', `${sample}-${name}.json`), origin);
      const problems: string[] = [];
      for (const zoom of ZOOMS) {
        messages.length = 0;
        missing.length = 0;
        const { errors } = await render(page, style, { center: [center[0], center[1]], zoom, width: 512, height: 512, pixelRatio: 1 });
        problems.push(...[...errors, ...messages, ...missing.map((file) => `not found: ${file}`)].map((problem) => `zoom ${zoom}: ${problem}`));
      }
      assert.deepEqual(problems, []);
    });
  }
}
