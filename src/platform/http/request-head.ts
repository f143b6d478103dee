/**
 * What the head of every request must be before any route, key gate or body parser sees it. Node's
 * HTTP parser lets through what a route cannot use safely: a Host that is no host (links in styles,
 * TileJSON and WMTS capabilities are built from it when `publicUrl` is unset), and a body in a
 * transfer coding other than chunked or in a content coding (read as if it were plain). Node's own
 * answer to a missing Host is a 400 with an empty body, so its check is turned off
 * (`requireHostHeader`) and made here.
 */

import { isIPv6 } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

/** `name[:port]`: DNS labels (underscores allowed, as resolvers do), an IPv4 address, or `[IPv6]`. */
const hostPattern = /^(?:(?:[A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?|\[([0-9A-Fa-f:.]{2,45})\])(?::(\d{1,5}))?$/;

const INVALID_HOST = 'Invalid Host header: send host[:port]';
const MISSING_HOST = 'Missing Host header: HTTP/1.1 requests must send one';
const UNSUPPORTED_TRANSFER_ENCODING = 'Unsupported Transfer-Encoding: send the body as it is, or chunked';
const UNSUPPORTED_CONTENT_ENCODING = 'Unsupported Content-Encoding: send the body as it is (identity)';

/** Whether `value` is a host with an optional port, and nothing a link would have to escape. */
function validHost(value: string): boolean {
  const match = hostPattern.exec(value);
  if (!match || value.length > 261) return false;
  if (match[1] !== undefined && !isIPv6(match[1])) return false;
  return match[2] === undefined || Number(match[2]) <= 65535;
}

/**
 * The Fastify `onRequest` hook that refuses what the module comment lists; a callback rather than
 * async, so that it costs every request no promise. The connection is closed after a refusal: the
 * body of a refused request is not read, so the next request on the connection could not be found.
 */
export function checkRequestHead(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  done(headProblem(request) ?? undefined);
}

function headProblem(request: FastifyRequest): ApiError | null {
  const close = { connection: 'close' };
  const header = request.headers.host;
  // HTTP/1.0 may leave Host out (RFC 9112, 3.2); its links are then built from the address reached.
  if (header === undefined && request.raw.httpVersion !== '1.0') return new ApiError(MISSING_HOST, 'invalid', close);
  // With trustProxy, request.host is X-Forwarded-Host, which links are built from too.
  for (const host of [header, request.host]) {
    if (host !== undefined && host !== '' && !validHost(host)) return new ApiError(INVALID_HOST, 'invalid', close);
  }
  const codings = request.headers['transfer-encoding'];
  if (codings !== undefined && codings.trim().toLowerCase() !== 'chunked') return new ApiError(UNSUPPORTED_TRANSFER_ENCODING, 'unsupported', close);
  // Bodies are small JSON, and a decoded one could expand far past what was sent: no content coding
  // is decoded, and RFC 9110 (15.5.16) has the 415 say in Accept-Encoding which one would be read.
  if (hasBody(request) && !identityOnly(request.headers['content-encoding'])) {
    return new ApiError(UNSUPPORTED_CONTENT_ENCODING, 'unsupported', { ...close, 'accept-encoding': 'identity' });
  }
  return null;
}

/** Whether the request carries content: chunked, or a Content-Length above 0. */
function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length.trim() !== '0');
}

/** No Content-Encoding, or one that lists only `identity` (RFC 9110, 8.4.1: codings are comma-separated, case-insensitive). */
function identityOnly(header: string | undefined): boolean {
  return header === undefined || header.split(',').every((coding) => ['', 'identity'].includes(coding.trim().toLowerCase()));
}
