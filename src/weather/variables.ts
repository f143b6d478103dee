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
  /**
   * How the field was processed over time (code table 4.10): `instant` (no statistical period),
   * `average`, `accumulation`, `maximum` or `minimum`; any when absent. Parameter 0.1.52 is
   * ECMWF's precipitation rate at a moment (`tprate`) and, accumulated, TIGGE's total precipitation.
   */
  process: Type.Optional(oneOf(['instant', 'average', 'accumulation', 'maximum', 'minimum'])),
});
export type FieldSelector = Static<typeof fieldSelectorSchema>;

/** Whether two selectors can pick the same field (an absent level or process matches any). */
export function overlaps(a: FieldSelector, b: FieldSelector): boolean {
  return (
    a.discipline === b.discipline &&
    a.category === b.category &&
    a.number === b.number &&
    a.levelType === b.levelType &&
    (a.level === undefined || b.level === undefined || a.level === b.level) &&
    (a.process === undefined || b.process === undefined || a.process === b.process)
  );
}

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

/** What the alternative sources of one variable share; each alternative adds its fields, scale and time. */
type Shared = Omit<VariableDefinition, 'fields' | 'scale' | 'time'>;
const pressure: Shared = { id: 'pressure-msl', name: 'Pressure (MSL)', description: 'Air pressure reduced to mean sea level', unit: 'hPa', offset: 0, min: 900, max: 1080 };
const precipitation: Shared = { id: 'precipitation-1h', name: 'Precipitation', description: 'Precipitation of all kinds, as a rate per hour', unit: 'mm/h', offset: 0, min: 0, max: 50 };
const precipitationRate: Shared = {
  id: 'precipitation_rate',
  name: 'Precipitation rate',
  description: 'Precipitation of all kinds at the moment, as a rate per hour (what a radar shows)',
  unit: 'mm/h',
  offset: 0,
  min: 0,
  max: 50,
};
const cloudCover: Shared = { id: 'cloud_cover-total', name: 'Total cloud cover', description: 'Cloud cover of the entire atmosphere', unit: '%', offset: 0, min: 0, max: 100 };
const windGust: Shared = {
  id: 'wind_gust-10m',
  name: 'Wind gusts 10 m',
  description: 'Wind gust speed 10 m above ground (the strongest since the previous step where the model gives a period)',
  unit: 'm/s',
  offset: 0,
  min: 0,
  max: 75,
};

/**
 * Several definitions may share an id (alternative sources of one variable): the first that matches
 * wins. Selectors are as GFS (NCEP) and ECMWF's open data encode the fields; the ECMWF ones were
 * checked with ecCodes 2.28 (`grib_set -s paramId=...` on its GRIB2 sample, then `grib_ls -p
 * discipline,parameterCategory,parameterNumber,typeOfFirstFixedSurface,level`).
 */
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
  { ...pressure, fields: [{ discipline: 0, category: 3, number: 1, levelType: 101 }], scale: 0.01, time: 'instant' },
  // ECMWF's `msl` is the pressure (0.3.0) at mean sea level; NCEP's PRMSL is 0.3.1.
  { ...pressure, fields: [{ discipline: 0, category: 3, number: 0, levelType: 101 }], scale: 0.01, time: 'instant' },
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
  { ...precipitation, fields: [{ discipline: 0, category: 1, number: 7, levelType: 1 }], scale: 3600, time: 'rate' },
  { ...precipitation, fields: [{ discipline: 0, category: 1, number: 8, levelType: 1 }], scale: 1, time: 'accumulation' },
  // ECMWF's `tp` (paramId 228) is in metres of water, in ECMWF's local parameter 0.1.193.
  { ...precipitation, fields: [{ discipline: 0, category: 1, number: 193, levelType: 1 }], scale: 1000, time: 'accumulation' },
  // TIGGE's (and ecCodes' paramId 228228) total precipitation in kg m-2: 0.1.52 accumulated.
  { ...precipitation, fields: [{ discipline: 0, category: 1, number: 52, levelType: 1, process: 'accumulation' }], scale: 1, time: 'accumulation' },
  // ECMWF's `tprate` (paramId 260048): the rate at the moment, kg m-2 s-1.
  { ...precipitationRate, fields: [{ discipline: 0, category: 1, number: 52, levelType: 1, process: 'instant' }], scale: 3600, time: 'rate' },
  // NCEP's PRATE.
  { ...precipitationRate, fields: [{ discipline: 0, category: 1, number: 7, levelType: 1 }], scale: 3600, time: 'rate' },
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
  { ...cloudCover, fields: [{ discipline: 0, category: 6, number: 1, levelType: 10 }], scale: 1, time: 'instant' },
  // NCEP files mark the entire atmosphere as its local surface 200.
  { ...cloudCover, fields: [{ discipline: 0, category: 6, number: 1, levelType: 200 }], scale: 1, time: 'instant' },
  // ECMWF's `tcc` as paramId 228164: WMO's 0.6.1 on the surface, in %.
  { ...cloudCover, fields: [{ discipline: 0, category: 6, number: 1, levelType: 1 }], scale: 1, time: 'instant' },
  // ECMWF's `tcc` as paramId 164 (ecCodes' default for the name): local 0.6.192, a fraction 0-1.
  { ...cloudCover, fields: [{ discipline: 0, category: 6, number: 192, levelType: 1 }], scale: 100, time: 'instant' },
  {
    // ECMWF's `2r` (paramId 260242) and NCEP's RH at 2 m above ground.
    id: 'relative_humidity-2m',
    name: 'Relative humidity 2 m',
    description: 'Relative humidity 2 m above ground',
    unit: '%',
    fields: [{ discipline: 0, category: 1, number: 1, levelType: 103, level: 2 }],
    scale: 1,
    offset: 0,
    min: 0,
    max: 100,
    time: 'instant',
  },
  // ECMWF's `10fg`/`10fg3`/`10fg6`: the strongest gust 10 m above ground since the previous step.
  { ...windGust, fields: [{ discipline: 0, category: 2, number: 22, levelType: 103, level: 10 }], scale: 1, time: 'instant' },
  // NCEP's GUST on the surface.
  { ...windGust, fields: [{ discipline: 0, category: 2, number: 22, levelType: 1 }], scale: 1, time: 'instant' },
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
