/**
 * OGC WMTS 1.0.0 for every map, behind the API-key gate, for GIS clients (QGIS, ArcGIS,
 * OpenLayers' WMTS source):
 *
 *  - `/maps/{mapId}/WMTSCapabilities.xml`: the capabilities document (wmts-capabilities.ts), in the
 *    RESTful encoding; every URL in it carries the key of the request;
 *  - `/maps/{mapId}/wmts/{TileMatrixSet}/{TileMatrix}/{TileCol}/{TileRow}.{format}`: RESTful tiles,
 *    the template of the document's ResourceURL. They are the raster tiles of raster-routes.ts,
 *    the same bytes: `GoogleMapsCompatible` z/x/y is `/maps/{mapId}/256/z/x/y`, `WebMercatorQuad512`
 *    z/x/y is `/maps/{mapId}/z/x/y`;
 *  - `/maps/{mapId}/wmts?SERVICE=WMTS&REQUEST=GetCapabilities|GetTile&...`: the KVP encoding of both
 *    operations (wmts-kvp.ts).
 *
 * Errors: the KVP endpoint answers a wrong request with an OWS ExceptionReport (`text/xml`, 400, or
 * 501 for GetFeatureInfo) naming the exception code and the parameter, not with the JSON error body:
 * WMTS clients send KVP requests built from the capabilities and read only an ExceptionReport
 * (QGIS shows its ExceptionText; a JSON body would reach the user as an undecodable image). The
 * key gate's refusals (403, 429), an unknown map (404) and a busy renderer (503) keep the JSON body
 * there too, as everywhere: they are about the resource and the key, not about the WMTS request,
 * and they come from code shared by every route. The RESTful routes answer every error with the
 * JSON body, as the other tile routes do.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { gatedRoute, gatedUnavailable, keyParameter, type KeyGate } from '../../keys/gate.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import { oneOf } from '../../platform/settings.js';
import { CONTENT_TYPES, IMAGE_CONTENT, FORMATS } from '../image-format.js';
import { LANGUAGE_DESCRIPTION, parseLanguage } from '../language.js';
import { mapOf, type MapRegistry } from '../registry.js';
import { publicOrigin } from '../serve/links.js';
import { NotFoundError } from '../../platform/errors.js';
import { RENDER_UNAVAILABLE } from '../errors.js';
import { sendCached } from '../../platform/http/http-cache.js';
import { OwsException } from './ows-exception.js';
import { parseTile, sendTile, tileQuerystring } from './raster-routes.js';
import type { RasterTiles } from './raster-tiles.js';
import { TILE_MATRIX_SETS, tileMatrixSetOf } from './tile-matrix-set.js';
import { wmtsCapabilities, wmtsLinks } from './wmts-capabilities.js';
import { parseWmtsKvp } from './wmts-kvp.js';

export interface WmtsRouteOptions {
  gate: KeyGate;
  registry: MapRegistry;
  tiles: RasterTiles;
  maxAgeSeconds: number;
  /** Where clients reach Meridian, for the URLs in the capabilities; the request's Host when null. */
  publicUrl: string | null;
}

const XML = 'application/xml; charset=utf-8';
const mapId = Type.String({ description: 'Map identifier; the layer’s identifier in WMTS' });
const mapParams = Type.Object({ mapId });
const xmlResponse = (description: string, type = 'application/xml') => ({ description, content: { [type]: { schema: { type: 'string' } } } });
const imageResponse = {
  description: 'The tile',
  content: IMAGE_CONTENT,
};

