/**
 * TileJSON documents (`url` of a vector, raster or raster-dem source that is no pmtiles:// or
 * mbtiles:// URL): over http(s), or a local file (a path relative to the style's folder, or a
 * `file:` URL). Relative tile templates resolve against the document's own location.
 */

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fetchJson, type HttpOptions } from './http.js';
import type { VectorLayer } from './source.js';
import { hasScheme, isHttpUrl, localPath, resolveUrlTemplate } from './template.js';

/**
 * The `vector_layers` of a TileJSON document or archive metadata, each with an `id`; undefined when
 * there are none. Layers without `fields` get `{}`, which TileJSON 3.0.0 requires.
 */
export function vectorLayersOf(value: unknown): VectorLayer[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const layers = value.filter((layer): layer is Record<string, unknown> => typeof layer === 'object' && layer !== null && typeof layer.id === 'string');
  if (layers.length === 0) return undefined;
  return layers.map((layer) => {
    const fields = typeof layer.fields === 'object' && layer.fields !== null && !Array.isArray(layer.fields) ? layer.fields : {};
    return {
      id: layer.id as string,
      fields: Object.fromEntries(Object.entries(fields).map(([name, type]) => [name, String(type)])),
      ...(typeof layer.description === 'string' ? { description: layer.description } : {}),
      ...(typeof layer.minzoom === 'number' ? { minzoom: layer.minzoom } : {}),
      ...(typeof layer.maxzoom === 'number' ? { maxzoom: layer.maxzoom } : {}),
    };
  });
}

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
  vectorLayers?: VectorLayer[];
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
  const vectorLayers = vectorLayersOf(value.vector_layers);
  return {
    tiles: tiles as string[],
    ...number('minzoom'),
    ...number('maxzoom'),
    ...number('tileSize'),
    ...string('attribution'),
    ...string('encoding'),
    ...(value.scheme === 'tms' || value.scheme === 'xyz' ? { scheme: value.scheme } : {}),
    ...(goodBounds ? { bounds: bounds as [number, number, number, number] } : {}),
    ...(vectorLayers ? { vectorLayers } : {}),
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
