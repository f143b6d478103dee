/**
 * `GET /maps`: the configured maps a key may use, with what a client needs to ask for images or
 * load the interactive map (formats, zoom range, attribution), behind the API-key gate.
 */

import type { FastifyInstance } from 'fastify';
import { gatedRoute, type KeyGate } from '../keys/gate.js';
import type { MapRegistry } from './registry.js';

const mapSummary = {
  type: 'object',
  required: ['id', 'attribution', 'minzoom', 'maxzoom', 'formats'],
  properties: {
    id: { type: 'string', description: 'Map identifier' },
    attribution: { type: 'string', description: 'Attribution text of the map; empty when none' },
    minzoom: { type: 'number' },
    maxzoom: { type: 'number' },
    formats: { type: 'array', items: { type: 'string', enum: ['png', 'jpg', 'webp'] }, description: 'Static image formats clients may ask for' },
  },
} as const;

export async function mapListRoutes(app: FastifyInstance, options: { gate: KeyGate; registry: MapRegistry }): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  app.get(
    '/maps',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'The configured maps, by id',
        security: gatedRoute.security,
        querystring: { type: 'object', properties: { key: { type: 'string', description: 'API key token' } } },
        response: {
          200: { description: 'Maps in id order', type: 'object', required: ['maps'], properties: { maps: { type: 'array', items: mapSummary } } },
          ...gatedRoute.response,
        },
      },
    },
    async () => ({
      maps: options.registry.ids().map((id) => {
        const map = options.registry.get(id)!;
        return { id, attribution: map.attribution, minzoom: map.minzoom, maxzoom: map.maxzoom, formats: [...map.formats] };
      }),
    }),
  );
}
