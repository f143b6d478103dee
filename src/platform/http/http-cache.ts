/**
 * Caching headers of the map responses, static images and interactive maps alike:
 * `Cache-Control: public, max-age=…` (`maps.maxAgeSeconds`) and a strong ETag of the bytes sent,
 * with 304 for a matching `If-None-Match`. Every response varies by its URL only (the key is in
 * it), except tiles stored gzipped, which also vary by Accept-Encoding.
 */

import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

export function etagOf(bytes: Uint8Array | string): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;
}

/** Whether an If-None-Match header (a list of tags, or `*`) names the tag. */
export function matchesTag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

/** Sends the body with its caching headers, or 304 when the client holds it already; `etag` when the caller kept it. */
export function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Uint8Array | string,
  contentType: string,
  maxAgeSeconds: number,
  etag = etagOf(body),
): FastifyReply {
  reply.header('etag', etag).header('cache-control', `public, max-age=${maxAgeSeconds}`);
  if (matchesTag(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(contentType).send(typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
}
