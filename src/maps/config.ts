/**
 * The maps area's settings: where map definitions come from, the decoded-tile cache of each render
 * thread, the render pool, and marker icons fetched from URLs.
 */

import { availableParallelism } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import { maxLruEntries } from '../platform/lru.js';
import { nullableString, oneOf, section } from '../platform/settings.js';
import { RASTER_STORES } from './raster/tile-store.js';
import { definitionSchema, MAP_ID, type MapDefinition } from './definition.js';

export const mapsSettings = section({
  dir: nullableString({ default: null, env: 'MERIDIAN_MAPS_DIR', shownDefault: '`<dataDir>/maps`', description: 'folder of map definitions (`<id>.json`)' }),
  watch: Type.Boolean({
    default: true,
    env: 'MERIDIAN_MAPS_WATCH',
    description: 'reload the maps when a file in the maps folder changes (`serve` reloads them on `SIGHUP` too, always)',
  }),
  definitions: Type.Unsafe<Record<string, MapDefinition>>({
    type: 'object',
    propertyNames: { pattern: MAP_ID.source },
    additionalProperties: definitionSchema,
    default: {},
    description: 'more map definitions by id, taking precedence over the folder\'s (see [Maps](guide/maps.md#maps))',
  }),
  tileCacheMB: Type.Number({
    minimum: 0,
    default: 256,
    env: 'MERIDIAN_MAPS_TILE_CACHE_MB',
    description:
      'decoded tiles kept in memory, per render thread, with the paths, selections and label layouts drawn from them (sizes as measured on Node 20; resident memory runs about 1.5x the figure)',
  }),
  rasterCacheMB: Type.Number({
    minimum: 0,
    default: 128,
    env: 'MERIDIAN_MAPS_RASTER_CACHE_MB',
    description: 'encoded raster tiles kept in memory by the serving thread, for all maps together (0 keeps none)',
  }),
  rasterStore: oneOf(RASTER_STORES, {
    default: 'none',
    env: 'MERIDIAN_MAPS_RASTER_STORE',
    description:
      'where rendered raster tiles are kept beyond memory, shared by instances: `none`, `folder` (`rasterStoreDir`, on a volume the instances share) or `database` (the database of keys and weather)',
  }),
  rasterStoreDir: nullableString({ default: null, env: 'MERIDIAN_MAPS_RASTER_STORE_DIR', shownDefault: '`<dataDir>/raster-tiles`', description: 'folder of the `folder` raster tile store' }),
  workers: Type.Integer({
    minimum: 1,
    maximum: 256,
    default: Math.min(4, availableParallelism()),
    env: 'MERIDIAN_MAPS_WORKERS',
    shownDefault: 'min(4, CPUs)',
    description: 'render threads',
  }),
  queue: Type.Integer({ minimum: 0, default: 64, env: 'MERIDIAN_MAPS_QUEUE', description: 'renders that may wait for a thread before 503 (and only as many as can finish within `timeoutMs`: see [Render admission](#render-admission))' }),
  timeoutMs: Type.Integer({ minimum: 100, maximum: 600000, default: 15000, env: 'MERIDIAN_MAPS_TIMEOUT_MS', description: 'time limit of a static image or raster tile render, counted from its admission, waiting included (503 beyond; glyph ranges: from their start on a thread)' }),
  // RFC 9111 (1.2.2): caches read a larger delta-seconds as 2^31; beyond 1e21 it would be written in exponent notation.
  maxAgeSeconds: Type.Integer({ minimum: 0, maximum: 2 ** 31, default: 86400, env: 'MERIDIAN_MAPS_MAX_AGE', description: '`Cache-Control` max-age of images' }),
  icons: section({
    maxBytes: Type.Integer({ minimum: 1, default: 1048576, description: 'largest marker icon' }),
    timeoutMs: Type.Integer({ minimum: 100, maximum: 600000, default: 5000, description: 'time limit of an icon download' }),
    cacheEntries: Type.Integer({ minimum: 0, maximum: maxLruEntries, default: 256, description: 'icons kept in memory' }),
    cacheBytes: Type.Integer({
      minimum: 0,
      default: 33554432,
      env: 'MERIDIAN_MAPS_ICON_CACHE_BYTES',
      description: 'bytes of the icons kept in memory, together (the least recently used go first past it, or past `cacheEntries`)',
    }),
    allowPrivateAddresses: Type.Boolean({ default: false, description: 'allow icon URLs on loopback and private networks' }),
    maxPerRequest: Type.Integer({ minimum: 1, default: 16, description: 'distinct icon URLs one image may name (400 beyond, before any download)' }),
    maxBytesPerRequest: Type.Integer({ minimum: 1, default: 4194304, description: 'icon bytes one image may download (400 beyond)' }),
    maxDownloads: Type.Integer({ minimum: 1, default: 8, description: 'icon downloads in flight per instance; more wait their turn' }),
    failureCacheMs: Type.Integer({ minimum: 0, maximum: 3600000, default: 30000, description: 'how long an icon URL that failed keeps failing without another download' }),
  }),
});

export type MapsConfig = Static<typeof mapsSettings>;
