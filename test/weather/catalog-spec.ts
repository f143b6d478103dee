import assert from 'node:assert/strict';

/**
 * The spec's `WeatherCatalogResult` (../shared/seed, "WeatherCatalogResult" and the types it
 * names), written out here field by field from the spec's tables: each field present with the
 * spec's type. Fields beyond the spec (those clients of the hosted service read) are allowed.
 */

type Check = (value: unknown, where: string) => void;

const string: Check = (value, where) => assert.equal(typeof value, 'string', `${where} is a string`);
const number: Check = (value, where) => assert.ok(typeof value === 'number' && Number.isFinite(value), `${where} is a number`);
const integer: Check = (value, where) => assert.ok(Number.isInteger(value), `${where} is an integer`);
const iso: Check = (value, where) => {
  string(value, where);
  assert.equal(new Date(value as string).toISOString(), value, `${where} is an ISO timestamp`);
};
const arrayOf = (item: Check): Check => (value, where) => {
  assert.ok(Array.isArray(value), `${where} is an array`);
  (value as unknown[]).forEach((element, k) => item(element, `${where}[${k}]`));
};
const object = (fields: Record<string, Check>): Check => (value, where) => {
  assert.ok(typeof value === 'object' && value !== null && !Array.isArray(value), `${where} is an object`);
  for (const [name, check] of Object.entries(fields)) {
    assert.ok(name in (value as object), `${where}.${name} is present`);
    check((value as Record<string, unknown>)[name], `${where}.${name}`);
  }
};

const tileMatrix = object({
  zoom_level: integer,
  matrix_width: integer,
  matrix_height: integer,
  tile_width: integer,
  tile_height: integer,
  pixel_x_size: number,
  pixel_y_size: number,
});

const catalogResult = object({
  spatial_ref_sys: object({ auth_name: string, auth_srid: string, wkt: string }),
  bounds: arrayOf(number),
  tile_format: string,
  tile_matrix_set: object({ bounds: arrayOf(number), items: arrayOf(tileMatrix) }),
  metadata: object({
    weather_variable: object({
      name: string,
      description: string,
      attribution: string,
      variable_id: string,
      decoding: object({
        channels: (value, where) => assert.ok(['r', 'g', 'b', 'rg', 'rb', 'gb', 'rgb'].includes(value as string), `${where} is a channel set`),
        min: number,
        max: number,
      }),
      unit: string,
      release_timestamp: iso,
      timestamp: iso,
    }),
  }),
  keyframes: arrayOf(object({ id: string, timestamp: iso })),
});

/** A catalog entry as the spec gives it (what the tests read of it). */
export interface CatalogEntry {
  spatial_ref_sys: { auth_name: string; auth_srid: string; wkt: string };
  bounds: number[];
  tile_format: string;
  tile_matrix_set: { bounds: number[]; items: Record<string, number>[] };
  metadata: {
    weather_variable: {
      name: string;
      description: string;
      attribution: string;
      variable_id: string;
      decoding: { channels: string; min: number; max: number };
      unit: string;
      release_timestamp: string;
      timestamp: string;
    };
    [field: string]: unknown;
  };
  keyframes: { id: string; timestamp: string }[];
  [field: string]: unknown;
}

/** Asserts that a body is a WeatherCatalogResult, naming the first field that is not. */
export function assertWeatherCatalogResult(body: unknown): asserts body is { variables: CatalogEntry[] } {
  object({ variables: arrayOf(catalogResult) })(body, 'catalog');
}
