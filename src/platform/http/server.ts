import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import { Ajv, type AnySchema } from 'ajv';
import addFormatsModule from 'ajv-formats';
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import type { DestinationStream } from 'pino';
import type { PlatformConfig } from '../config.js';
import { clientErrorResponse, errorBodySchema, frameworkErrorHandler, installErrorHandlers, MAX_URI_BYTES } from '../errors.js';
import { logAccess, loggerOptions, requestId } from '../logging.js';
import { Metrics } from '../metrics.js';
import { rateLimitHeaderDocs } from '../rate-limit.js';
import { checkRequestHead } from './request-head.js';
import { boundConnectionsAwaitingHeaders } from './slow-headers.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext resolution.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests received and not yet answered. */
    inflightRequests(): number;
    /** The instance's metrics, shared by its listeners: route plugins record cache use through it. */
    metrics: Metrics;
  }
}

/** Schemas that routes refer to by `$ref: '<id>#'`; they become OpenAPI components. */
export type SharedSchema = AnySchema & { $id: string };

export interface HttpAppOptions {
  logLevel: PlatformConfig['logLevel'];
  /** Fastify's: the proxies believed, a hop count, or every hop (`true`). */
  trustProxy: PlatformConfig['trustProxy'];
  logStream?: DestinationStream | undefined;
  title: string;
  sharedSchemas: readonly SharedSchema[];
  /** Largest request body accepted; larger ones get 413. */
  bodyLimit?: number;
  /** Where requests are counted; the listeners of one instance share one. */
  metrics?: Metrics;
  /** Bounds on connections that have not sent their headers yet. */
  http: PlatformConfig['http'];
}

/**
 * Request bodies are validated strictly (unknown fields and wrong types are errors), while path
 * and query strings are coerced to the declared types, since they arrive as text (a parameter
 * declared as an array also accepts a single value).
 */
