import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rateLimitedError, type RateLimiter } from '../platform/rate-limit.js';
import { ApiError, NotFoundError } from '../platform/errors.js';
import type { AccountStore } from './accounts.js';
import { normalizeSettings, type ApiKeySettings } from './settings.js';
import type { ApiKeyStore } from './store.js';

declare module 'fastify' {
  interface FastifyRequest {
    accountId: string | null;
  }
}

export const apiKeySchema = {
  $id: 'APIKey',
  type: 'object',
  required: ['id', 'name', 'token', 'description', 'user_agent', 'origins', 'created', 'changed'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    token: { type: 'string' },
    description: { type: ['string', 'null'] },
    user_agent: { type: ['string', 'null'] },
    origins: { type: 'array', items: { type: 'string' } },
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

const keyIdParams = {
  type: 'object',
  required: ['key_id'],
  properties: { key_id: { type: 'string', format: 'uuid', description: 'Key identifier' } },
} as const;

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
  options: { accounts: AccountStore; keys: ApiKeyStore; limiter: RateLimiter; maxKeysPerAccount: number },
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
    const settings = normalizeSettings(body);
    if (typeof settings === 'string') throw new ApiError(settings);
    return settings;
  };

  app.get<{ Querystring: { limit: number; cursor?: string } }>(
    '/v1/api_keys',
    {
      schema: {
        ...common,
        summary: 'List keys of the account',
        querystring: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 10, maximum: 100, default: 50, description: 'Page size' },
            // Base64 as the pages give it, or base64url with or without padding, as URLs often carry it.
            cursor: { type: 'string', pattern: '^[A-Za-z0-9+/_ -]*={0,2}$', maxLength: 256, description: 'Cursor from the previous page of this account (base64 or base64url; opaque)' },
          },
        },
        response: { 200: { $ref: 'APIKeyPage#' }, ...errors },
      },
    },
    async (request) => keys.list(request.accountId!, request.query.limit, request.query.cursor ?? null),
  );

  app.post<{ Body: ApiKeySettings }>(
    '/v1/api_keys',
    {
      schema: {
        ...common,
        summary: 'Create key',
        body: { $ref: 'APIKeySettings#' },
        response: { 200: { $ref: 'APIKey#' }, ...errors },
      },
    },
    async (request) => keys.create(request.accountId!, settingsFrom(request.body), options.maxKeysPerAccount),
  );

  app.get<{ Params: { key_id: string } }>(
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

  app.delete<{ Params: { key_id: string } }>(
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

  app.post<{ Params: { key_id: string }; Body: ApiKeySettings }>(
    '/v1/api_keys/:key_id/change_settings',
    {
      schema: {
        ...common,
        summary: 'Change the settings of a key',
        description: 'Changes the fields present in the body and updates `changed`.',
        params: keyIdParams,
        body: { $ref: 'APIKeySettings#' },
        response: { 200: { $ref: 'APIKey#' }, ...errors, ...notFound },
      },
    },
    async (request) =>
      (await keys.update(request.accountId!, request.params.key_id, settingsFrom(request.body))) ??
      Promise.reject(new NotFoundError()),
  );
}
