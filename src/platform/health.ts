import type { FastifyInstance } from 'fastify';
import { within, type Database } from './storage/database.js';

const statusSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' }, database: { type: 'string' } },
  additionalProperties: { type: 'string' },
} as const;

/**
 * `/health`: the process answers. `/ready`: it can reach its storage (503 otherwise, within
 * `readyTimeoutMs` even when the database does not answer at all), with the `details` the areas
 * report (such as the EPSG dataset version).
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: { db: Database; details: Record<string, string>; readyTimeoutMs: number },
): Promise<void> {
  app.get(
    '/health',
    { schema: { summary: 'Liveness', tags: ['platform'], response: { 200: statusSchema } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/ready',
    { schema: { summary: 'Readiness: storage reachable', tags: ['platform'], response: { 200: statusSchema, 503: statusSchema } } },
    async (request, reply) => {
      try {
        await within(options.db.query('SELECT 1'), options.readyTimeoutMs, '/ready');
        return { status: 'ok', database: options.db.kind, ...options.details };
      } catch (error) {
        // Load balancers ask every few seconds: the outage itself is logged once, by the server.
        request.log.debug({ err: error }, 'storage not reachable');
        return reply.code(503).send({ status: 'unavailable', database: options.db.kind });
      }
    },
  );
}
