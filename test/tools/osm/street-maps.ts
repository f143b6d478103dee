/**
 * The street styles over real OpenStreetMap data, as map definitions for tests. The archives in
 * test/fixtures/osm were made from the samples Debian ships in python-osmnx-doc (West-Oakland.osm.bz2
 * and the Kirchberg an der Iller extract planet_10.068,48.135_10.071,48.137.osm, through osmium) by
 * tilemaker 2.2 with its example OpenMapTiles config and profile (the shapefile layers removed, and
 * the profile also writing `name`, `name:de` and `name:en`, as Meridian's does). world.pmtiles is
 * the world map (`meridian maps build-world`) cut to zooms 0-4, one tile per zoom around each
 * sample and the test town.
 */

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import type { LoadedMap } from '../../../src/maps/registry.js';
import { plainImageJob, renderStaticImage } from '../../../src/maps/static/static-image.js';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { buildStreetSprite, STYLES, stylesDir, type StreetStyle } from '../../../src/tools/osm/sprite.js';
import { repoRoot } from '../../render/suite/cases.js';
import { tempDir } from '../../scratch.js';

const fixtures = path.join(repoRoot, 'test/fixtures/osm');

export const SAMPLES = {
  oakland: { archive: `mbtiles://${path.join(fixtures, 'west-oakland.mbtiles')}`, center: [-122.3004, 37.8076] },
  kirchberg: { archive: `mbtiles://${path.join(fixtures, 'kirchberg.mbtiles')}`, center: [10.0695, 48.136] },
  town: { archive: `pmtiles://${path.join(repoRoot, 'test/fixtures/render/_data/town/openmaptiles.pmtiles')}`, center: [8.3165, 47.2212] },
} as const;
export type Sample = keyof typeof SAMPLES;

export function readStyle(name: StreetStyle): StyleSpecification {
  return JSON.parse(readFileSync(path.join(stylesDir, `${name}.json`), 'utf8')) as StyleSpecification;
}

/**
 * A folder with the three styles over `sample` (their two source URLs rewritten, as the importer
 * rewrites them) and the sprite, and the definitions `<style>` of maps over them.
 */
export async function writeStreetMaps(sample: Sample): Promise<{ dir: string; definitions: Record<StreetStyle, { style: string }> }> {
  const dir = tempDir();
  await buildStreetSprite(path.join(dir, 'sprite'));
  const definitions = {} as Record<StreetStyle, { style: string }>;
  for (const name of STYLES) {
    const style = readStyle(name);
    style.sources = {
      openmaptiles: { type: 'vector', url: SAMPLES[sample].archive },
      world: { type: 'vector', url: `pmtiles://${path.join(fixtures, 'world.pmtiles')}` },
    };
    const file = path.join(dir, `${name}.json`);
    writeFileSync(file, JSON.stringify(style));
    definitions[name] = { style: file };
  }
  return { dir, definitions };
}

/** The colours of an image, as #rrggbb, with the number of pixels of each. */
export async function colours(png: Buffer): Promise<Map<string, number>> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const counts = new Map<string, number>();
  for (let i = 0; i < data.length; i += info.channels) {
    const hex = `#${[data[i]!, data[i + 1]!, data[i + 2]!].map((value) => value.toString(16).padStart(2, '0')).join('')}`;
    counts.set(hex, (counts.get(hex) ?? 0) + 1);
  }
  return counts;
}

/** A 256x256 PNG of a loaded map, without attribution: what the street-map tests look at. */
export function renderPng(map: LoadedMap, center: readonly [number, number], zoom: number): Promise<Buffer> {
  return renderStaticImage(map, { ...plainImageJob({ center: [center[0], center[1]], zoom, width: 256, height: 256, pixelRatio: 1 }, 'png'), attribution: 'false' });
}

/** The extent of an extract's data as osmium reports it (`data.bbox`: every node), the peer the recorded bounds are checked against. */
export function osmiumDataExtent(file: string): number[] {
  const text = execFileSync('osmium', ['fileinfo', '--extended', '--get', 'data.bbox', file], { encoding: 'utf8' });
  return text.trim().replace(/^\(|\)$/g, '').split(',').map(Number);
}

/** The bounds and centre written in a PMTiles header (spec v3: int32 e7 degrees from byte 102, centre zoom at 118). */
export function pmtilesHeaderExtent(file: string): { bounds: number[]; center: number[] } {
  const header = readFileSync(file).subarray(0, 127);
  const e7 = (offset: number) => header.readInt32LE(offset) / 1e7;
  return { bounds: [e7(102), e7(106), e7(110), e7(114)], center: [e7(119), e7(123), header.readUInt8(118)] };
}
