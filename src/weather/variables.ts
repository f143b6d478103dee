/**
 * Which GRIB2 fields become which catalog variables: a table, so operators can add variables
 * through configuration. A variable reads one field (or two for vectors: wind u in R, v in G),
 * converts its unit, and is encoded between a fixed min and max.
 */

import { Type, type Static } from '@sinclair/typebox';
import { oneOf, section } from '../platform/settings.js';

const byte = { minimum: 0, maximum: 255 };

/** Picks messages: GRIB2 discipline, parameter category and number, and the first fixed surface. */
export const fieldSelectorSchema = section({
  discipline: Type.Integer(byte),
  category: Type.Integer(byte),
  number: Type.Integer(byte),
  levelType: Type.Integer(byte),
  /** Level value in the surface's unit (2 for 2 m, 10 for 10 m); any when absent. */
  level: Type.Optional(Type.Number()),
});
export type FieldSelector = Static<typeof fieldSelectorSchema>;

/** A variable, as the built-in table and an operator's `weather.variables` declare it. */
export const variableSchema = section({
  /** Base id; the catalog's `variable_id` is `<id>:<model>`. */
  id: Type.String({ pattern: '^[a-z0-9_-]{1,64}$' }),
  name: Type.String({ minLength: 1 }),
  description: Type.String(),
  unit: Type.String(),
  /** One selector per channel: R, then G. */
  fields: Type.Array(fieldSelectorSchema, { minItems: 1, maxItems: 2 }),
  /** value in `unit` = raw * scale + offset. */
  scale: Type.Number(),
  offset: Type.Number(),
  min: Type.Number(),
  max: Type.Number(),
  /**
   * How time is carried: `instant` fields as they are; `rate` fields are per second and become
   * per hour; `accumulation` totals are turned into a per-hour rate over their own period, after
   * subtracting the previous total of the same bucket.
   */
  time: oneOf(['instant', 'rate', 'accumulation']),
  /**
   * Two fields make one channel instead of R and G: `fraction` scales the first by the second,
   * a percentage (negative percentages, which some models use for "no precipitation", count as 0).
   */
  combine: Type.Optional(oneOf(['fraction'])),
});
export type VariableDefinition = Static<typeof variableSchema>;

/** Channels a variable's tiles carry: one per field, unless its fields combine into one. */
export function channelsOf(variable: VariableDefinition): 'r' | 'rg' {
  return variable.fields.length === 2 && !variable.combine ? 'rg' : 'r';
}

/** Several definitions may share an id (alternative sources of one variable): the first that matches wins. */
export const defaultVariables: VariableDefinition[] = [
  {
    id: 'temperature-2m',
    name: 'Temperature 2 m',
    description: 'Air temperature 2 m above ground',
    unit: '°C',
    fields: [{ discipline: 0, category: 0, number: 0, levelType: 103, level: 2 }],
    scale: 1,
    offset: -273.15,
    min: -127,
    max: 128,
    time: 'instant',
  },
  {
    id: 'pressure-msl',
    name: 'Pressure (MSL)',
    description: 'Air pressure reduced to mean sea level',
    unit: 'hPa',
    fields: [{ discipline: 0, category: 3, number: 1, levelType: 101 }],
    scale: 0.01,
    offset: 0,
    min: 900,
    max: 1080,
    time: 'instant',
  },
  {
    id: 'wind-10m',
    name: 'Wind 10 m',
    description: 'Wind 10 m above ground: eastward (u) in R, northward (v) in G',
    unit: 'm/s',
    fields: [
      { discipline: 0, category: 2, number: 2, levelType: 103, level: 10 },
      { discipline: 0, category: 2, number: 3, levelType: 103, level: 10 },
    ],
    scale: 1,
    offset: 0,
    min: -75,
    max: 75,
    time: 'instant',
  },
  {
    id: 'precipitation-1h',
    name: 'Precipitation',
    description: 'Precipitation of all kinds, as a rate per hour',
    unit: 'mm/h',
    fields: [{ discipline: 0, category: 1, number: 7, levelType: 1 }],
    scale: 3600,
    offset: 0,
    min: 0,
    max: 50,
    time: 'rate',
  },
  {
    id: 'precipitation-1h',
    name: 'Precipitation',
    description: 'Precipitation of all kinds, as a rate per hour',
    unit: 'mm/h',
    fields: [{ discipline: 0, category: 1, number: 8, levelType: 1 }],
    scale: 1,
    offset: 0,
    min: 0,
    max: 50,
    time: 'accumulation',
  },
  {
    id: 'frozen_precipitation-1h',
    name: 'Frozen precipitation',
    description: 'Snow, ice pellets and freezing rain, as a rate per hour: the precipitation rate times its frozen percentage',
    unit: 'mm/h',
    fields: [
      { discipline: 0, category: 1, number: 7, levelType: 1 },
      { discipline: 0, category: 1, number: 39, levelType: 1 },
    ],
    scale: 3600,
    offset: 0,
    min: 0,
    max: 50,
    time: 'rate',
    combine: 'fraction',
  },
  {
    id: 'cloud_cover-total',
    name: 'Total cloud cover',
    description: 'Cloud cover of the entire atmosphere',
    unit: '%',
    fields: [{ discipline: 0, category: 6, number: 1, levelType: 10 }],
    scale: 1,
    offset: 0,
    min: 0,
    max: 100,
    time: 'instant',
  },
  {
    // NCEP files mark the entire atmosphere as its local surface 200.
    id: 'cloud_cover-total',
    name: 'Total cloud cover',
    description: 'Cloud cover of the entire atmosphere',
    unit: '%',
    fields: [{ discipline: 0, category: 6, number: 1, levelType: 200 }],
    scale: 1,
    offset: 0,
    min: 0,
    max: 100,
    time: 'instant',
  },
  {
    id: 'radar-composite',
    name: 'Radar (composite)',
    description: "The model's composite reflectivity",
    unit: 'dBZ',
    fields: [{ discipline: 0, category: 16, number: 196, levelType: 10 }],
    scale: 1,
    offset: 0,
    min: -20,
    max: 80,
    time: 'instant',
  },
];
