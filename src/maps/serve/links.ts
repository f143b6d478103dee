/**
 * Meridian's own URLs for the parts of a map that a MapLibre client fetches (TileJSON, tiles,
 * GeoJSON data, glyphs, sprites), absolute and carrying the key of the request that asked for
 * them, so that a style or TileJSON handed to a browser works as it is. The origin is the
 * configured `publicUrl` when set; otherwise the request's scheme and host (Fastify takes them from
 * X-Forwarded-Proto and X-Forwarded-Host only when `trustProxy` is set), and the response then
 * varies by those headers: a shared cache must not hand one Host's links to another.
 */

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TileFormat } from '../../render/source/source.js';

export interface MapLinks {
  tileJson(source: string): string;
  /** A tile URL template with `{z}`, `{x}` and `{y}`. */
  tiles(source: string, format: TileFormat): string;
  geojson(source: string): string;
  /** A raster tile URL template of the map drawn, with `{z}`, `{x}` and `{y}`. */
  rasterTiles(size: 256 | 512, format: string): string;
  /** The glyphs template, with `{fontstack}` and `{range}`. */
  readonly glyphs: string;
  /** A sprite base, to which MapLibre appends `@2x`, `.json` and `.png` before the query. */
  sprite(id: string | undefined): string;
  /** A small static image of the map framed on `bounds` (the static image API's bounds form; no route of its own). */
  thumbnail(bounds: readonly [number, number, number, number], format: string): string;
}

/** The size of a thumbnail: the 4:3 of the viewport a map opens in (extent.ts), small enough for a list. */
export const THUMBNAIL = { width: 256, height: 192 } as const;

/**
 * `scheme://host[:port]` of Meridian as clients reach it: the configured public URL, or the
 * request's as the client addressed the server (then marking the reply as varying by it).
 */
export function publicOrigin(request: FastifyRequest, reply: FastifyReply, publicUrl: string | null): string {
  if (publicUrl !== null) return publicUrl.replace(/\/+$/, '');
  reply.header('vary', 'Host, X-Forwarded-Host, X-Forwarded-Proto');
  return `${request.protocol}://${request.host || addressReached(request)}`;
}

/** `address:port` the request's connection reached: the origin of an HTTP/1.0 request without Host. */
function addressReached(request: FastifyRequest): string {
  const { localAddress = '', localPort } = request.raw.socket;
  return `${localAddress.includes(':') ? `[${localAddress}]` : localAddress}:${localPort}`;
}

export function mapLinks(origin: string, mapId: string, key: string): MapLinks {
  const query = `?key=${encodeURIComponent(key)}`;
  const map = `${origin}/maps/${encodeURIComponent(mapId)}`;
  return {
    tileJson: (source) => `${map}/sources/${encodeURIComponent(source)}.json${query}`,
    tiles: (source, format) => `${map}/tiles/${encodeURIComponent(source)}/{z}/{x}/{y}.${format}${query}`,
    rasterTiles: (size, format) => `${map}${size === 512 ? '' : `/${size}`}/{z}/{x}/{y}.${format}${query}`,
    geojson: (source) => `${map}/data/${encodeURIComponent(source)}.geojson${query}`,
    glyphs: `${origin}/fonts/{fontstack}/{range}.pbf${query}`,
    sprite: (id) => (id === undefined ? `${map}/sprite${query}` : `${map}/sprite/${encodeURIComponent(id)}${query}`),
    thumbnail: (bounds, format) => `${origin}/api/maps/${encodeURIComponent(mapId)}/static/${bounds.join(',')}/${THUMBNAIL.width}x${THUMBNAIL.height}.${format}${query}`,
  };
}
