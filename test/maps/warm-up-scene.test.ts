/**
 * The scene render threads draw while they warm up: it loads from nothing but itself and draws what
 * it is there to compile (street lines, names along them and places, with halos), with the fonts an
 * installation has; a warm-up resolves whether it draws every view or is aborted.
 *
 * @oneDatabase the render code reads no database.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installedFonts, loadMap } from '../../src/maps/registry.js';
import { plainImageJob, renderStaticImage } from '../../src/maps/static/static-image.js';
import { drawWarmUpScene, warmUpStyle } from '../../src/maps/warm-up-scene.js';
import { TileCache } from '../../src/render/source/cache.js';
import { cleanUp, testConfig } from '../helpers.js';
import { colours } from '../tools/osm/street-maps.js';

const config = testConfig();
const fonts = () => installedFonts(config.dataDir);

/** Pixels within 12 of a colour, in the scene drawn at 512x512 around its centre. */
async function pixelsNear(wanted: [number, number, number][]): Promise<number[]> {
  const map = await loadMap('warm-up', { style: warmUpStyle() }, '.', { cache: new TileCache(8 * 2 ** 20), fonts });
  try {
    const job = { ...plainImageJob({ center: [0, 0], zoom: 15.5, width: 512, height: 512, pixelRatio: 1 }, 'png'), attribution: 'false' as const };
    const counts = await colours(await renderStaticImage(map, job));
    return wanted.map((channels) => {
      let count = 0;
      for (const [hex, pixels] of counts) {
        const value = Number.parseInt(hex.slice(1), 16);
        if (channels.every((channel, i) => Math.abs(((value >> (16 - 8 * i)) & 255) - channel) <= 12)) count += pixels;
      }
      return count;
    });
  } finally {
    await map.close();
  }
}

test('the scene draws streets, the main one in its colour, and dark label text', async () => {
  const [ground, primary, text] = await pixelsNear([
    [0xf2, 0xef, 0xe9],
    [0xfc, 0xd6, 0xa4],
    [0x33, 0x33, 0x33],
  ]);
  assert.ok(ground! > 20_000, `${ground} pixels of ground`);
  assert.ok(primary! > 1_000, `${primary} pixels of the main street`);
  // Street names are 12 px text in #333333: their cores, antialiased edges aside (about 240 here).
  assert.ok(text! > 100, `${text} pixels of label text`);
});

test('the warm-up draws its views, and resolves as well when aborted before it starts', async () => {
  await drawWarmUpScene({ fonts }, AbortSignal.timeout(60_000));
  await drawWarmUpScene({ fonts }, AbortSignal.abort());
});

test.after(() => cleanUp(config));
