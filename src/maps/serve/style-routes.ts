/**
 * The documents a MapLibre client loads a map from, behind the API-key gate:
 * `/maps/{mapId}/style.json` (the style with Meridian's URLs, style-rewrite.ts),
 * `/maps/{mapId}/sources/{source}.json` (TileJSON of each source, tilejson.ts) and
 * `/maps/{mapId}/data/{source}.geojson` (the file of a GeoJSON source whose data is a local file).
 */

import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { gatedRoute, keyParameter, type KeyGate } from '../../keys/gate.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import { etagOf, matchesTag, sendCached } from '../../platform/http/http-cache.js';
import { mapLinks, publicOrigin } from './links.js';
import { mapOf, type LoadedMap, type MapRegistry } from '../registry.js';
import { GeoJsonSource } from '../../render/source/geojson.js';
import type { MapSource } from '../../render/source/source.js';
import { rewriteStyle } from './style-rewrite.js';
import { LANGUAGE_DESCRIPTION, localizedStyle, parseLanguage } from '../language.js';
import { tileJsonOf, tileJsonSchema } from './tilejson.js';
import { NotFoundError } from '../../platform/errors.js';

export interface StyleRouteOptions {
  gate: KeyGate;
  registry: MapRegistry;
  maxAgeSeconds: number;
  /** Where clients reach Meridian, for the links in styles and TileJSON; the request's Host when null. */
  publicUrl: string | null;
}

/** The routes' request parts, declared once: their types, validation and OpenAPI entries come from these. */
const querystring = Type.Object({ key: keyParameter });
const styleQuerystring = Type.Object({ key: keyParameter, language: Type.Optional(Type.String({ description: LANGUAGE_DESCRIPTION })) });
const mapId = Type.String({ description: 'Map identifier' });
const mapParams = Type.Object({ mapId });
const sourceParams = Type.Object({ mapId, source: Type.String({ description: 'Source id of the style' }) });

export function sourceOf(map: LoadedMap, id: string): MapSource {
  const source = map.sources.get(id);
  if (!source) throw new NotFoundError();
  return source;
}

export async function styleRoutes(app: FastifyInstance, options: StyleRouteOptions): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  const { registry, maxAgeSeconds } = options;
  const notFound = (what: string) => ({ 404: { $ref: 'ErrorBody#', description: what } });
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/maps/:mapId/style.json',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'The map’s MapLibre style, its sources, glyphs and sprite at Meridian’s URLs with the same key',
        security: gatedRoute.security,
        params: mapParams,
        querystring: styleQuerystring,
        response: {
          200: {
            description: 'MapLibre style (v8), its labels in `language` when given; `center` and `zoom` are where the map opens (the middle of its data, fitted in 1024x768)',
            type: 'object',
            required: ['version', 'sources', 'layers', 'center', 'zoom'],
            properties: {
              version: { type: 'integer', enum: [8] },
              center: { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: 'Longitude and latitude where the map opens' },
              zoom: { type: 'number', description: 'Zoom the map opens at' },
            },
            additionalProperties: true,
          },
          304: { description: 'Not modified (If-None-Match)' },
          400: { $ref: 'ErrorBody#', description: 'Invalid language' },
          ...notFound('No such map'),
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const map = mapOf(registry, request.params.mapId);
      const language = parseLanguage(request.query.language);
      const style = rewriteStyle(map, localizedStyle(map.style, language), mapLinks(publicOrigin(request, reply, options.publicUrl), map.id, request.query.key));
      return sendCached(request, reply, JSON.stringify(style), 'application/json; charset=utf-8', maxAgeSeconds);
    },
  );

  typed.get(
    '/maps/:mapId/sources/:source.json',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'TileJSON 3.0.0 of a source of the map',
        security: gatedRoute.security,
        params: sourceParams,
        querystring,
        response: {
          200: { description: 'TileJSON', ...tileJsonSchema },
          304: { description: 'Not modified (If-None-Match)' },
          ...notFound('No such map or source'),
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const map = mapOf(registry, request.params.mapId);
      const source = sourceOf(map, request.params.source);
      const document = tileJsonOf(request.params.source, source, mapLinks(publicOrigin(request, reply, options.publicUrl), map.id, request.query.key), map.center);
      return sendCached(request, reply, JSON.stringify(document), 'application/json; charset=utf-8', maxAgeSeconds);
    },
  );

  typed.get(
    '/maps/:mapId/data/:source.geojson',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'The GeoJSON file of a geojson source whose data is a local file',
        security: gatedRoute.security,
        params: sourceParams,
        querystring,
        response: {
          200: { description: 'The GeoJSON file as it is on disk', content: { 'application/geo+json': { schema: { type: 'object' } } } },
          304: { description: 'Not modified (If-None-Match)' },
          ...notFound('No such map, or no such source with its data in a local file'),
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const source = sourceOf(mapOf(registry, request.params.mapId), request.params.source);
      if (!(source instanceof GeoJsonSource) || source.dataFile === undefined) throw new NotFoundError();
      const file = source.dataFile;
      const { size, mtimeMs } = await stat(file).catch(() => {
        throw new NotFoundError();
      });
      // The file may be large: it is streamed, and its tag made from its size and time.
      const etag = etagOf(`${file} ${size} ${mtimeMs}`);
      reply.header('etag', etag).header('cache-control', `public, max-age=${maxAgeSeconds}`);
      if (matchesTag(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return reply.type('application/geo+json').header('content-length', size).send(createReadStream(file));
    },
  );
}
