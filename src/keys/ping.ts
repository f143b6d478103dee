import type { FastifyInstance } from 'fastify';
import { gatedRoute, type KeyGate } from './gate.js';

const statusSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' } },
} as const;

/** `/ping`: the smallest gated endpoint, so a client can check that its key is accepted. */
export async function pingRoute(app: FastifyInstance, options: { gate: KeyGate }): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('keys'));
  app.get(
    '/ping',
    {
      schema: {
        summary: 'Check an API key',
        tags: ['platform'],
        querystring: {
          type: 'object',
          properties: { key: { type: 'string', description: 'API key token' } },
        },
        ...gatedRoute,
        response: { 200: statusSchema, ...gatedRoute.response },
      },
    },
    async () => ({ status: 'ok' }),
  );
}
