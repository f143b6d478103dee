import { crsInfo } from '../coordinates/proj.js';
import type { KeyframeRow } from './catalog.js';
import { metresOfLatitude as mercatorY, metresOfLongitude as mercatorX } from '../platform/web-mercator.js';
import { originShift, tileSize, type LonLatBounds } from './mercator.js';
import type { TileFormat } from './tiler.js';
import { channelsOf, type VariableDefinition } from './variables.js';

/**
 * The catalog entry of a variable (spec `CatalogResult`, plus the fields clients of the hosted
 * service read), built once per keyframe at ingest and stored with it.
 */
export interface LayerInput {
  variable: VariableDefinition;
  model: string;
  attribution: string;
  referenceTime: Date;
  validTime: Date;
  bounds: LonLatBounds;
  maxZoom: number;
  format: TileFormat;
}

export function variableId(variable: VariableDefinition, model: string): string {
  return `${variable.id}:${model}`;
}

let webMercatorWkt: string | undefined;

export function buildLayer(input: LayerInput): Record<string, unknown> {
  webMercatorWkt ??= crsInfo(3857).exports.wkt ?? '';
  const { variable, bounds, maxZoom } = input;
  const mercatorBounds = [mercatorX(bounds.west), mercatorY(bounds.south), mercatorX(bounds.east), mercatorY(bounds.north)];
  const worldBounds = [-originShift, -originShift, originShift, originShift];
  const channels = channelsOf(variable);
  const east = bounds.east < bounds.west ? bounds.east + 360 : bounds.east;
  const center = [((bounds.west + east) / 2 + 540) % 360 - 180, (bounds.south + bounds.north) / 2, Math.min(2, maxZoom)];
  return {
    '@version': '1.0.0',
    type: 'overlay',
    tile_type: 'raster',
    spatial_ref_sys: { auth_name: 'EPSG', auth_srid: '3857', wkt: webMercatorWkt },
    bounds: mercatorBounds,
    tile_format: input.format,
    tile_matrix_set: {
      bounds: worldBounds,
      items: Array.from({ length: maxZoom + 1 }, (_, zoom) => ({
        zoom_level: zoom,
        matrix_width: 2 ** zoom,
        matrix_height: 2 ** zoom,
        tile_width: tileSize,
        tile_height: tileSize,
        pixel_x_size: (2 * originShift) / (tileSize * 2 ** zoom),
        pixel_y_size: (2 * originShift) / (tileSize * 2 ** zoom),
      })),
    },
    metadata: {
      weather_variable: {
        name: variable.name,
        description: variable.description,
        attribution: input.attribution,
        variable_id: variableId(variable, input.model),
        decoding: { channels, min: variable.min, max: variable.max },
        unit: variable.unit,
        release_timestamp: input.referenceTime.toISOString(),
        timestamp: input.validTime.toISOString(),
      },
      format: input.format,
      scheme: 'xyz',
      title: variable.name,
      bounds: [bounds.west, bounds.south, bounds.east, bounds.north],
      center,
      minzoom: 0,
      maxzoom: maxZoom,
    },
  };
}

/**
 * `latest.json`: one entry per variable, its layer as of its first keyframe, with every keyframe
 * in time order. The entry's own `timestamp` is that of the first keyframe.
 */
export function presentCatalog(rows: readonly KeyframeRow[]): { variables: Record<string, unknown>[] } {
  const byVariable = new Map<string, KeyframeRow[]>();
  for (const row of rows) {
    const list = byVariable.get(row.variable_id) ?? [];
    list.push(row);
    byVariable.set(row.variable_id, list);
  }
  return {
    variables: [...byVariable.values()].map((keyframes) => ({
      ...keyframes[0]!.layer,
      keyframes: keyframes.map((row) => ({ id: row.id, timestamp: row.valid_time.toISOString() })),
    })),
  };
}
