/**
 * The weather area's settings: runs kept per model, the tile format of new tilesets, variables
 * added to the built-in table, the ingest worker pool, and the providers runs are downloaded
 * from: GFS from NOMADS (`fetch`, its name from when it was the only one) and ECMWF's open data
 * (`ecmwf`, models IFS and AIFS Single).
 */

import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { nullableString, oneOf, section } from '../platform/settings.js';
import { ecmwfModels } from './providers/ecmwf-layout.js';
import { variableSchema } from './variables.js';

const stepsPattern = '^\\d{1,3}(-\\d{1,3}(/\\d{1,3})?)?(,\\d{1,3}(-\\d{1,3}(/\\d{1,3})?)?)*$';

/** Which variables a provider downloads, by base id (`temperature-2m`); all it publishes when empty. */
const fetchedVariables = (provider: string) =>
  Type.Array(Type.String({ pattern: '^[a-z0-9_-]{1,64}$' }), {
    default: [],
    description: `variable ids fetched from ${provider} (\`temperature-2m\`, \`wind-10m\`, ...); empty: every variable it publishes`,
  });

export const weatherSettings = section({
  dir: nullableString({
    default: null,
    env: 'MERIDIAN_WEATHER_DIR',
    shownDefault: '`<dataDir>/weather`',
    description:
      'folder of the weather archives and source grids: with several instances, one volume they all share (`weather ingest` on PostgreSQL must write to it too); instances list only the keyframes they can read there',
  }),
  keepRuns: Type.Integer({ minimum: 1, maximum: 1000, default: 1, env: 'MERIDIAN_WEATHER_KEEP_RUNS', description: 'runs kept per model' }),
  tileFormat: oneOf(['png', 'webp'], { default: 'png', env: 'MERIDIAN_WEATHER_TILE_FORMAT', description: '`png` or `webp` (both lossless)' }),
  variables: Type.Array(variableSchema, { default: [], description: 'extra variable definitions, tried before the built-in ones' }),
  workers: Type.Integer({ minimum: 1, maximum: 64, default: 1, env: 'MERIDIAN_WEATHER_WORKERS', description: 'threads that decode and tile ingested GRIB2 files' }),
  queue: Type.Integer({ minimum: 0, default: 8, description: 'ingests that may wait for a thread before they are refused (503)' }),
  ingestTimeoutMs: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 1_800_000, description: 'time limit of the decoding and tiling of one ingest' }),
  fetch: section({
    baseUrl: Type.String({
      pattern: '^https?://',
      default: 'https://nomads.ncep.noaa.gov/pub/data/nccf/com/gfs/prod',
      env: 'MERIDIAN_WEATHER_FETCH_URL',
      shownDefault: 'NOMADS GFS',
      description: 'where GFS runs are downloaded from',
    }),
    resolution: oneOf(['0p25', '0p50', '1p00'], {
      default: '0p25',
      description: '`0p25`, `0p50` or `1p00` (NOMADS has hourly files at 0p25 only, 3-hourly at 0p50 and 1p00)',
    }),
    steps: Type.String({
      pattern: stepsPattern,
      default: '0-96/1',
      env: 'MERIDIAN_WEATHER_FETCH_STEPS',
      description: 'forecast hours: `a`, `a-b`, `a-b/step`, comma-separated (default: four days of hourly keyframes, as the hosted service offers)',
    }),
    intervalMinutes: Type.Integer({
      minimum: 0,
      maximum: 1440,
      default: 0,
      env: 'MERIDIAN_WEATHER_FETCH_INTERVAL',
      description: 'how often `serve` looks for a new GFS run; 0: never',
    }),
    variables: fetchedVariables('GFS'),
  }),
  ecmwf: section({
    baseUrl: Type.String({
      pattern: '^https?://',
      default: 'https://data.ecmwf.int/forecasts',
      env: 'MERIDIAN_WEATHER_ECMWF_URL',
      description: "where ECMWF open-data runs are downloaded from (ECMWF's server or a mirror in its layout)",
    }),
    models: Type.Array(oneOf([...ecmwfModels]), {
      default: ['ifs'],
      uniqueItems: true,
      description: '`ifs` and/or `aifs-single`: the models `serve` fetches on its interval',
    }),
    steps: Type.String({
      pattern: stepsPattern,
      default: '0-144/3,150-240/6',
      env: 'MERIDIAN_WEATHER_ECMWF_STEPS',
      description: 'forecast hours, as for GFS; each run is asked for those it publishes (IFS 06/18 UTC: to 90 h; AIFS: every 6 h)',
    }),
    intervalMinutes: Type.Integer({
      minimum: 0,
      maximum: 1440,
      default: 0,
      env: 'MERIDIAN_WEATHER_ECMWF_INTERVAL',
      description: 'how often `serve` looks for a new run of each ECMWF model; 0: never',
    }),
    variables: fetchedVariables('ECMWF'),
  }),
});

export type WeatherConfig = Static<typeof weatherSettings>;

/** The folder of weather archives: `weather.dir`, or `weather` under the data directory. */
export function weatherDirectoryOf(config: { dataDir: string; weather: { dir: string | null } }): string {
  return config.weather.dir ?? path.join(config.dataDir, 'weather');
}
