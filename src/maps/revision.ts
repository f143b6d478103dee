/**
 * A map's revision: a fingerprint of everything its images are drawn from, so that images made
 * from it (the raster tile cache, shared between instances) are dropped when any of it changes.
 * It covers the definition, the style document, and the size and modification time of the local
 * files the style reads: its sources' archives and files, and its sprite. Remote sources and
 * folders of tiles are covered by their URL only (a remote archive replaced under the same URL
 * keeps the revision); glyphs are taken as stable.
 */

import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { hasScheme, localPath } from '../render/source/template.js';

const ARCHIVE_SCHEMES = /^(pmtiles|mbtiles):\/\//i;

/** The local files a reference names: none for remote URLs and tile templates. */
function localFiles(reference: string, folder: string): string[] {
  const bare = reference.replace(ARCHIVE_SCHEMES, '');
  if (/{[a-z]+}/i.test(bare) || (hasScheme(bare) && !/^file:/i.test(bare))) return [];
  return [localPath(bare, folder)];
}

function references(style: StyleSpecification): string[] {
  const found: string[] = [];
  for (const spec of Object.values(style.sources)) {
    if ('url' in spec && typeof spec.url === 'string') found.push(spec.url);
    if ('tiles' in spec && Array.isArray(spec.tiles)) found.push(...spec.tiles);
    if (spec.type === 'geojson' && typeof spec.data === 'string') found.push(spec.data);
  }
  const sprites = typeof style.sprite === 'string' ? [style.sprite] : (style.sprite ?? []).map((entry) => entry.url);
  for (const sprite of sprites) found.push(`${sprite}.json`, `${sprite}.png`, `${sprite}@2x.png`);
  return found;
}

/** The revision of a map with this definition and style (whose relative references resolve against `folder`). */
export async function mapRevision(definition: unknown, style: StyleSpecification, folder: string): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(definition)).update('\0').update(JSON.stringify(style));
  for (const file of references(style).flatMap((reference) => localFiles(reference, folder))) {
    const stats = await stat(file).catch(() => null);
    hash.update(`\0${file}\0${stats ? `${stats.size}:${stats.mtimeMs}` : 'absent'}`);
  }
  return hash.digest('base64url').slice(0, 22);
}
