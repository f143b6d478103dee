/**
 * A sprite under the icon names the Protomaps basemap styles ask for, so that the town's Protomaps
 * cases draw their icons: Protomaps' own sprites are published on the web only, not in a package.
 * POI icons are npm @mapbox/maki's (15 px), tinted by kind as Protomaps' light sprite groups them;
 * `townspot` and `capital` are maki's circle and star, `arrow` (one-way streets) maki's arrow, and
 * `generic_shield-<n>char` a road shield wide enough for n characters. Built by Meridian's own
 * `maps build-sprite` code (src/tools/sprite/build.ts), at 1x and @2x.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAKI_ICONS } from '../../../src/tools/osm/sprite.js';
import { buildSprite } from '../../../src/tools/sprite/build.js';

const FOOD = '#e0761e';
const CIVIC = '#6c6480';
const GREEN = '#3a8a4f';
const TRANSIT = '#3367c7';
const SHOP = '#b9489a';

/** Protomaps icon name: [maki icon, colour]. */
const ICONS: Record<string, [maki: string, color: string]> = {
  bar: ['bar', FOOD],
  books: ['library', SHOP],
  bus_stop: ['bus', TRANSIT],
  cafe: ['cafe', FOOD],
  capital: ['star', '#5b5b5b'],
  fast_food: ['fast-food', FOOD],
  library: ['library', CIVIC],
  marina: ['harbor', TRANSIT],
  museum: ['museum', CIVIC],
  park: ['park', GREEN],
  post_office: ['post', CIVIC],
  restaurant: ['restaurant', FOOD],
  school: ['school', CIVIC],
  supermarket: ['grocery', SHOP],
  townhall: ['town-hall', CIVIC],
  townspot: ['circle', '#5b5b5b'],
  train_station: ['rail', TRANSIT],
  arrow: ['arrow', '#a3a3a3'],
};

/** Shields for refs of 1 to 5 characters (the style shows none longer). */
const SHIELD_CHARS = [1, 2, 3, 4, 5];

function makiSvg(icon: string, color: string): string {
  const file = path.join(MAKI_ICONS, `${icon}.svg`);
  return readFileSync(file, 'utf8').replace('<svg ', `<svg fill="${color}" `);
}

function shieldSvg(chars: number): string {
  const width = 8 + 6 * chars;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="14" viewBox="0 0 ${width} 14">` +
    `<rect x="0.5" y="0.5" width="${width - 1}" height="13" rx="2.5" fill="#ffffff" stroke="#c3bcbf"/></svg>`
  );
}

/** Writes `<outBase>.json/.png` and `<outBase>@2x.json/.png`. */
export async function buildProtomapsSprite(outBase: string): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'meridian-protomaps-sprite-'));
  try {
    for (const [name, [icon, color]] of Object.entries(ICONS)) writeFileSync(path.join(dir, `${name}.svg`), makiSvg(icon, color));
    for (const chars of SHIELD_CHARS) writeFileSync(path.join(dir, `generic_shield-${chars}char.svg`), shieldSvg(chars));
    await buildSprite(dir, outBase);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
