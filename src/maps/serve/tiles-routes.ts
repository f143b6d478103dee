/**
 * `/maps/{mapId}/tiles/{source}/{z}/{x}/{y}.{format}`, behind the API-key gate: a tile of a map's
 * source, as the source stores it (never decoded and re-encoded): vector tiles as MVT (GeoJSON
 * sources encoded on the fly), images as they are, with the content type of their bytes.
 *
 * A tile stored gzipped is sent with `Content-Encoding: gzip` to a client that accepts gzip, and
 * gunzipped for one that does not (with `Vary: Accept-Encoding`). The extension must be the
 * source's (its TileJSON's): `pbf` for vector and GeoJSON sources. z above 30, or x or y outside
 * the zoom's 2^z range, is 400; a zoom outside the source's range, or a tile the source does not
 * have, 404, except that a vector tile the source lacks within its zoom range and bounds is 204
 * (no content): an empty tile, which MapLibre draws as such where it shows a 404 as an error. A
 * remote source that fails is 502.
 */

import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { gatedRoute, keyParameter, type KeyGate } from '../../keys/gate.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import { oneOf } from '../../platform/settings.js';
import { ApiError, NotFoundError } from '../../platform/errors.js';
import { invalidFormat, outOfBounds, valueOutside } from '../errors.js';
import { sendCached } from '../../platform/http/http-cache.js';
import { mapOf, type MapRegistry } from '../registry.js';
import type { Log } from '../../render/source/log.js';
import type { TileFormat } from '../../render/source/source.js';
import { tileRangeOfBounds } from '../../render/view/tile-cover.js';
import { sourceOf } from './style-routes.js';

const gunzipAsync = promisify(gunzip);

export interface TileRouteOptions {
  gate: KeyGate;
  registry: MapRegistry;
  maxAgeSeconds: number;
}

export const TILE_FORMATS: readonly TileFormat[] = ['pbf', 'png', 'jpg', 'webp'];
const MAX_ZOOM = 30;

/** Whether an Accept-Encoding header admits gzip (listed, or `*`, without q=0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...parameters] = part.trim().toLowerCase().split(';');
    const q = parameters.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((value) => value !== undefined);
    weights.set(name!.trim(), q === undefined ? 1 : Number(q));
  }
  const weight = weights.get('gzip') ?? weights.get('x-gzip') ?? weights.get('*') ?? 0;
  return weight > 0;
}

/** Whether MapLibre asks for tile z/x/y of a source with these bounds (its TileBounds). */
function withinBounds(bounds: readonly [number, number, number, number], z: number, x: number, y: number): boolean {
  const range = tileRangeOfBounds(bounds, z);
  return x >= range.minX && x < range.maxX && y >= range.minY && y < range.maxY;
}

export async function tileRoutes(app: FastifyInstance, options: TileRouteOptions): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  const { registry, maxAgeSeconds } = options;
  const failed = new Set<string>();
  const log: Log = app.log;

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/maps/:mapId/tiles/:source/:z/:x/:y.:format',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'A tile of a source of the map, as the source stores it',
        security: gatedRoute.security,
        params: Type.Object({
          mapId: Type.String({ description: 'Map identifier' }),
          source: Type.String({ description: 'Source id of the style' }),
          z: Type.Integer({ minimum: 0, maximum: MAX_ZOOM }),
          x: Type.Integer({ minimum: 0 }),
          y: Type.Integer({ minimum: 0 }),
          format: oneOf(TILE_FORMATS, { description: 'pbf for vector and GeoJSON sources; the image format of raster sources, as their TileJSON says' }),
        }),
        querystring: Type.Object({ key: keyParameter }),
        response: {
          200: {
            description: 'The tile; gzipped vector tiles keep Content-Encoding: gzip when the client accepts it',
            content: Object.fromEntries(['application/x-protobuf', 'image/png', 'image/jpeg', 'image/webp'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
          },
          204: { description: 'An empty vector tile: the source has no tile there, within its zoom range and bounds' },
          304: { description: 'Not modified (If-None-Match)' },
          400: { $ref: 'ErrorBody#', description: 'Out of bounds (x or y beyond 2^z, z beyond 30), or a format that is not the source’s' },
          404: { $ref: 'ErrorBody#', description: 'No such map or source, a zoom outside the source’s range, or no tile there (raster sources, or outside the source’s bounds)' },
          502: { $ref: 'ErrorBody#', description: 'The source’s remote server failed' },
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const { mapId, source: sourceId, z, x, y, format } = request.params;
      if (x >= 2 ** z) throw outOfBounds(valueOutside('x', x, 0, 2 ** z - 1, `at zoom ${z}`));
      if (y >= 2 ** z) throw outOfBounds(valueOutside('y', y, 0, 2 ** z - 1, `at zoom ${z}`));
      const map = mapOf(registry, mapId);
      const source = sourceOf(map, sourceId);
      if (format !== source.format) throw invalidFormat(format, [source.format]);
      let tile;
      try {
        tile = await source.getTileData(z, x, y);
      } catch (error) {
        const name = `${mapId}/${sourceId}`;
        // One line per source: a failing tile server would otherwise fill the log.
        if (!failed.has(name)) {
          failed.add(name);
          log.warn(`map "${mapId}", source "${sourceId}": tile ${z}/${x}/${y} failed (${(error as Error).message}); later failures of this source are not logged`);
        }
        throw new ApiError('The tile could not be read from its source', 'upstream');
      }
      if (!tile) {
        if (source.format === 'pbf' && z >= source.minzoom && z <= source.maxzoom && withinBounds(source.bounds, z, x, y)) return reply.code(204).header('cache-control', `public, max-age=${maxAgeSeconds}`).send();
        throw new NotFoundError();
      }
      let { data } = tile;
      if (tile.contentEncoding === 'gzip') {
        reply.header('vary', 'Accept-Encoding');
        if (acceptsGzip(request.headers['accept-encoding'])) reply.header('content-encoding', 'gzip');
        else data = new Uint8Array(await gunzipAsync(data));
      }
      return sendCached(request, reply, data, tile.contentType, maxAgeSeconds);
    },
  );
}
