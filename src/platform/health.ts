import type { FastifyInstance } from 'fastify';
import type { Database } from './storage/database.js';

const statusSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' }, database: { type: 'string' } },
  additionalProperties: { type: 'string' },
} as const;

/**
 * `/health`: the process answers. `/ready`: it can reach its storage (503 otherwise), with the
 * `details` the areas report (such as the EPSG dataset version).
 */
export async function healthRoutes(
  app: FastifyInstance,
  options: { db: Database; details: Record<string, string> },
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
        await options.db.query('SELECT 1');
        return { status: 'ok', database: options.db.kind, ...options.details };
      } catch (error) {
        request.log.warn({ err: error }, 'storage not reachable');
        return reply.code(503).send({ status: 'unavailable', database: options.db.kind });
      }
    },
  );
}
