/**
 * Raster tiles of every map, drawn from its style, behind the API-key gate, for clients that
 * cannot draw vector tiles (Leaflet, OpenLayers' image layers, GIS software):
 *
 *  - `/maps/{mapId}/{z}/{x}/{y}[@2x].{format}`: 512-px tiles, the pyramid of the static images
 *    (zoom z of a 512-px tile is the static images' zoom z);
 *  - `/maps/{mapId}/256/{z}/{x}/{y}[@2x].{format}`: 256-px tiles, the XYZ convention of Leaflet and
 *    OpenLayers (a 256-px tile at z shows what a 512-px tile shows at z - 1, so their zooms run one
 *    past the map's: zoom 0 is the world in 256 px, drawn as MapLibre draws zoom -1);
 *  - `/maps/{mapId}/tiles.json` and `/maps/{mapId}/256/tiles.json`: raster TileJSON 3.0.0 whose
 *    tile URLs carry the key (`format` picks the image format; the map's first by default), with
 *    the map's bounds and centre (extent.ts), the centre's zoom in the tiles' own pyramid.
 *
 * `language` draws the labels in that language as on static images. The format must be one the map
 * allows and z one of its zooms (400 otherwise, as x or y outside 0..2^z - 1); tiles carry an ETag and
 * `Cache-Control`, and answer 304 to a matching `If-None-Match`. `X-Cache` says `hit` (memory),
 * `hit-shared` (the shared store) or `miss` (rendered).
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { gatedRoute, gatedUnavailable, keyParameter, type KeyGate } from '../../keys/gate.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import { oneOf } from '../../platform/settings.js';
import { ApiError } from '../../platform/errors.js';
import { sendCached } from '../../platform/http/http-cache.js';
import { CONTENT_TYPES, IMAGE_CONTENT, FORMATS, type Format } from '../image-format.js';
import { invalidFormat, outOfBounds, RENDER_UNAVAILABLE, valueOutside } from '../errors.js';
import { LANGUAGE_DESCRIPTION, parseLanguage } from '../language.js';
import { mapOf, type LoadedMap, type MapRegistry } from '../registry.js';
import { mapLinks, publicOrigin } from '../serve/links.js';
import { tileJsonSchema, type TileJson } from '../serve/tilejson.js';
import type { RasterTileRequest, RasterTiles, TileOrigin } from './raster-tiles.js';
import type { RasterTileSize } from './metatile.js';
import { centerWithin } from '../extent.js';

export interface RasterRouteOptions {
  gate: KeyGate;
  registry: MapRegistry;
  tiles: RasterTiles;
  maxAgeSeconds: number;
  /** Where clients reach Meridian, for the links in TileJSON; the request's Host when null. */
  publicUrl: string | null;
}

/** `X-Cache` by where the tile came from: memory, the shared store (another instance or a seed drew it), a render. */
const X_CACHE: Record<TileOrigin, string> = { memory: 'hit', store: 'hit-shared', render: 'miss' };

const TILE_NAME = /^(\d{1,10})(@2x)?\.([a-z]+)$/;
export const INVALID_TILE = 'Invalid tile: the last part of the path is {y}[@2x].{png|jpg|webp}';

/** The zooms a map's tiles of `size` have: a 256-px tile at z draws the 512-px zoom z - 1. */
export function rasterZooms(map: Pick<LoadedMap, 'minzoom' | 'maxzoom'>, size: RasterTileSize): { minzoom: number; maxzoom: number } {
  const shift = size === 256 ? 1 : 0;
  return { minzoom: map.minzoom, maxzoom: map.maxzoom + shift };
}

/** The tile address and format of a request, or the 400 it deserves. */
export function parseTile(map: LoadedMap, size: RasterTileSize, z: number, x: number, name: string): { y: number; pixelRatio: 1 | 2; format: Format } {
  const match = TILE_NAME.exec(name);
  if (!match) throw new ApiError(INVALID_TILE);
  const format = match[3] as Format;
  if (!FORMATS.includes(format) || !map.formats.includes(format)) throw invalidFormat(format, map.formats);
  const y = Number(match[1]);
  const { minzoom, maxzoom } = rasterZooms(map, size);
  if (z < minzoom || z > maxzoom) throw outOfBounds(valueOutside('zoom', z, minzoom, maxzoom, `(map "${map.id}" has ${size}-px tiles at zooms ${minzoom} to ${maxzoom})`));
  if (x >= 2 ** z) throw outOfBounds(valueOutside('x', x, 0, 2 ** z - 1, `at zoom ${z}`));
  if (y >= 2 ** z) throw outOfBounds(valueOutside('y', y, 0, 2 ** z - 1, `at zoom ${z}`));
  return { y, pixelRatio: match[2] ? 2 : 1, format };
}

