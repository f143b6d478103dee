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
import { Ajv } from 'ajv';
import { FORMATS, type Format } from './image-format.js';

export interface MapDefinition {
  /** Path of a style file, or the style itself. */
  style: string | StyleSpecification;
  formats?: Format[];
  attribution?: string;
  minzoom?: number;
  maxzoom?: number;
}

/** The zoom range clients may ask for, and what a definition gets without one. */
export const MAX_ZOOM = 24;
export const DEFAULT_MINZOOM = 0;
export const DEFAULT_MAXZOOM = 22;

export const MAP_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** JSON schema of a definition; the configuration validates `maps.definitions` with it too. */
export const definitionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['style'],
  properties: {
    style: { type: ['string', 'object'] },
    formats: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...FORMATS] } },
    attribution: { type: 'string' },
    minzoom: { type: 'number', minimum: 0, maximum: MAX_ZOOM },
    maxzoom: { type: 'number', minimum: 0, maximum: MAX_ZOOM },
  },
} as const;

export class DefinitionError extends Error {}

const validate = new Ajv({ allErrors: false, strict: true, allowUnionTypes: true }).compile(definitionSchema);

/**
 * Checks a definition as read from a file (or given in the configuration) and returns it typed.
 * Throws a DefinitionError naming the first bad field.
 */
export function parseDefinition(value: unknown): MapDefinition {
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