function validators(shared: readonly SharedSchema[]) {
  const make = (coerceTypes: boolean | 'array') => {
    const ajv = new Ajv({ coerceTypes, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
    addFormats(ajv);
    // ajv-formats' uuid also takes a `urn:uuid:` prefix, which no database column holds.
    ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
    for (const schema of shared) ajv.addSchema(schema);
    return ajv;
  };
  const strict = make(false);
  const coercing = make('array');
  return ({ schema, httpPart }: { schema: AnySchema; httpPart?: string }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema);
}

/**
 * A compressed body is another representation of the resource than the bytes its ETag was made
 * of: its tag becomes weak, as web servers do, so that no cache takes one encoding's bytes for the
 * other's. (If-None-Match compares weakly, so the tag a client sends back still matches.) Bodies a
 * route sends compressed itself (tiles stored gzipped) keep their tag: it is that of their bytes.
 */
function weakenCompressedTags(app: FastifyInstance): void {
  const encodedByRoute = new WeakSet<FastifyReply>();
  app.addHook('onRoute', (route) => {
    const hooks = [route.onSend ?? []].flat();
    route.onSend = [
      async (_request, reply, payload) => {
        if (reply.getHeader('content-encoding') !== undefined) encodedByRoute.add(reply);
        return payload;
      },
      ...hooks,
      async (_request, reply, payload) => {
        const etag = reply.getHeader('etag');
        if (typeof etag === 'string' && !etag.startsWith('W/') && reply.getHeader('content-encoding') !== undefined && !encodedByRoute.has(reply)) {
          reply.header('etag', `W/${etag}`);
        }
        return payload;
      },
    ];
  });
}

/**
 * What responses are compressed: JSON, text (HTML, CSS, the metrics), JavaScript, XML (WMTS
 * capabilities) and protobuf (vector tiles, glyph ranges); images never, as PNG, JPEG and WebP are
 * compressed already.
 */
const compressibleType = /^(?:text\/|application\/(?:json|javascript|x-protobuf|xml)(?:;|$)|application\/[\w.+-]+\+(?:json|xml)(?:;|$))/;

function hopsTrusted(hops: number): (address: string, hop: number) => boolean {
  return (_address, hop) => hop < hops;
}

/**
 * A Fastify instance with what every listener shares: structured logs with a request id, the
 * error body on every failure, strict validation, compression (brotli or gzip, as the client
 * accepts) of what is not compressed already, and an OpenAPI 3 document generated from the route
 * schemas at `/openapi.json`.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(options.logLevel, options.logStream),
    genReqId: requestId,
    // One access line per request (logAccess) instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    return503OnClosing: true,
    // A hop count as Fastify reads one (its types leave numbers out): the nearest `n` hops are proxies.
    trustProxy: typeof options.trustProxy === 'number' ? hopsTrusted(options.trustProxy) : options.trustProxy,
    routerOptions: { maxParamLength: MAX_URI_BYTES },
    http: {
      // checkRequestHead answers a missing Host with the error body; Node's check answers an empty 400.
      requireHostHeader: false,
      headersTimeout: options.http.headersTimeoutMs,
      // Node checks headersTimeout against its default of 300 s here; Fastify then sets its own (0: none).
      requestTimeout: 0,
      // Node looks for connections past the timeout every 30 s by default, which would let one live 30 s longer.
      connectionsCheckingInterval: 1000,
    },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler(error, socket) {
      // Node answers a request it timed out before any route saw it: the log is the only trace of it.
      if ((error as { code?: string }).code === 'ERR_HTTP_REQUEST_TIMEOUT') app.log.warn({ remoteAddress: socket.remoteAddress }, 'request timed out by the server before it was complete (408)');
      const response = clientErrorResponse(error as unknown as Error & { code?: string; rawPacket?: Buffer });
      if (response !== null && socket.writable) socket.end(response);
      socket.destroy();
    },
  });
  // Before any route: the plugin attaches itself to each route as it is declared. A response that
  // already has a Content-Encoding (a vector tile stored gzipped) is sent as it is. Request bodies
  // are not decompressed: they are small JSON, and a compressed body could expand past bodyLimit.
  await app.register(compress, {
    encodings: ['br', 'gzip'],
    customTypes: (type: string) => compressibleType.test(type),
    globalDecompression: false,
  });
  weakenCompressedTags(app);
  boundConnectionsAwaitingHeaders(app.server, options.http.maxConnectionsAwaitingHeaders);
  logAccess(app);
  app.addHook('onRequest', checkRequestHead);
  const shared: SharedSchema[] = [errorBodySchema as unknown as SharedSchema, ...options.sharedSchemas];
  for (const schema of shared) app.addSchema(schema);
  app.setValidatorCompiler(validators(shared));
  app.decorateRequest('apiKey', null);
  installErrorHandlers(app);
  // Bodies are JSON: anything else is 415, not a string that fails validation with 400.
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  let inflight = 0;
  app.addHook('onRequest', (_request, _reply, done) => {
    inflight++;
    done();
  });
  app.addHook('onResponse', (_request, _reply, done) => {
    inflight--;
    done();
  });
  app.decorate('inflightRequests', () => inflight);
  const metrics = options.metrics ?? new Metrics();
  app.decorate('metrics', metrics);
  metrics.instrument(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: options.title,
        version: '0.1.0',
        description: 'Meridian: API keys, static maps, weather tiles and coordinate transformations.',
      },
      components: {
        securitySchemes: {
          serviceToken: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'Service token of an account: `Authorization: Token <service-token>`',
          },
          apiKey: { type: 'apiKey', in: 'query', name: 'key', description: 'API key token' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
    transformObject: (document) => documentRateLimits(('openapiObject' in document ? document.openapiObject : document.swaggerObject) as OpenApiDocument) as object,
  });

  app.get(
    '/openapi.json',
    { schema: { hide: true } },
    async () => app.swagger(),
  );
  return app;
}

/**
 * Stops accepting connections, lets requests in progress finish (closing each keep-alive
 * connection as soon as it is idle), and returns once none is left or `graceMs` has passed, so
 * storage can be closed under no request.
 */
export async function closeGracefully(app: FastifyInstance, graceMs = 10_000): Promise<void> {
  const reaper = setInterval(() => app.server.closeIdleConnections(), 50);
  const force = setTimeout(() => app.server.closeAllConnections(), graceMs);
  try {
    const deadline = Date.now() + graceMs;
    await app.close();
    while (app.inflightRequests() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    clearInterval(reaper);
    clearTimeout(force);
  }
}

interface OpenApiDocument {
  paths?: Record<string, Record<string, { security?: Record<string, unknown>[]; responses?: Record<string, { headers?: Record<string, unknown> }> }>>;
}

/**
 * Every key-gated operation's successes and 429s carry the `RateLimit-*` headers that the gate sets:
 * added here, from the route's `security`, rather than to each route's response schemas.
 */
function documentRateLimits(document: OpenApiDocument): OpenApiDocument {
  for (const operations of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      if (!operation.security?.some((scheme) => 'apiKey' in scheme)) continue;
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (status.startsWith('2') || status === '429') response.headers = { ...response.headers, ...rateLimitHeaderDocs };
      }
    }
  }
  return document;
}
