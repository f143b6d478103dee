/** The key gate's settings: rate limits, usage counting and the cache of verified keys. */

import { Type, type Static } from '@sinclair/typebox';
import { section } from '../platform/settings.js';

export const keysSettings = {
  /** Per-key token bucket; `requestsPerSecond: 0` turns rate limiting off. */
  rateLimit: section({
    requestsPerSecond: Type.Number({ minimum: 0, default: 50, env: 'MERIDIAN_RATE_LIMIT_RPS' }),
    burst: Type.Integer({ minimum: 1, default: 100, env: 'MERIDIAN_RATE_LIMIT_BURST' }),
  }),
  usage: section({
    flushIntervalMs: Type.Integer({ minimum: 100, maximum: 3600000, default: 5000, env: 'MERIDIAN_USAGE_FLUSH_MS' }),
  }),
  gate: section({
    cacheSize: Type.Integer({ minimum: 0, default: 10000 }),
    negativeCacheMs: Type.Integer({ minimum: 0, maximum: 60000, default: 2000 }),
  }),
};

const keysSchema = section(keysSettings);
export type KeysConfig = Static<typeof keysSchema>;