export async function wmtsRoutes(app: FastifyInstance, options: WmtsRouteOptions): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  const { registry, tiles, maxAgeSeconds } = options;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  typed.get(
    '/maps/:mapId/WMTSCapabilities.xml',
    {
      schema: {
        tags: ['raster tiles'],
        summary: 'OGC WMTS 1.0.0 capabilities of the map (RESTful), every URL carrying the key',
        security: gatedRoute.security,
        params: mapParams,
        querystring: tileQuerystring,
        response: {
          200: xmlResponse('The capabilities document: one layer, the tile matrix sets GoogleMapsCompatible (256 px) and WebMercatorQuad512'),
          304: { description: 'Not modified (If-None-Match)' },
          400: { $ref: 'ErrorBody#', description: 'Invalid language' },
          404: { $ref: 'ErrorBody#', description: 'No such map' },
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const map = mapOf(registry, request.params.mapId);
      const links = wmtsLinks(publicOrigin(request, reply, options.publicUrl), map.id, request.query.key, parseLanguage(request.query.language));
      return sendCached(request, reply, wmtsCapabilities(map, links), XML, maxAgeSeconds);
    },
  );

  typed.get(
    '/maps/:mapId/wmts/:tileMatrixSet/:tileMatrix/:tileCol/:tile',
    {
      schema: {
        tags: ['raster tiles'],
        summary: 'A WMTS tile (RESTful): the raster tile of the set’s size',
        security: gatedRoute.security,
        params: Type.Object({
          mapId,
          tileMatrixSet: oneOf(
            TILE_MATRIX_SETS.map((set) => set.identifier),
            { description: 'GoogleMapsCompatible (256-px tiles) or WebMercatorQuad512 (512-px tiles)' },
          ),
          tileMatrix: Type.Integer({ minimum: 0, maximum: 30, description: 'Tile matrix: the zoom of the set’s tiles' }),
          tileCol: Type.Integer({ minimum: 0, description: 'Column, 0 at 180° W' }),
          tile: Type.String({ description: '{TileRow}.{format}: row (0 at the north), png, jpg or webp as the map allows' }),
        }),
        querystring: tileQuerystring,
        response: {
          200: imageResponse,
          304: { description: 'Not modified (If-None-Match)' },
          400: { $ref: 'ErrorBody#', description: 'Out of bounds (matrix outside the map’s zooms, column or row outside the matrix), invalid format, invalid tile name or invalid language' },
          404: { $ref: 'ErrorBody#', description: 'No such map' },
          ...gatedRoute.response,
          503: gatedUnavailable(RENDER_UNAVAILABLE),
        },
      },
    },
    async (request, reply) => {
      const map = mapOf(registry, request.params.mapId);
      const set = tileMatrixSetOf(request.params.tileMatrixSet);
      if (!set) throw new NotFoundError();
      const { tileMatrix: z, tileCol: x } = request.params;
      const { y, pixelRatio, format } = parseTile(map, set.tileSize, z, x, request.params.tile);
      const tile = { tile: { z, x, y, size: set.tileSize, pixelRatio }, format, language: parseLanguage(request.query.language) };
      return sendTile(request, reply, tiles, map, tile, maxAgeSeconds);
    },
  );

  const kvpParameter = (description: string) => Type.Optional(Type.String({ description: `${description} (parameter names are case-insensitive)` }));
  typed.get(
    '/maps/:mapId/wmts',
    {
      // The parser checks every parameter itself, so that a wrong one (even one given twice, which
      // the schema refuses) is answered with an ExceptionReport.
      attachValidation: true,
      schema: {
        tags: ['raster tiles'],
        summary: 'OGC WMTS 1.0.0 in the KVP encoding: GetCapabilities and GetTile; wrong requests get an OWS ExceptionReport',
        security: gatedRoute.security,
        params: mapParams,
        querystring: Type.Object({
          key: keyParameter,
          SERVICE: kvpParameter('WMTS'),
          REQUEST: kvpParameter('GetCapabilities or GetTile'),
          VERSION: kvpParameter('1.0.0; required by GetTile'),
          ACCEPTVERSIONS: kvpParameter('GetCapabilities: versions the client accepts, comma-separated; must include 1.0.0'),
          LAYER: kvpParameter('GetTile: the map identifier'),
          STYLE: kvpParameter('GetTile: default'),
          FORMAT: kvpParameter(`GetTile: ${FORMATS.map((format) => CONTENT_TYPES[format]).join(', ')}, as the map allows`),
          TILEMATRIXSET: kvpParameter('GetTile: GoogleMapsCompatible or WebMercatorQuad512'),
          TILEMATRIX: kvpParameter('GetTile: the tile matrix identifier (the zoom)'),
          TILEROW: kvpParameter('GetTile: row, 0 at the north'),
          TILECOL: kvpParameter('GetTile: column, 0 at 180° W'),
          LANGUAGE: kvpParameter(LANGUAGE_DESCRIPTION),
        }),
        response: {
          200: {
            description: 'The capabilities document (GetCapabilities) or the tile (GetTile)',
            content: { 'application/xml': { schema: { type: 'string' } }, ...imageResponse.content },
          },
          304: { description: 'Not modified (If-None-Match)' },
          400: xmlResponse('OWS ExceptionReport: MissingParameterValue, InvalidParameterValue, TileOutOfRange or VersionNegotiationFailed, the parameter named in `locator`', 'text/xml'),
          404: { $ref: 'ErrorBody#', description: 'No such map' },
          501: xmlResponse('OWS ExceptionReport: OperationNotSupported (GetFeatureInfo)', 'text/xml'),
          ...gatedRoute.response,
          503: gatedUnavailable(RENDER_UNAVAILABLE),
        },
      },
    },
    async (request, reply) => {
      const map = mapOf(registry, request.params.mapId);
      // The parser takes the rest as unknown values: validation is attached, not enforced (above).
      const { key: token, ...query }: { key: string } & Record<string, unknown> = request.query;
      let parsed;
      try {
        parsed = parseWmtsKvp(map, query);
      } catch (error) {
        if (!(error instanceof OwsException)) throw error;
        return reply.code(error.statusCode).type('text/xml; charset=utf-8').send(error.report());
      }
      if (parsed.request === 'GetTile') return sendTile(request, reply, tiles, map, parsed.tile, maxAgeSeconds);
      const links = wmtsLinks(publicOrigin(request, reply, options.publicUrl), map.id, token, parsed.language);
      return sendCached(request, reply, wmtsCapabilities(map, links), XML, maxAgeSeconds);
    },
  );
}
