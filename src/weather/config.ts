/**
 * The weather area's settings: runs kept per model, the tile format of new tilesets, variables
 * added to (or taking precedence over) the built-in table, and downloading GFS runs.
 */

import { Type, type Static } from '@sinclair/typebox';
import { oneOf, section } from '../platform/settings.js';
import { variableSchema } from './variables.js';

export const weatherSettings = section({
  keepRuns: Type.Integer({ minimum: 1, maximum: 1000, default: 1, env: 'MERIDIAN_WEATHER_KEEP_RUNS' }),
  tileFormat: oneOf(['png', 'webp'], { default: 'png', env: 'MERIDIAN_WEATHER_TILE_FORMAT' }),
  variables: Type.Array(variableSchema, { default: [] }),
  /** Threads that decode and tile ingests, ingests that may wait for one, and an ingest's time limit. */
  workers: Type.Integer({ minimum: 1, maximum: 64, default: 1, env: 'MERIDIAN_WEATHER_WORKERS' }),
  queue: Type.Integer({ minimum: 0, default: 8 }),
  ingestTimeoutMs: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 1_800_000 }),
  /**
   * Downloading GFS runs: from where (NOMADS by default), which forecast hours (hourly 0-96 by
   * default: about four days of hourly keyframes, as the hosted service offers; NOMADS has hourly
   * files at 0p25 only, 3-hourly at 0p50 and 1p00), and how often `serve` looks (0: never).
   */
  fetch: section({
    baseUrl: Type.String({ pattern: '^https?://', default: 'https://nomads.ncep.noaa.gov/pub/data/nccf/com/gfs/prod', env: 'MERIDIAN_WEATHER_FETCH_URL' }),
    resolution: oneOf(['0p25', '0p50', '1p00'], { default: '0p25' }),
    steps: Type.String({
      pattern: '^\\d{1,3}(-\\d{1,3}(/\\d{1,3})?)?(,\\d{1,3}(-\\d{1,3}(/\\d{1,3})?)?)*$',
      default: '0-96/1',
      env: 'MERIDIAN_WEATHER_FETCH_STEPS',
    }),
    intervalMinutes: Type.Integer({ minimum: 0, maximum: 1440, default: 0, env: 'MERIDIAN_WEATHER_FETCH_INTERVAL' }),
  }),
});

export type WeatherConfig = Static<typeof weatherSettings>;
