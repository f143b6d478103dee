/**
 * `GET /metrics`: the instance's metrics (metrics.ts) in the Prometheus text format. The composition
 * decides which listener serves it (the admin listener when there is one, else the public one only
 * with a token); with a token, a scrape must send `Authorization: Bearer <token>` or gets 401.
 * Hidden from the OpenAPI document: it is for the operator's Prometheus, not for API clients.
 */

import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import type { Metrics } from '../metrics.js';
import { hashToken, sameHash } from '../secrets.js';

export async function metricsRoute(app: FastifyInstance, options: { metrics: Metrics; token: string | null }): Promise<void> {
  const expected = options.token === null ? null : hashToken(options.token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected !== null) {
      const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
      // Hashes compare in constant time whatever the length of what was sent.
      if (!match || !sameHash(hashToken(match[1]!), expected)) {
        throw new ApiError('Metrics need Authorization: Bearer <metrics.token>', 'unauthorized', { 'www-authenticate': 'Bearer' });
      }
    }
    const { contentType, body } = await options.metrics.scrape();
    return reply.type(contentType).send(body);
  });
}
