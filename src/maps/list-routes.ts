/**
 * `GET /maps`: the configured maps a key may use, with what a client needs to list them, ask for
 * images or open the interactive map: name, formats, zoom range, attribution, the tile schema, where
 * the data is (bounds) and where the map opens (center, extent.ts), and a thumbnail, behind the
 * API-key gate. The thumbnail is a static image of the map framed on its bounds (the static image
 * API's bounds form, which carries the key as every link Meridian hands out does).
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { gatedRoute, keyParameter, type KeyGate } from '../keys/gate.js';
import type { TypeBoxTypeProvider } from '../platform/http/typebox.js';
import { SCHEMAS } from './definition.js';
import type { MapRegistry } from './registry.js';
import { mapLinks, publicOrigin, THUMBNAIL } from './serve/links.js';

const mapSummary = {
  type: 'object',
  required: ['id', 'name', 'attribution', 'minzoom', 'maxzoom', 'formats', 'bounds', 'center', 'schema', 'thumbnail'],
  properties: {
    id: { type: 'string', description: 'Map identifier' },
    name: { type: 'string', description: 'Name of the map: its definition’s, else its style’s, else the id' },
    attribution: { type: 'string', description: 'Attribution text of the map; empty when none' },
    minzoom: { type: 'number' },
    maxzoom: { type: 'number' },
    formats: { type: 'array', items: { type: 'string', enum: ['png', 'jpg', 'webp'] }, description: 'Static image formats clients may ask for' },
    bounds: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4, description: 'Where the map’s data is: west, south, east, north in degrees' },
    center: { type: 'array', items: { type: 'number' }, minItems: 3, maxItems: 3, description: 'Where the map opens: longitude, latitude and zoom (the bounds fitted in 1024x768)' },
    schema: { type: ['string', 'null'], enum: [...SCHEMAS, null], description: 'Tile schema its style draws, as `maps import` or `maps add` recorded it; null when unknown' },
    thumbnail: { type: 'string', description: `Static image URL (${THUMBNAIL.width}x${THUMBNAIL.height}, the map’s first format) of the map framed on its bounds, with the key` },
  },
} as const;

export async function mapListRoutes(app: FastifyInstance, options: { gate: KeyGate; registry: MapRegistry; publicUrl: string | null }): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/maps',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'The configured maps, by id',
        security: gatedRoute.security,
        querystring: Type.Object({ key: keyParameter }),
        response: {
          200: { description: 'Maps in id order', type: 'object', required: ['maps'], properties: { maps: { type: 'array', items: mapSummary } } },
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const origin = publicOrigin(request, reply, options.publicUrl);
      return {
        maps: options.registry.ids().map((id) => {
          const map = options.registry.get(id)!;
          return {
            id,
            name: map.name,
            attribution: map.attribution,
            minzoom: map.minzoom,
            maxzoom: map.maxzoom,
            formats: [...map.formats],
            bounds: map.bounds,
            center: map.center,
            schema: map.schema,
            thumbnail: mapLinks(origin, id, request.query.key).thumbnail(map.bounds, map.formats[0]!),
          };
        }),
      };
    },
  );
}
