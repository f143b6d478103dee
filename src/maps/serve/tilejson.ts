/**
 * TileJSON 3.0.0 of a map's source at `/maps/{mapId}/sources/{source}.json`: Meridian's tile URL,
 * and the zoom range, bounds and attribution the source settled on (the style's fields, else the
 * archive's); `center` is where the map opens (extent.ts), moved into the source's bounds and zooms. `vector_layers` for vector sources whose archive or TileJSON lists them (a GeoJSON
 * source's one layer, `_geojson`, always); `tileSize` for raster and raster-dem sources, and the
 * DEM `encoding`.
 */

import { centerWithin, type Center } from '../extent.js';
import type { MapLinks } from './links.js';
import type { MapSource, VectorLayer } from '../../render/source/source.js';

export interface TileJson {
  tilejson: '3.0.0';
  name: string;
  tiles: string[];
  scheme: 'xyz';
  minzoom: number;
  maxzoom: number;
  bounds: [number, number, number, number];
  center: Center;
  attribution?: string;
  vector_layers?: VectorLayer[];
  tileSize?: number;
  encoding?: 'mapbox' | 'terrarium';
}

export function tileJsonOf(id: string, source: MapSource, links: MapLinks, mapCenter: Center): TileJson {
  const raster = source.kind === 'raster' || source.kind === 'raster-dem';
  return {
    tilejson: '3.0.0',
    name: id,
    tiles: [links.tiles(id, source.format)],
    scheme: 'xyz',
    minzoom: source.minzoom,
    maxzoom: source.maxzoom,
    bounds: source.bounds,
    center: centerWithin(mapCenter, source.bounds, source.minzoom, source.maxzoom),
    ...(source.attribution ? { attribution: source.attribution } : {}),
    ...(source.vectorLayers ? { vector_layers: [...source.vectorLayers] } : {}),
    ...(raster ? { tileSize: source.tileSize } : {}),
    ...(source.encoding ? { encoding: source.encoding } : {}),
  };
}

/** JSON schema of the document, for the route's response and the OpenAPI document. */
export const tileJsonSchema = {
  type: 'object',
  required: ['tilejson', 'tiles', 'scheme', 'minzoom', 'maxzoom', 'bounds', 'center'],
  properties: {
    tilejson: { type: 'string', enum: ['3.0.0'] },
    name: { type: 'string' },
    tiles: { type: 'array', items: { type: 'string' }, description: 'Tile URL template with {z}, {x} and {y}, carrying the key' },
    scheme: { type: 'string', enum: ['xyz'] },
    minzoom: { type: 'integer' },
    maxzoom: { type: 'integer' },
    bounds: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4, description: 'West, south, east, north in degrees' },
    center: { type: 'array', items: { type: 'number' }, minItems: 3, maxItems: 3, description: 'Where the map opens: longitude, latitude and zoom (of these tiles), within bounds and the zoom range' },
    attribution: { type: 'string' },
    vector_layers: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'fields'],
        properties: {
          id: { type: 'string' },
          fields: { type: 'object', additionalProperties: { type: 'string' } },
          description: { type: 'string' },
          minzoom: { type: 'integer' },
          maxzoom: { type: 'integer' },
        },
      },
    },
    tileSize: { type: 'integer', enum: [256, 512] },
    encoding: { type: 'string', enum: ['mapbox', 'terrarium'] },
  },
} as const;
