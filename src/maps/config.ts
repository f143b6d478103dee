/**
 * The maps area's settings: where map definitions come from, the decoded-tile cache of each render
 * thread, the render pool, and marker icons fetched from URLs.
 */

import { availableParallelism } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import { nullableString, section } from '../platform/settings.js';
import { definitionSchema, MAP_ID, type MapDefinition } from './definition.js';

export const mapsSettings = section({
  /** A folder of `<id>.json` map definitions; null means `<dataDir>/maps`. */
  dir: nullableString({ default: null, env: 'MERIDIAN_MAPS_DIR' }),
  /** Map definitions by id, besides (and taking precedence over) the folder's. */
  definitions: Type.Unsafe<Record<string, MapDefinition>>({
    type: 'object',
    propertyNames: { pattern: MAP_ID.source },
    additionalProperties: definitionSchema,
    default: {},
  }),
  /** Decoded tiles kept in memory, per open registry (each render thread opens one). */
  tileCacheMB: Type.Number({ minimum: 0, default: 256, env: 'MERIDIAN_MAPS_TILE_CACHE_MB' }),
  /** Render worker threads. */
  workers: Type.Integer({ minimum: 1, maximum: 256, default: Math.min(4, availableParallelism()), env: 'MERIDIAN_MAPS_WORKERS' }),
  /** Renders waiting for a thread before new requests get 503. */
  queue: Type.Integer({ minimum: 0, default: 64, env: 'MERIDIAN_MAPS_QUEUE' }),
  /** Time limit of one render. */
  timeoutMs: Type.Integer({ minimum: 100, maximum: 600000, default: 15000, env: 'MERIDIAN_MAPS_TIMEOUT_MS' }),
  /** `Cache-Control: public, max-age=` of static images. */
  maxAgeSeconds: Type.Integer({ minimum: 0, default: 86400, env: 'MERIDIAN_MAPS_MAX_AGE' }),
  /** Marker icons fetched from URLs; hosts on private networks only when allowed. */
  icons: section({
    maxBytes: Type.Integer({ minimum: 1, default: 1048576 }),
    timeoutMs: Type.Integer({ minimum: 100, maximum: 600000, default: 5000 }),
    cacheEntries: Type.Integer({ minimum: 0, default: 256 }),
    allowPrivateAddresses: Type.Boolean({ default: false }),
  }),
});

export type MapsConfig = Static<typeof mapsSettings>;
