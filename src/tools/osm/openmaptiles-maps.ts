/**
 * The maps over an archive in the OpenMapTiles schema, as `maps import` makes and `maps add` finds:
 * the street styles (streets, light, dark) with their `openmaptiles` source on the archive, the
 * `world` map drawn under them (or, without one, left out), and their sprite.
 */

import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Progress } from '../../platform/progress.js';
import type { PublishedStyle } from './publish.js';
import { writeJson } from '../write-json.js';
import { buildStreetSprite, readStreetStyle, type StreetStyle } from './sprite.js';

/** The styles over an OpenMapTiles archive, and the suffix of their map ids. */
export const OPENMAPTILES_MAPS: readonly { style: StreetStyle; suffix: string }[] = [
  { style: 'streets', suffix: '' },
  { style: 'light', suffix: '-light' },
  { style: 'dark', suffix: '-dark' },
];

export const OPENMAPTILES_SUFFIXES = OPENMAPTILES_MAPS.map(({ suffix }) => suffix);

type Style = Record<string, unknown> & { sources: Record<string, Record<string, unknown>>; layers: { source?: string }[]; sprite?: unknown };

/** A street style with its `openmaptiles` source replaced by `source` and its `world` source on `worldArchive`. */
async function publishedStyle(name: StreetStyle, versionDir: string, worldArchive: string | null, source: Record<string, unknown>): Promise<Style> {
  const style = (await readStreetStyle(name)) as unknown as Style;
  style.sources.openmaptiles = { ...style.sources.openmaptiles, ...source };
  if (worldArchive) {
    style.sources.world = { ...style.sources.world, url: `pmtiles://${path.relative(versionDir, worldArchive).split(path.sep).join('/')}` };
  } else {
    delete style.sources.world;
    style.layers = style.layers.filter((layer) => layer.source !== 'world');
  }
  return style;
}

/**
 * Writes the street styles over `source` (a vector source whose url points at the archive, relative
 * to `versionDir` or remote) and their sprite into `dir`, which becomes `versionDir`.
 */
export async function writeOpenMapTilesMaps(dir: string, versionDir: string, mapsDir: string, source: Record<string, unknown>, progress: Progress): Promise<PublishedStyle[]> {
  progress.phase('Styles and sprite');
  const worldArchive = path.join(mapsDir, 'world', 'world.pmtiles');
  const world = existsSync(worldArchive) ? worldArchive : null;
  if (!world) progress.note(`No world map in ${mapsDir} (meridian maps build-world): the styles draw the archive only`);
  let sprite = false;
  for (const { style } of OPENMAPTILES_MAPS) {
    const published = await publishedStyle(style, versionDir, world, source);
    sprite ||= published.sprite !== undefined;
    await writeJson(path.join(dir, `${style}.json`), published);
  }
  if (sprite) await buildStreetSprite(path.join(dir, 'sprite'));
  return OPENMAPTILES_MAPS.map(({ style, suffix }) => ({ style: `${style}.json`, suffix }));
}
