/**
 * Cuts the town into vector tiles and writes one PMTiles archive per schema, with the styles that
 * read them (styles.ts): the files under test/fixtures/render/_data/town that the town render cases
 * use. Tiles are as the real ones come: MVT version 2, extent 4096, a buffer of 64 units (4 px of
 * a 256-px tile, as Planetiler and OpenMapTiles cut them), gzipped, zooms 10 to 16, each feature
 * from the first zoom its schema gives it. Run again, every byte comes out the same.
 */

import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { FeatureCollection } from 'geojson';
import { writeArchive, type Tile } from '../../../src/platform/pmtiles.js';
import { openMapTiles } from './openmaptiles.js';
import { protomaps } from './protomaps.js';
import type { SchemaFeature } from './schema.js';
import { buildProtomapsSprite } from './sprite.js';
import { openMapTilesStyle, PROTOMAPS_SPRITE, protomapsStyle, styleJson } from './styles.js';
import { CENTER, makeTown } from './town.js';

export const MIN_ZOOM = 10;
export const MAX_ZOOM = 16;
const EXTENT = 4096;
const BUFFER = 64;

type Bounds = [west: number, south: number, east: number, north: number];

/** The features of every layer that tiles of zoom z hold, by layer in first-seen order. */
function layersAt(features: readonly SchemaFeature[], z: number): Map<string, FeatureCollection> {
  const layers = new Map<string, FeatureCollection>();
  for (const { layer, minzoom, maxzoom, feature } of features) {
    if (z < minzoom || z > (maxzoom ?? MAX_ZOOM)) continue;
    const collection = layers.get(layer) ?? { type: 'FeatureCollection', features: [] };
    collection.features.push(feature);
    layers.set(layer, collection);
  }
  return layers;
}

function boundsOf(features: readonly SchemaFeature[]): Bounds {
  const bounds: Bounds = [180, 90, -180, -90];
  const visit = (value: unknown): void => {
    if (Array.isArray(value) && typeof value[0] === 'number') {
      const [lon, lat] = value as number[];
      bounds[0] = Math.min(bounds[0], lon!);
      bounds[1] = Math.min(bounds[1], lat!);
      bounds[2] = Math.max(bounds[2], lon!);
      bounds[3] = Math.max(bounds[3], lat!);
    } else if (Array.isArray(value)) value.forEach(visit);
  };
  for (const { feature } of features) {
    if (feature.geometry.type !== 'GeometryCollection') visit(feature.geometry.coordinates);
  }
  return bounds;
}

/** The column of zoom-z tiles that holds longitude `lon`. */
export function tileX(lon: number, z: number): number {
  return Math.floor(((lon + 180) / 360) * 2 ** z);
}

/** The row of zoom-z tiles that holds latitude `lat`. */
export function tileY(lat: number, z: number): number {
  const sin = Math.sin((lat * Math.PI) / 180);
  return Math.floor((0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * 2 ** z);
}

/** Every tile of zooms MIN_ZOOM..MAX_ZOOM over the features' bounds that holds something, gzipped MVT. */
export function cutTiles(features: readonly SchemaFeature[]): Tile[] {
  const [west, south, east, north] = boundsOf(features);
  const tiles: Tile[] = [];
  for (let z = MIN_ZOOM; z <= MAX_ZOOM; z++) {
    const indexes = [...layersAt(features, z)].map(
      ([name, collection]) => [name, new GeoJSONVT(collection, { maxZoom: z, indexMaxZoom: z, extent: EXTENT, buffer: BUFFER })] as const,
    );
    for (let y = tileY(north, z); y <= tileY(south, z); y++) {
      for (let x = tileX(west, z); x <= tileX(east, z); x++) {
        const layers: Record<string, NonNullable<ReturnType<GeoJSONVT['getTile']>>> = {};
        for (const [name, index] of indexes) {
          const tile = index.getTile(z, x, y);
          if (tile && tile.features.length > 0) layers[name] = tile;
        }
        if (Object.keys(layers).length === 0) continue;
        tiles.push({ z, x, y, data: gzipSync(fromGeojsonVt(layers, { version: 2, extent: EXTENT }), { level: 9 }) });
      }
    }
  }
  return tiles;
}

/** TileJSON's vector_layers: each layer's fields (with their types) and zoom range. */
function vectorLayers(features: readonly SchemaFeature[]): unknown[] {
  const layers = new Map<string, { fields: Record<string, string>; minzoom: number; maxzoom: number }>();
  for (const { layer, minzoom, maxzoom, feature } of features) {
    const entry = layers.get(layer) ?? { fields: {}, minzoom: MAX_ZOOM, maxzoom: MIN_ZOOM };
    entry.minzoom = Math.min(entry.minzoom, minzoom);
    entry.maxzoom = Math.max(entry.maxzoom, maxzoom ?? MAX_ZOOM);
    for (const [key, value] of Object.entries(feature.properties)) {
      entry.fields[key] = typeof value === 'number' ? 'Number' : typeof value === 'boolean' ? 'Boolean' : 'String';
    }
    layers.set(layer, entry);
  }
  return [...layers].map(([id, { fields, minzoom, maxzoom }]) => ({ id, fields, minzoom, maxzoom }));
}

export interface BuiltArchive {
  file: string;
  tiles: number;
  bytes: number;
}

async function writeSchema(file: string, name: string, features: readonly SchemaFeature[]): Promise<BuiltArchive> {
  const tiles = cutTiles(features);
  await writeArchive(file, tiles, {
    tileType: 'mvt',
    tileCompression: 'gzip',
    minZoom: MIN_ZOOM,
    maxZoom: MAX_ZOOM,
    bounds: boundsOf(features),
    center: [CENTER[0], CENTER[1], 14],
    metadata: {
      name,
      description: 'Altwasser, a synthetic town for the render tests of Meridian (test/maps/town)',
      attribution: 'Synthetic data',
      vector_layers: vectorLayers(features),
    },
  });
  return { file, tiles: tiles.length, bytes: statSync(file).size };
}

/** Writes openmaptiles.pmtiles, protomaps.pmtiles, their styles and the Protomaps sprite into `dir`. */
export async function buildTown(dir: string): Promise<BuiltArchive[]> {
  mkdirSync(dir, { recursive: true });
  const town = makeTown();
  const built = [
    await writeSchema(path.join(dir, 'openmaptiles.pmtiles'), 'Altwasser (OpenMapTiles v3)', openMapTiles(town)),
    await writeSchema(path.join(dir, 'protomaps.pmtiles'), 'Altwasser (Protomaps basemap v4)', protomaps(town)),
  ];
  writeFileSync(path.join(dir, 'openmaptiles-style.json'), styleJson(openMapTilesStyle()));
  writeFileSync(path.join(dir, 'protomaps-style.json'), styleJson(protomapsStyle()));
  await buildProtomapsSprite(path.join(dir, PROTOMAPS_SPRITE));
  return built;
}
