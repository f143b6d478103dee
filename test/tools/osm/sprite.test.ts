import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { loadSprite } from '../../../src/render/sprite/sprite.js';
import { buildStreetSprite, STYLES, styleImages } from '../../../src/tools/osm/sprite.js';
import { tempDir } from '../../scratch.js';
import { readStyle } from './street-maps.js';

test('the sprite holds, at 1x and @2x, every image the street styles name: maki icons as SDFs, stretchable shields', async () => {
  const out = path.join(tempDir(), 'sprite');
  await buildStreetSprite(out);
  const named = new Set(STYLES.flatMap((name) => styleImages(readStyle(name))));
  // Some of them, by hand: POI icons, the default dot, oneway arrows, airports, peaks, shields.
  for (const name of ['restaurant', 'grocery', 'hospital', 'bus', 'circle', 'arrow', 'airport', 'mountain', 'shield', 'shield-motorway']) assert.ok(named.has(name), name);
  for (const ratio of [1, 2]) {
    const { images, errors } = await loadSprite(out, ratio);
    assert.deepEqual(errors, []);
    for (const name of named) {
      const image = images.image(name);
      assert.ok(image, `${name} @${ratio}x`);
      assert.equal(image.pixelRatio, ratio);
    }
    // maki's restaurant.svg is 15 px square; as an SDF it gains 4 px of halo room on each side.
    const restaurant = images.image('restaurant')!;
    assert.equal(restaurant.sdf, true);
    assert.deepEqual([restaurant.width, restaurant.height, restaurant.image.width], [23, 23, 23 * ratio]);
    const shield = images.image('shield')!;
    assert.equal(shield.sdf, false);
    assert.deepEqual(shield.content, [3 * ratio, 3 * ratio, 17 * ratio, 13 * ratio]);
  }
});

test('styleImages reads the outputs of match, case, step and coalesce, and refuses a computed name', () => {
  const style = (iconImage: unknown) =>
    ({ version: 8, sources: {}, layers: [{ id: 'icons', type: 'symbol', source: 's', layout: { 'icon-image': iconImage } }] }) as never;
  assert.deepEqual(styleImages(style(['match', ['get', 'class'], 'bar', 'beer', ['cafe', 'tea'], 'cafe', 'circle'])), ['beer', 'cafe', 'circle']);
  assert.deepEqual(styleImages(style(['case', ['has', 'ref'], 'shield', ['step', ['zoom'], 'dot', 14, 'pin']])), ['dot', 'pin', 'shield']);
  assert.throws(() => styleImages(style(['get', 'class'])), /computes its name with "get"/);
  assert.throws(() => styleImages(style('{class}_11')), /has tokens/);
});
