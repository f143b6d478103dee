/**
 * TileJSON documents (`url` of a vector, raster or raster-dem source that is no pmtiles:// or
 * mbtiles:// URL): over http(s), or a local file (a path relative to the style's folder, or a
 * `file:` URL). Relative tile templates resolve against the document's own location.
 */

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fetchJson, type HttpOptions } from './http.js';
import { hasScheme, isHttpUrl, localPath, resolveUrlTemplate } from './template.js';

/** The TileJSON fields a source takes (the style's own fields win over these). */
export interface TileJson {
  tiles: string[];
  minzoom?: number;
  maxzoom?: number;
  bounds?: [number, number, number, number];
  attribution?: string;
  scheme?: 'xyz' | 'tms';
  tileSize?: number;
  encoding?: string;
}

function check(document: unknown): TileJson {
  const value = document as Record<string, unknown> | null;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not a JSON object');
  const tiles = value.tiles;
  if (!Array.isArray(tiles) || tiles.length === 0 || !tiles.every((tile) => typeof tile === 'string' && tile !== '')) {
    throw new Error('"tiles" must be a non-empty array of URL templates');
  }
  const number = (name: string) => (typeof value[name] === 'number' ? { [name]: value[name] } : {});
  const string = (name: string) => (typeof value[name] === 'string' ? { [name]: value[name] } : {});
  const bounds = value.bounds;
  const goodBounds = Array.isArray(bounds) && bounds.length === 4 && bounds.every((b) => typeof b === 'number' && Number.isFinite(b));
  return {
    tiles: tiles as string[],
    ...number('minzoom'),
    ...number('maxzoom'),
    ...number('tileSize'),
    ...string('attribution'),
    ...string('encoding'),
    ...(value.scheme === 'tms' || value.scheme === 'xyz' ? { scheme: value.scheme } : {}),
    ...(goodBounds ? { bounds: bounds as [number, number, number, number] } : {}),
  };
}

/** Loads the document at `url` with its tile templates made absolute (URLs, or absolute paths). */
export async function loadTileJson(url: string, baseDir: string, http: HttpOptions): Promise<TileJson> {
  if (isHttpUrl(url)) {
    const tilejson = check(await fetchJson(url, http.timeoutMs));
    return { ...tilejson, tiles: tilejson.tiles.map((tile) => resolveUrlTemplate(tile, url)) };
  }
  const file = localPath(url, baseDir);
  let document: unknown;
  try {
    document = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read TileJSON ${file}: ${(error as Error).message}`);
  }
  let tilejson: TileJson;
  try {
    tilejson = check(document);
  } catch (error) {
    throw new Error(`TileJSON ${file}: ${(error as Error).message}`);
  }
  const folder = path.dirname(file);
  return { ...tilejson, tiles: tilejson.tiles.map((tile) => (hasScheme(tile) ? tile : path.resolve(folder, tile))) };
}
