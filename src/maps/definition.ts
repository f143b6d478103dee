/**
 * A map definition: which style a map draws and what clients may ask of it. Definitions come from
 * `<maps.dir>/<id>.json` files and from the `maps.definitions` setting; both have this shape:
 *
 *   {
 *     "style": "style.json" | { ...an inline MapLibre v8 style },
 *     "formats": ["png", "jpg", "webp"],   // optional, default all three
 *     "attribution": "© …",                // optional, default the sources' attributions
 *     "minzoom": 0, "maxzoom": 22          // optional, the zoom range clients may ask for
 *   }
 *
 * A relative style path resolves against the folder of the file that holds the definition; for
 * definitions in the configuration, against the maps folder.
 */

import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { Type, type Static } from '@sinclair/typebox';
import { oneOf, section, validatorOf } from '../platform/settings.js';
import { FORMATS } from './image-format.js';

/** The zoom range clients may ask for, and what a definition gets without one. */
export const MAX_ZOOM = 24;
export const DEFAULT_MINZOOM = 0;
export const DEFAULT_MAXZOOM = 22;

export const MAP_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A definition; the configuration validates `maps.definitions` with it too. */
export const definitionSchema = section({
  /** Path of a style file, or the style itself. */
  style: Type.Unsafe<string | StyleSpecification>({ type: ['string', 'object'] }),
  formats: Type.Optional(Type.Array(oneOf(FORMATS), { minItems: 1, uniqueItems: true })),
  attribution: Type.Optional(Type.String()),
  minzoom: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_ZOOM })),
  maxzoom: Type.Optional(Type.Number({ minimum: 0, maximum: MAX_ZOOM })),
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
  return definition;
}
