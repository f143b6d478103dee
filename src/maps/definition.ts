/**
 * A map definition: which style a map draws and what clients may ask of it. Definitions come from
 * `<maps.dir>/<id>.json` files and from the `maps.definitions` setting; both have this shape:
 *
 *   {
 *     "style": "style.json" | { ...an inline MapLibre v8 style },
 *     "formats": ["png", "jpg", "webp"],   // optional, default all three
 *     "attribution": "© …",                // optional, default the sources' attributions
 *     "minzoom": 0, "maxzoom": 22,         // optional, the zoom range clients may ask for
 *     "name": "West Oakland streets",      // optional, default the style's name, else the id
 *     "bounds": [west, south, east, north],  // optional, where the map's data is (extent.ts)
 *     "center": [lon, lat, zoom],          // optional, where the map opens (extent.ts)
 *     "schema": "openmaptiles"             // optional, the tile schema its style draws
 *   }
 *
 * `maps import` and `maps add` write `name`, `bounds` (the data's extent), `schema` and, for an
 * archive that names one, `center`; a definition written by hand may leave them out.
 *
 * A relative style path resolves against the folder of the file that holds the definition; for
 * definitions in the configuration, against the maps folder.
 */

import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { Type, type Static } from '@sinclair/typebox';
import { oneOf, section, validatorOf } from '../platform/settings.js';
import { FORMATS } from './image-format.js';
import { MAP_ID, SCHEMAS, type Schema } from '../platform/map-names.js';

/** The zoom range clients may ask for, and what a definition gets without one. */
export const MAX_ZOOM = 24;
export const DEFAULT_MINZOOM = 0;
export const DEFAULT_MAXZOOM = 22;

export { MAP_ID, SCHEMAS, type Schema };

/** A definition; the configuration validates `maps.definitions` with it too. */
export const definitionSchema = section({
  /** Path of a style file, or the style itself. */
  style: Type.Unsafe<string | StyleSpecification>({ type: ['string', 'object'] }),
  formats: Type.Optional(Type.Array(oneOf(FORMATS), { minItems: 1, uniqueItems: true })),
  attribution: Type.Optional(Type.String()),
  minzoom: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_ZOOM })),
  maxzoom: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_ZOOM })),
  name: Type.Optional(Type.String({ minLength: 1 })),
  bounds: Type.Optional(
    Type.Tuple([Type.Number({ minimum: -180, maximum: 180 }), Type.Number({ minimum: -90, maximum: 90 }), Type.Number({ minimum: -180, maximum: 180 }), Type.Number({ minimum: -90, maximum: 90 })]),
  ),
  center: Type.Optional(Type.Tuple([Type.Number({ minimum: -180, maximum: 180 }), Type.Number({ minimum: -90, maximum: 90 }), Type.Number({ minimum: 0, maximum: MAX_ZOOM })])),
  schema: Type.Optional(oneOf(SCHEMAS)),
});

export type MapDefinition = Static<typeof definitionSchema>;

export class DefinitionError extends Error {}

/**
 * Checks a definition as read from a file (or given in the configuration) and returns it typed.
 * Throws a DefinitionError naming the first bad field.
 */
export function parseDefinition(value: unknown): MapDefinition {
  const validate = validatorOf(definitionSchema);
  if (!validate(value)) {
    const error = validate.errors![0]!;
    const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
    if (error.keyword === 'additionalProperties') {
      const unknown = (error.params as { additionalProperty: string }).additionalProperty;
      throw new DefinitionError(`unknown field "${field ? `${field}.${unknown}` : unknown}"`);
    }
    if (error.keyword === 'enum') {
      throw new DefinitionError(`"${field}" must be one of ${(error.params as { allowedValues: string[] }).allowedValues.join(', ')}`);
    }
    throw new DefinitionError(field ? `"${field}" ${error.message}` : `the definition ${error.message}`);
  }
  const definition = value as MapDefinition;
  const { minzoom = DEFAULT_MINZOOM, maxzoom = DEFAULT_MAXZOOM } = definition;
  if (minzoom > maxzoom) throw new DefinitionError(`"minzoom" (${minzoom}) is above "maxzoom" (${maxzoom})`);
  if (definition.bounds && definition.bounds[1] > definition.bounds[3]) throw new DefinitionError(`"bounds": south (${definition.bounds[1]}) is above north (${definition.bounds[3]})`);
  return definition;
}
