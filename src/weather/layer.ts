import { Type, type Static } from '@sinclair/typebox';
import type { KeyframeRow } from './catalog.js';
import { HALF_WORLD_METRES, metresOfLatitude as mercatorY, metresOfLongitude as mercatorX } from '../platform/web-mercator.js';
import { tileSize, type LonLatBounds, type TileFormat } from './tiler.js';
import { channelsOf, type VariableDefinition } from './variables.js';

/**
 * The catalog's shape (spec `WeatherCatalogResult`, `CatalogResult` and what they hold, plus the
 * TileJSON-like fields clients of the hosted service read), declared once: the route's response
 * schema, the OpenAPI document and so the console's generated types come from it, and `buildLayer`
 * is checked against it. Objects allow further properties, so that a field added to stored layers
 * is served before it is declared.
 */
const open = { additionalProperties: true };
const numbers = (description: string) => Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description });

const tileMatrixSchema = Type.Object({
  zoom_level: Type.Integer(),
  matrix_width: Type.Integer(),
  matrix_height: Type.Integer(),
  tile_width: Type.Integer(),
  tile_height: Type.Integer(),
  pixel_x_size: Type.Number(),
  pixel_y_size: Type.Number(),
});

const weatherVariableSchema = Type.Object(
  {
    name: Type.String({ description: 'human-friendly name' }),
    description: Type.String(),
    attribution: Type.String({ description: 'data attribution label' }),
    variable_id: Type.String({ description: '`<variable>:<model>`: unique per forecast, for grouping' }),
    decoding: Type.Object({
      channels: Type.Union([Type.Literal('r'), Type.Literal('rg')], { description: 'channels the value is decoded from' }),
      min: Type.Number({ description: 'the value of channel byte 0' }),
      max: Type.Number({ description: 'the value of channel byte 255' }),
    }),
    unit: Type.String({ description: 'UDUNITS-readable unit of the decoded values' }),
    release_timestamp: Type.String({ format: 'date-time', description: 'reference time of the model run' }),
    timestamp: Type.String({ format: 'date-time', description: 'the moment the first keyframe depicts' }),
  },
  open,
);

/** One variable's layer as stored per keyframe (everything of `CatalogResult` but `keyframes`). */
export const layerSchema = Type.Object(
  {
    '@version': Type.String(),
    type: Type.String(),
    tile_type: Type.String(),
    spatial_ref_sys: Type.Object({ auth_name: Type.String(), auth_srid: Type.String(), wkt: Type.String() }),
    bounds: numbers('bounds of the data in the projection (EPSG:3857 metres): west, south, east, north'),
    tile_format: Type.Union([Type.Literal('png'), Type.Literal('webp')]),
    tile_matrix_set: Type.Object({ bounds: numbers('bounds of the pyramid, EPSG:3857 metres'), items: Type.Array(tileMatrixSchema) }),
    metadata: Type.Object(
      {
        weather_variable: weatherVariableSchema,
        format: Type.String(),
        scheme: Type.String(),
        title: Type.String(),
        bounds: numbers('bounds of the data in degrees: west, south, east, north'),
        center: Type.Array(Type.Number(), { minItems: 3, maxItems: 3, description: 'longitude, latitude, zoom' }),
        minzoom: Type.Integer(),
        maxzoom: Type.Integer(),
      },
      open,
    ),
  },
  open,
);
export type Layer = Static<typeof layerSchema>;

const keyframeSchema = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the keyframe, as in `/tiles/{keyframe}/…`' }),
  timestamp: Type.String({ format: 'date-time', description: 'the moment it depicts' }),
});

/** `GET /weather/latest.json`. */
export const catalogSchema = Type.Object({
  variables: Type.Array(Type.Intersect([layerSchema, Type.Object({ keyframes: Type.Array(keyframeSchema, { description: 'in time order' }) })]), {
    description: 'every variable of the latest complete run of each model',
  }),
});
export type Catalog = Static<typeof catalogSchema>;

/** What a keyframe's layer is built from, once per keyframe at ingest. */
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

/**
 * EPSG:3857 in WKT1 (GDAL's flavour, one line), as PROJ 9.9 prints it from EPSG v13.102 (`projinfo
 * EPSG:3857 -o WKT1_GDAL --single-line`, and Meridian's own PROJ: test/weather/layer.test.ts checks both).
 * A constant, so that an ingest thread does not instantiate PROJ to write it.
 */
export const WEB_MERCATOR_WKT =
  'PROJCS["WGS 84 / Pseudo-Mercator",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],PROJECTION["Mercator_1SP"],PARAMETER["central_meridian",0],PARAMETER["scale_factor",1],PARAMETER["false_easting",0],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],EXTENSION["PROJ4","+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +wktext +no_defs"],AUTHORITY["EPSG","3857"]]';

export function buildLayer(input: LayerInput): Layer {
  const { variable, bounds, maxZoom } = input;
  // Within the world's square, so that a global field's bounds are the pyramid's to the last digit
  // (the latitude limit's metres round a few units in the last place off the half world).
  const inWorld = (metres: number) => Math.min(HALF_WORLD_METRES, Math.max(-HALF_WORLD_METRES, metres));
  const mercatorBounds = [mercatorX(bounds.west), mercatorY(bounds.south), mercatorX(bounds.east), mercatorY(bounds.north)].map(inWorld);
  const worldBounds = [-HALF_WORLD_METRES, -HALF_WORLD_METRES, HALF_WORLD_METRES, HALF_WORLD_METRES];
  const channels = channelsOf(variable);
  const east = bounds.east < bounds.west ? bounds.east + 360 : bounds.east;
  const center = [((bounds.west + east) / 2 + 540) % 360 - 180, (bounds.south + bounds.north) / 2, Math.min(2, maxZoom)];
  return {
    '@version': '1.0.0',
    type: 'overlay',
    tile_type: 'raster',
    spatial_ref_sys: { auth_name: 'EPSG', auth_srid: '3857', wkt: WEB_MERCATOR_WKT },
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
        pixel_x_size: (2 * HALF_WORLD_METRES) / (tileSize * 2 ** zoom),
        pixel_y_size: (2 * HALF_WORLD_METRES) / (tileSize * 2 ** zoom),
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
export function presentCatalog(rows: readonly KeyframeRow[]): Catalog {
  const byVariable = new Map<string, KeyframeRow[]>();
  for (const row of rows) {
    const list = byVariable.get(row.variable_id) ?? [];
    list.push(row);
    byVariable.set(row.variable_id, list);
  }
  return {
    variables: [...byVariable.values()].map((keyframes) => ({
      // Stored by buildLayer at ingest.
      ...(keyframes[0]!.layer as Layer),
      keyframes: keyframes.map((row) => ({ id: row.id, timestamp: row.valid_time.toISOString() })),
    })),
  };
}
