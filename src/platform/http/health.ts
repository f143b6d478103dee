import type { FastifyInstance } from 'fastify';
import { noteUnavailable } from '../errors.js';
import { within, type Database } from '../storage/database.js';

/** A fact an area reports in `/ready` (such as the EPSG dataset version), with what it means. */
export interface ReadyDetail {
  /** The value, or how to read it at each request (a build's progress). */
  value: string | (() => string);
  description: string;
}

const databaseField = { type: 'string', enum: ['pglite', 'postgres'], description: '`pglite` (embedded) or `postgres` (`DATABASE_URL`)' } as const;

const liveSchema = {
  description: 'The process answers',
  type: 'object',
  required: ['status'],
  additionalProperties: false,
  properties: { status: { type: 'string', enum: ['ok'] } },
} as const;

const unavailableSchema = {
  description: 'Not ready: still starting (the render threads warming up), or the database is unreachable or did not answer within `database.readyTimeoutMs`',
  type: 'object',
  required: ['status', 'reason', 'database', 'message'],
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: ['unavailable'] },
    reason: { type: 'string', enum: ['starting', 'database'], description: '`starting`: what the instance needs to serve warm is not ready yet; `database`: the database does not answer' },
    database: databaseField,
    message: { type: 'string', description: 'what is not ready: `render threads warming up: 1 of 2 warm`, say' },
  },
} as const;

/** `/ready`'s 200 body: its status, the database, and each area's details, declared by whoever reports them. */
function readySchema(details: Record<string, ReadyDetail>) {
  return {
    description: 'Ready to serve: the render threads warm, the database answers',
    type: 'object',
    required: ['status', 'database', ...Object.keys(details)],
    additionalProperties: false,
    properties: {
      status: { type: 'string', enum: ['ok'] },
      database: databaseField,
      ...Object.fromEntries(Object.entries(details).map(([name, detail]) => [name, { type: 'string', description: detail.description }])),
    },
  };
}

/**
 * `/health`: the process answers. `/ready`: it has started (`starting` says what it still waits
 * for, 503 meanwhile) and can reach its storage (503 otherwise, within `readyTimeoutMs` even when the
 * database does not answer at all), with the `details` the areas report (such as the EPSG dataset version).
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: { db: Database; details: Record<string, ReadyDetail>; readyTimeoutMs: number; starting: () => string | null },
): Promise<void> {
  const values = () => Object.fromEntries(Object.entries(options.details).map(([name, { value }]) => [name, typeof value === 'function' ? value() : value]));
  app.get(
    '/health',
    { schema: { summary: 'Liveness', tags: ['platform'], response: { 200: liveSchema } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/ready',
    {
      schema: {
        summary: 'Readiness: started, storage reachable',
        description: 'For load balancers: 200 while this instance can serve; 503 while it starts (until its render threads are warm) or while its database is unreachable.',
        tags: ['platform'],
        response: { 200: readySchema(options.details), 503: unavailableSchema },
      },
    },
    async (request, reply) => {
      const database = options.db.kind;
      const starting = options.starting();
      if (starting !== null) {
        noteUnavailable(request, 'starting');
        return reply.code(503).send({ status: 'unavailable', reason: 'starting', database, message: starting });
      }
      try {
        await within(options.db.query('SELECT 1'), options.readyTimeoutMs, '/ready');
        return { status: 'ok', database, ...values() };
      } catch (error) {
        // Load balancers ask every few seconds: the outage itself is logged once, by the server.
        request.log.debug({ err: error }, 'storage not reachable');
        noteUnavailable(request, 'database');
        return reply.code(503).send({ status: 'unavailable', reason: 'database', database, message: `the database does not answer within ${options.readyTimeoutMs} ms` });
      }
    },
  );
}
