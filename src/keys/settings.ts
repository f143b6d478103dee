import { Type, type Static } from '@sinclair/typebox';
import { nullable } from '../platform/http/typebox.js';
import { rateLimitBounds } from './config.js';
import { formatOriginRule, maxOriginRuleLength, maxOriginRules, parseOriginRule } from './origins.js';

/**
 * A key's own rate limit: a token bucket of `requests_per_second` refill and `burst` size, within
 * `rateLimitBounds` (config.ts: what storage and Redis hold) whatever the server's own limit (which
 * it may not exceed when there is one).
 */
const keyRateLimit = Type.Object(
  {
    requests_per_second: Type.Number({
      minimum: rateLimitBounds.minRequestsPerSecond,
      maximum: rateLimitBounds.maxRequestsPerSecond,
      description: 'Refill rate of the key\'s token bucket',
    }),
    burst: Type.Integer({ minimum: 1, maximum: rateLimitBounds.maxBurst, description: 'Size of the key\'s token bucket' }),
  },
  { additionalProperties: false, description: "The key's own rate limit, at most the server's (rate and burst each); null: the server's limit" },
);
export type KeyRateLimit = Static<typeof keyRateLimit>;

/** A key's quota: requests admitted per UTC calendar month. */
const keyQuota = Type.Object(
  {
    requests_per_month: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'Requests admitted per UTC calendar month; beyond, 429 until the month ends' }),
  },
  { additionalProperties: false, description: 'Requests the key may make per UTC calendar month; null: no quota' },
);
export type KeyQuota = Static<typeof keyQuota>;

/** The schema of a key's rate limit, in `APIKeySettings` and `APIKey`. */
export const keyRateLimitSchema = nullable(keyRateLimit);

/** The schema of a key's quota, in `APIKeySettings` and `APIKey`. */
export const keyQuotaSchema = nullable(keyQuota);

/** A key's limit and quota from their columns (null columns: none of its own). */
export function storedLimits(row: { rate_limit_rps: number | null; rate_limit_burst: number | null; quota_monthly: string | null }): {
  rate_limit: KeyRateLimit | null;
  quota: KeyQuota | null;
} {
  return {
    rate_limit: row.rate_limit_rps === null || row.rate_limit_burst === null ? null : { requests_per_second: row.rate_limit_rps, burst: row.rate_limit_burst },
    quota: row.quota_monthly === null ? null : { requests_per_month: Number(row.quota_monthly) },
  };
}

export const limits = {
  name: 128,
  description: 1024,
  userAgent: 512,
  origins: maxOriginRules,
  origin: maxOriginRuleLength,
} as const;

/**
 * `APIKeySettings`, the body of create and change_settings (the spec's, plus the optional `name`,
 * `rate_limit`, null for the server's limit, and `quota`, null for none); the origin syntax is
 * checked by `normalizeSettings`.
 */
export const apiKeySettingsSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: limits.name, description: 'Generated when not given' })),
    description: Type.Optional(nullable(Type.String({ maxLength: limits.description }))),
    user_agent: Type.Optional(nullable(Type.String({ maxLength: limits.userAgent, description: 'When set, the User-Agent of a request must contain this text' }))),
    origins: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: limits.origin }), {
        maxItems: limits.origins,
        description: 'Allowed origins: example.com, *.example.com, optionally with scheme and port',
      }),
    ),
    rate_limit: Type.Optional(keyRateLimitSchema),
    quota: Type.Optional(keyQuotaSchema),
  },
  { $id: 'APIKeySettings', additionalProperties: false },
);
export type ApiKeySettings = Static<typeof apiKeySettingsSchema>;

/**
 * Checks what the schema cannot (origin syntax, a rate limit above the server's `maxRateLimit`,
 * when the server limits at all) and puts values in canonical form: origins lower-cased and
 * de-duplicated, an empty `user_agent` meaning no restriction.
 * Returns the message of the first problem instead when there is one.
 */
export function normalizeSettings(input: ApiKeySettings, maxRateLimit: { requestsPerSecond: number; burst: number }): ApiKeySettings | string {
  const out: ApiKeySettings = { ...input };
  // A key's limit may lower the server's, not lift it: accounts set their own keys' limits.
  const { requestsPerSecond, burst } = maxRateLimit;
  if (input.rate_limit && requestsPerSecond > 0) {
    if (input.rate_limit.requests_per_second > requestsPerSecond) return `rate_limit.requests_per_second must be at most ${requestsPerSecond}, the server's limit`;
    if (input.rate_limit.burst > burst) return `rate_limit.burst must be at most ${burst}, the server's limit`;
  }
  if (input.origins !== undefined) {
    const canonical: string[] = [];
    for (const [index, text] of input.origins.entries()) {
      const rule = parseOriginRule(text);
      if (!rule) {
        return `origins[${index}] "${text}" is not a valid origin rule: use example.com or *.example.com, optionally with http(s):// and :port`;
      }
      const formatted = formatOriginRule(rule);
      if (!canonical.includes(formatted)) canonical.push(formatted);
    }
    out.origins = canonical;
  }
  if (input.user_agent === '') out.user_agent = null;
  if (input.name !== undefined && input.name.trim() === '') return 'name must not be blank';
  // PostgreSQL text cannot hold U+0000.
  for (const field of ['name', 'description', 'user_agent'] as const) {
    if (input[field]?.includes('\u0000')) return `${field} must not contain NUL characters`;
  }
  return out;
}
