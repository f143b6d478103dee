import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { defaulted, type TypeBoxTypeProvider } from '../platform/http/typebox.js';
import { rateLimitedError, type RateLimiter } from '../platform/rate-limit.js';
import { ApiError, NotFoundError } from '../platform/errors.js';
import type { AccountStore } from './accounts.js';
import { keyQuotaSchema, keyRateLimitSchema, normalizeSettings, type ApiKeySettings } from './settings.js';
import type { ApiKeyStore } from './store.js';
import { usageAreas, type UsageRecorder } from './usage.js';

/** How far back `/v1/usage` reaches. */
const maxUsageDays = 366;

declare module 'fastify' {
  interface FastifyRequest {
    accountId: string | null;
  }
}

export const apiKeySchema = {
  $id: 'APIKey',
  type: 'object',
  required: ['id', 'name', 'token', 'description', 'user_agent', 'origins', 'rate_limit', 'quota', 'created', 'changed'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    token: { type: 'string' },
    description: { type: ['string', 'null'] },
    user_agent: { type: ['string', 'null'] },
    origins: { type: 'array', items: { type: 'string' } },
    rate_limit: keyRateLimitSchema,
    quota: keyQuotaSchema,
    created: { type: 'string', format: 'date-time' },
    changed: { type: 'string', format: 'date-time' },
  },
} as const;

export const apiKeyPageSchema = {
  $id: 'APIKeyPage',
  type: 'object',
  required: ['cursor', 'total_count', 'items'],
  properties: {
    cursor: { type: ['string', 'null'], format: 'byte', description: 'Cursor of the next page; null on the last' },
    total_count: { type: 'integer' },
    items: { type: 'array', items: { $ref: 'APIKey#' } },
  },
} as const;

const usageCountSchema = {
  type: 'object',
  required: ['day', 'area', 'requests'],
  properties: {
    day: { type: 'string', format: 'date', description: 'UTC day' },
    area: { type: 'string', description: `Area of the API: ${usageAreas.join(', ')}; \`unknown\` for counts from before areas were told apart` },
    requests: { type: 'integer' },
  },
} as const;

export const accountUsageSchema = {
  $id: 'AccountUsage',
  type: 'object',
  required: ['since', 'until', 'rate_limit', 'total', 'by_area', 'days', 'keys'],
  properties: {
    since: { type: 'string', format: 'date', description: 'First UTC day counted' },
    until: { type: 'string', format: 'date', description: 'Last UTC day counted (today)' },
    rate_limit: {
      type: 'object',
      description: "The server's rate limit, of every key without one of its own (a token bucket per key and instance, or shared through Redis)",
      required: ['requests_per_second', 'burst'],
      properties: { requests_per_second: { type: 'number', description: '0: not limited' }, burst: { type: 'integer' } },
    },
    total: { type: 'integer', description: 'Requests of all keys of the account in the period, deleted keys included' },
    by_area: { type: 'object', additionalProperties: { type: 'integer' }, description: 'The total by area' },
    days: { type: 'array', items: usageCountSchema, description: 'Requests of all keys per day and area, oldest first; days and areas without requests left out' },
    keys: {
      type: 'array',
      description: 'Every key of the account in creation order, then deleted keys used in the period',
      items: {
        type: 'object',
        required: ['id', 'name', 'rate_limit', 'quota', 'month_requests', 'last_used', 'total', 'days'],
        properties: {
          id: { type: 'string', format: 'uuid' },
          name: { type: ['string', 'null'], description: 'null once the key is deleted' },
          rate_limit: { ...keyRateLimitSchema, description: "The key's own rate limit; null: the server's (`rate_limit` above), or a deleted key" },
          quota: { ...keyQuotaSchema, description: "The key's monthly quota; null: none, or a deleted key" },
          month_requests: { type: 'integer', description: 'Requests of the key in the current UTC calendar month, which its quota counts' },
          last_used: { type: ['string', 'null'], format: 'date-time', description: 'Last request admitted with the key, ever; null if none' },
          total: { type: 'integer', description: 'Requests in the period' },
          days: { type: 'array', items: usageCountSchema, description: 'Per day and area, oldest first' },
        },
      },
    },
  },
} as const;

/** The routes' request parts, declared once: their types, validation and OpenAPI entries come from these. */
const keyIdParams = Type.Object({ key_id: Type.String({ format: 'uuid', description: 'Key identifier' }) });
const settingsBody = Type.Unsafe<ApiKeySettings>({ $ref: 'APIKeySettings#' });
const listQuerystring = Type.Object({
  limit: defaulted(Type.Integer({ minimum: 10, maximum: 100, default: 50, description: 'Page size' })),
  // Base64 as the pages give it, or base64url with or without padding, as URLs often carry it.
  cursor: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/_ -]*={0,2}$', maxLength: 256, description: 'Cursor from the previous page of this account (base64 or base64url; opaque)' })),
});
const usageQuerystring = Type.Object({
  days: defaulted(Type.Integer({ minimum: 1, maximum: maxUsageDays, default: 30, description: 'Days counted, today included' })),
});

const errors = {
  400: { $ref: 'ErrorBody#', description: 'Invalid request' },
  401: { $ref: 'ErrorBody#', description: 'Missing or invalid service token' },
} as const;

const notFound = { 404: { $ref: 'ErrorBody#', description: 'No such key in this account' } } as const;

const common = { tags: ['API keys'], security: [{ serviceToken: [] }] } as const;


/** The service token of `Authorization: Token <token>`, or null. */
function serviceToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (!header) return null;
  const match = /^Token\s+(\S{1,256})\s*$/i.exec(header);
  return match ? match[1]! : null;
}

