/**
 * The maps over an archive in the Protomaps basemap schema (version 4): the five flavours of
 * @protomaps/basemaps (`layers(source, namedFlavor(name), { lang })`) as the maps `<id>` (light),
 * `<id>-dark`, `<id>-white`, `<id>-grayscale` and `<id>-black`. Labels are in English (the package's
 * example language), falling back to the local name; `language=xx` rewrites them as for any map.
 *
 * Protomaps publishes its glyphs and sprites on the web only (protomaps.github.io), so the styles
 * point elsewhere and nothing is fetched from outside at run time: glyphs come from Meridian's font
 * catalog (`meridian://fonts/…`, where Noto Sans, the flavours' font, is), and each flavour gets a
 * sprite of its own under the image names its layers ask for: POI icons from npm @mapbox/maki,
 * coloured as the flavour colours the POI's label (parks green, transit lapis…); `townspot` and
 * `capital` (maki's circle and star) in the colour of city labels; `arrow` (one-way streets) in the
 * colour of minor road labels; and road shields for refs of 1 to 5 characters. The US Interstate
 * and Dutch S-road shields the style names by network get the generic shield's shape, for want of
 * artwork of their own. Only the light and dark flavours show POIs.
 */

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { layers, namedFlavor, type Flavor, type Pois } from '@protomaps/basemaps';
import type { Progress } from '../../platform/progress.js';
import { writeSprite, type SpriteImage } from '../sprite/build.js';
import { writeJson } from '../write-json.js';
import { MAKI_ICONS } from './sprite.js';
import type { PublishedStyle } from './publish.js';

export const PROTOMAPS_FLAVOURS = [
  { flavour: 'light', suffix: '' },
  { flavour: 'dark', suffix: '-dark' },
  { flavour: 'white', suffix: '-white' },
  { flavour: 'grayscale', suffix: '-grayscale' },
  { flavour: 'black', suffix: '-black' },
] as const;
export type ProtomapsFlavour = (typeof PROTOMAPS_FLAVOURS)[number]['flavour'];
export const PROTOMAPS_SUFFIXES = PROTOMAPS_FLAVOURS.map(({ suffix }) => suffix);
export const PROTOMAPS_LANGUAGE = 'en';
/** The styles' source, as @protomaps/basemaps names it in its examples. */
export const PROTOMAPS_SOURCE = 'protomaps';

/** POI kinds the styles show: the maki icon, and the palette entry the style colours the label with. */
const POI_ICONS: Record<string, [maki: string, colour: keyof Pois]> = {
  beach: ['beach', 'green'],
  forest: ['park-alt1', 'green'],
  marina: ['harbor', 'green'],
  park: ['park', 'green'],
  peak: ['mountain', 'green'],
  zoo: ['zoo', 'green'],
  garden: ['garden', 'green'],
  bench: ['picnic-site', 'green'],
  aerodrome: ['airport', 'lapis'],
  // The style shows the kind `station` as the image `train_station`.
  train_station: ['rail', 'lapis'],
  bus_stop: ['bus', 'lapis'],
  ferry_terminal: ['ferry', 'lapis'],
  stadium: ['stadium', 'slategray'],
  university: ['college', 'slategray'],
  library: ['library', 'slategray'],
  school: ['school', 'slategray'],
  animal: ['veterinary', 'slategray'],
  toilets: ['toilet', 'slategray'],
  drinking_water: ['drinking-water', 'slategray'],
  post_office: ['post', 'slategray'],
  building: ['building', 'slategray'],
  townhall: ['town-hall', 'slategray'],
  supermarket: ['grocery', 'blue'],
  convenience: ['convenience', 'blue'],
  books: ['library', 'blue'],
  beauty: ['hairdresser', 'blue'],
  electronics: ['mobile-phone', 'blue'],
  clothes: ['clothing-store', 'blue'],
  restaurant: ['restaurant', 'tangerine'],
  fast_food: ['fast-food', 'tangerine'],
  cafe: ['cafe', 'tangerine'],
  bar: ['bar', 'tangerine'],
  attraction: ['attraction', 'pink'],
  museum: ['museum', 'pink'],
  theatre: ['theatre', 'pink'],
  artwork: ['art-gallery', 'pink'],
};

/** The style's shields: `<network prefix><n>char` for refs of n characters, at most 5. */
const SHIELD_PREFIXES = ['generic_shield-', 'US:I-', 'NL:S-road-'];
const SHIELD_CHARS = [1, 2, 3, 4, 5];

async function makiImage(name: string, icon: string, colour: string): Promise<SpriteImage> {
  const svg = (await readFile(path.join(MAKI_ICONS, `${icon}.svg`), 'utf8')).replace('<svg ', `<svg fill="${colour}" `);
  return { name, svg: Buffer.from(svg), options: {} };
}

function shield(name: string, chars: number, flavour: Flavor): SpriteImage {
  const width = 8 + 6 * chars;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="14" viewBox="0 0 ${width} 14">` +
    `<rect x="0.5" y="0.5" width="${width - 1}" height="13" rx="2.5" fill="${flavour.roads_label_major_halo}" stroke="${flavour.roads_label_major}"/></svg>`;
  return { name, svg: Buffer.from(svg), options: {} };
}

/** The images of a flavour's sprite. */
export async function protomapsImages(name: ProtomapsFlavour): Promise<SpriteImage[]> {
  const flavour = namedFlavor(name);
  const images = [
    await makiImage('townspot', 'circle', flavour.city_label),
    await makiImage('capital', 'star', flavour.city_label),
    await makiImage('arrow', 'arrow', flavour.roads_label_minor),
    ...SHIELD_PREFIXES.flatMap((prefix) => SHIELD_CHARS.map((chars) => shield(`${prefix}${chars}char`, chars, flavour))),
  ];
  const pois = flavour.pois;
  if (pois) for (const [kind, [icon, colour]] of Object.entries(POI_ICONS)) images.push(await makiImage(kind, icon, pois[colour]));
  return images;
}

export function protomapsStyle(name: ProtomapsFlavour, source: Record<string, unknown>): Record<string, unknown> {
  return {
    version: 8,
    name: `Protomaps ${name}`,
    glyphs: 'meridian://fonts/{fontstack}/{range}.pbf',
    sprite: `sprite-${name}`,
    sources: { [PROTOMAPS_SOURCE]: source },
    layers: layers(PROTOMAPS_SOURCE, namedFlavor(name), { lang: PROTOMAPS_LANGUAGE }),
  };
}

/** Writes the flavours' styles over `source` (a vector source on the archive) and their sprites into `dir`. */
export async function writeProtomapsMaps(dir: string, source: Record<string, unknown>, progress: Progress): Promise<PublishedStyle[]> {
  progress.phase('Styles and sprites', PROTOMAPS_FLAVOURS.length);
  const published: PublishedStyle[] = [];
  for (const [i, { flavour, suffix }] of PROTOMAPS_FLAVOURS.entries()) {
    await writeJson(path.join(dir, `${flavour}.json`), protomapsStyle(flavour, source));
    await writeSprite(await protomapsImages(flavour), path.join(dir, `sprite-${flavour}`));
    published.push({ style: `${flavour}.json`, suffix });
    progress.update(i + 1);
  }
  return published;
}