/** A tile, from the cache or drawn, with its caching headers and `X-Cache`: what every raster tile route answers. */
export async function sendTile(request: FastifyRequest, reply: FastifyReply, tiles: RasterTiles, map: LoadedMap, tile: RasterTileRequest, maxAgeSeconds: number): Promise<FastifyReply> {
  const { bytes, etag, origin } = await tiles.tile(map, tile);
  reply.header('x-cache', X_CACHE[origin]);
  return sendCached(request, reply, bytes, CONTENT_TYPES[tile.format], maxAgeSeconds, etag);
}

/** The query string of every raster tile route, WMTS's RESTful ones too. */
export const tileQuerystring = Type.Object({ key: keyParameter, language: Type.Optional(Type.String({ description: LANGUAGE_DESCRIPTION })) });
const mapParams = Type.Object({ mapId: Type.String({ description: 'Map identifier' }) });
const tileJsonQuerystring = Type.Object({
  ...tileQuerystring.properties,
  format: Type.Optional(oneOf(FORMATS, { description: 'Image format of the tile URLs (default: the first the map allows)' })),
});

export async function rasterRoutes(app: FastifyInstance, options: RasterRouteOptions): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  const { registry, tiles, maxAgeSeconds } = options;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  for (const size of [512, 256] as const) {
    const prefix = size === 512 ? '' : `/${size}`;
    typed.get(
      `/maps/:mapId${prefix}/:z/:x/:tile`,
      {
        schema: {
          tags: ['raster tiles'],
          summary: `A ${size}-px raster tile of the map, drawn from its style`,
          security: gatedRoute.security,
          params: Type.Object({
            ...mapParams.properties,
            z: Type.Integer({ minimum: 0, maximum: 30, description: size === 512 ? 'Zoom, as the static images’' : 'Zoom of the 256-px pyramid: the static images’ zoom plus one' }),
            x: Type.Integer({ minimum: 0, description: 'Column, 0 at 180° W' }),
            tile: Type.String({ description: '{y}[@2x].{format}: row (0 at the north), @2x for twice the pixels, png, jpg or webp as the map allows' }),
          }),
          querystring: tileQuerystring,
          response: {
            200: {
              description: 'The tile',
              content: IMAGE_CONTENT,
            },
            304: { description: 'Not modified (If-None-Match)' },
            400: { $ref: 'ErrorBody#', description: 'Out of bounds (z outside the map’s zooms, x or y outside 0..2^z - 1), invalid format, invalid tile name or invalid language' },
            404: { $ref: 'ErrorBody#', description: 'No such map' },
            ...gatedRoute.response,
            503: gatedUnavailable(RENDER_UNAVAILABLE),
          },
        },
      },
      async (request, reply) => {
        const map = mapOf(registry, request.params.mapId);
        const { z, x } = request.params;
        const { y, pixelRatio, format } = parseTile(map, size, z, x, request.params.tile);
        const languageOf = parseLanguage(request.query.language);
        return sendTile(request, reply, tiles, map, { tile: { z, x, y, size, pixelRatio }, format, language: languageOf }, maxAgeSeconds);
      },
    );

    typed.get(
      `/maps/:mapId${prefix}/tiles.json`,
      {
        schema: {
          tags: ['raster tiles'],
          summary: `TileJSON 3.0.0 of the map’s ${size}-px raster tiles`,
          security: gatedRoute.security,
          params: mapParams,
          querystring: tileJsonQuerystring,
          response: {
            200: { description: 'TileJSON', ...tileJsonSchema },
            304: { description: 'Not modified (If-None-Match)' },
            400: { $ref: 'ErrorBody#', description: 'Invalid format (one the map does not allow) or invalid language' },
            404: { $ref: 'ErrorBody#', description: 'No such map' },
            ...gatedRoute.response,
          },
        },
      },
      async (request, reply) => {
        const map = mapOf(registry, request.params.mapId);
        const format = request.query.format ?? map.formats[0]!;
        if (!map.formats.includes(format)) throw invalidFormat(format, map.formats);
        const languageOf = parseLanguage(request.query.language);
        let template = mapLinks(publicOrigin(request, reply, options.publicUrl), map.id, request.query.key).rasterTiles(size, format);
        if (languageOf !== null) template += `&language=${encodeURIComponent(languageOf)}`;
        const zooms = rasterZooms(map, size);
        const [lon, lat, zoom] = map.center;
        const document: TileJson = {
          tilejson: '3.0.0',
          name: map.id,
          tiles: [template],
          scheme: 'xyz',
          ...zooms,
          // Where the map's data is, not all its style draws (a street style draws the world map
          // around its extract): a client that keeps to bounds asks for no tile beyond the data.
          bounds: map.bounds,
          center: centerWithin([lon, lat, zoom + (size === 256 ? 1 : 0)], map.bounds, zooms.minzoom, zooms.maxzoom),
          ...(map.attribution ? { attribution: map.attribution } : {}),
          tileSize: size,
        };
        return sendCached(request, reply, JSON.stringify(document), 'application/json; charset=utf-8', maxAgeSeconds);
      },
    );
  }
}