/** The key-management API of spec 4.1 under `/v1/api_keys`, for accounts holding a service token. */
export async function keyManagementRoutes(
  app: FastifyInstance,
  options: {
    accounts: AccountStore;
    keys: ApiKeyStore;
    limiter: RateLimiter;
    maxKeysPerAccount: number;
    usage: UsageRecorder;
    /** The gate's per-key rate limit, which `/v1/usage` reports and keys' own limits may not exceed. */
    keyRateLimit: { requestsPerSecond: number; burst: number };
  },
): Promise<void> {
  const { accounts, keys, limiter } = options;
  app.decorateRequest('accountId', null);

  app.addHook('onRequest', async (request) => {
    const token = serviceToken(request);
    const accountId = token ? await accounts.authenticate(token) : null;
    if (!accountId) {
      throw new ApiError('Missing or invalid service token: send Authorization: Token <service-token>', 'unauthorized', {
        'www-authenticate': 'Token',
      });
    }
    request.accountId = accountId;
    const decision = await limiter.take(`account:${accountId}`);
    if (!decision.allowed) {
      app.metrics.rateLimited('management');
      throw rateLimitedError('Rate limit exceeded for key management', decision);
    }
  });

  // A POST without any body means "all defaults" rather than an error.
  app.addHook('preValidation', async (request) => {
    if (request.method === 'POST' && request.body === undefined) request.body = {};
  });

  const settingsFrom = (body: ApiKeySettings): ApiKeySettings => {
    const settings = normalizeSettings(body, options.keyRateLimit);
    if (typeof settings === 'string') throw new ApiError(settings);
    return settings;
  };

  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/v1/api_keys',
    {
      schema: {
        ...common,
        summary: 'List keys of the account',
        querystring: listQuerystring,
        response: { 200: { $ref: 'APIKeyPage#' }, ...errors },
      },
    },
    async (request) => keys.list(request.accountId!, request.query.limit, request.query.cursor ?? null),
  );

  typed.post(
    '/v1/api_keys',
    {
      schema: {
        ...common,
        summary: 'Create key',
        body: settingsBody,
        response: { 200: { $ref: 'APIKey#' }, ...errors },
      },
    },
    async (request) => keys.create(request.accountId!, settingsFrom(request.body), options.maxKeysPerAccount),
  );

  typed.get(
    '/v1/api_keys/:key_id',
    {
      schema: {
        ...common,
        summary: 'Get key',
        params: keyIdParams,
        response: { 200: { $ref: 'APIKey#' }, ...errors, ...notFound },
      },
    },
    async (request) => (await keys.get(request.accountId!, request.params.key_id)) ?? Promise.reject(new NotFoundError()),
  );

  typed.delete(
    '/v1/api_keys/:key_id',
    {
      schema: {
        ...common,
        summary: 'Delete key',
        description: 'The key stops working at once, on every instance.',
        params: keyIdParams,
        response: {
          200: {
            description: 'Successfully deleted',
            type: 'object',
            required: ['id', 'deleted'],
            properties: { id: { type: 'string', format: 'uuid' }, deleted: { type: 'boolean' } },
          },
          ...errors,
          ...notFound,
        },
      },
    },
    async (request) => {
      if (!(await keys.delete(request.accountId!, request.params.key_id))) throw new NotFoundError();
      return { id: request.params.key_id, deleted: true };
    },
  );

  typed.post(
    '/v1/api_keys/:key_id/change_settings',
    {
      schema: {
        ...common,
        summary: 'Change the settings of a key',
        description: 'Changes the fields present in the body and updates `changed`.',
        params: keyIdParams,
        body: settingsBody,
        response: { 200: { $ref: 'APIKey#' }, ...errors, ...notFound },
      },
    },
    async (request) =>
      (await keys.update(request.accountId!, request.params.key_id, settingsFrom(request.body))) ??
      Promise.reject(new NotFoundError()),
  );

  typed.get(
    '/v1/usage',
    {
      schema: {
        ...common,
        summary: "Usage of the account's keys",
        description: 'Requests admitted by the key gate per key, UTC day and area of the API over the last `days` days (today included), with totals, each key\'s last use, rate limit, quota and requests this month, and the server\'s rate limit.',
        querystring: usageQuerystring,
        response: { 200: { $ref: 'AccountUsage#' }, ...errors },
      },
    },
    async (request) => {
      const today = new Date();
      const since = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - request.query.days + 1)).toISOString().slice(0, 10);
      const { keys: keyUsage } = await options.usage.account(request.accountId!, since);
      const days = new Map<string, { day: string; area: string; requests: number }>();
      const byArea: Record<string, number> = {};
      let total = 0;
      for (const key of keyUsage) {
        for (const count of key.counts) {
          const id = `${count.day}/${count.area}`;
          const day = days.get(id) ?? days.set(id, { day: count.day, area: count.area, requests: 0 }).get(id)!;
          day.requests += count.requests;
          byArea[count.area] = (byArea[count.area] ?? 0) + count.requests;
          total += count.requests;
        }
      }
      return {
        since,
        until: today.toISOString().slice(0, 10),
        rate_limit: { requests_per_second: options.keyRateLimit.requestsPerSecond, burst: options.keyRateLimit.burst },
        total,
        by_area: byArea,
        days: [...days.values()].sort((a, b) => a.day.localeCompare(b.day) || a.area.localeCompare(b.area)),
        keys: keyUsage.map((key) => ({
          id: key.id,
          name: key.name,
          rate_limit: key.rateLimit,
          quota: key.quota,
          month_requests: key.monthRequests,
          last_used: key.lastUsed,
          total: key.counts.reduce((sum, count) => sum + count.requests, 0),
          days: key.counts,
        })),
      };
    },
  );
}
