/** The key gate's settings: rate limits, usage counting, the cache of verified keys and the budget of unknown ones. */

import { Type } from '@sinclair/typebox';
import { maxLruEntries } from '../platform/lru.js';
import { section } from '../platform/settings.js';

/**
 * What a token bucket's rate and size may be, for the server's limits as for a key's own: a rate no
 * slower than one request per 1,000 s, so that a full bucket's refill time in milliseconds, the
 * expiry of its Redis hash, stays an integer Redis accepts (at 1e-300 Redis refuses it and the
 * shared limiter fails open) and `RateLimit-Reset` a whole number of seconds; finite (JSON's 1e309
 * parses as Infinity): a billion requests a second limits nothing an instance can serve; and a
 * size a PostgreSQL `integer` holds (a key's burst is one, and at most the server's), which keeps
 * that expiry, at most 2.2e15 ms, exact.
 */
export const rateLimitBounds = { minRequestsPerSecond: 0.001, maxRequestsPerSecond: 1e9, maxBurst: 2 ** 31 - 1 } as const;

interface BucketOptions {
  default: number;
  env?: string;
  description: string;
}

/** A bucket's refill rate: `0` (no limit) or within `rateLimitBounds`. */
function refillRate(options: BucketOptions) {
  return Type.Union([Type.Literal(0), Type.Number({ minimum: rateLimitBounds.minRequestsPerSecond, maximum: rateLimitBounds.maxRequestsPerSecond })], options);
}

/** A bucket's size, checked whether or not its rate limits anything. */
function bucketSize(options: BucketOptions) {
  return Type.Integer({ minimum: 1, maximum: rateLimitBounds.maxBurst, ...options });
}

export const keysSettings = {
  rateLimit: section({
    requestsPerSecond: refillRate({ default: 50, env: 'MERIDIAN_RATE_LIMIT_RPS', description: 'per-key refill rate; `0` turns rate limiting off' }),
    burst: bucketSize({ default: 100, env: 'MERIDIAN_RATE_LIMIT_BURST', description: 'per-key bucket size' }),
  }),
  usage: section({
    flushIntervalMs: Type.Integer({ minimum: 100, maximum: 3600000, default: 5000, env: 'MERIDIAN_USAGE_FLUSH_MS', description: 'how often usage counts are written' }),
  }),
  /** Key management (`/v1/api_keys`): how many keys an account may hold, and how fast it may call. */
  management: section({
    maxKeysPerAccount: Type.Integer({ minimum: 1, default: 10000, env: 'MERIDIAN_MAX_KEYS_PER_ACCOUNT', description: 'keys one account may hold; creating more is refused (403)' }),
    requestsPerSecond: refillRate({ default: 10, description: 'per-account refill rate of key-management calls; `0` turns the limit off' }),
    burst: bucketSize({ default: 50, description: 'per-account bucket size of key-management calls' }),
  }),
  gate: section({
    cacheSize: Type.Integer({ minimum: 0, maximum: maxLruEntries, default: 10000, description: 'verified keys kept in memory' }),
    negativeCacheMs: Type.Integer({ minimum: 0, maximum: 60000, default: 2000, description: 'how long an unknown token is remembered' }),
    negativeCacheSize: Type.Integer({ minimum: 0, maximum: maxLruEntries, default: 10000, description: 'unknown tokens remembered, apart from verified keys (so guesses cannot push those out)' }),
  }),
  /** What a client guessing keys may cost: database lookups that find no key, per client network. */
  unknownKeys: section({
    requestsPerSecond: refillRate({
      default: 1,
      description:
        'per client address (per /64 for IPv6) refill rate of key lookups that find no key; over the budget, a key this instance has not verified gets 429 without a database query; `0` turns the limit off',
    }),
    burst: bucketSize({ default: 20, description: 'per client address bucket size of key lookups that find no key' }),
  }),
};
