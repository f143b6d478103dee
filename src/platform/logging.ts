import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream, LoggerOptions } from 'pino';
import type { PlatformConfig } from './config.js';

/**
 * Text of a URL as a reader of the log might take it: percent-decoded as often as it is encoded
 * (even when malformed), in compatibility form (fullwidth letters are letters), any case.
 */
function readable(raw: string): string {
  let text = raw.replaceAll('+', ' ');
  for (let previous = ''; text !== previous && text.includes('%'); ) {
    previous = text;
    text = percentDecoded(text);
  }
  return text.normalize('NFKC').toLowerCase();
}

/** `%XX` sequences as UTF-8 where they form it, byte by byte where they do not. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
}

/**
 * A name holding "key" or "token" in any spelling (`api_key`, `apikey`, `key%00`, `%256Bey`,
 * `access-token`), not only the names the key gate reads: a client that misspells the parameter
 * still sent its key. No route takes another parameter with such a name, so nothing useful to a
 * log reader is lost.
 */
const credentialName = /key|token/;

/**
 * Whether a query parameter carries a credential: what its decoded text assigns to, everything
 * before its last `=`, holds a credential name. That covers the parameter's own name, a name whose
 * `=` is encoded (`key%3D…`), and a key inside another parameter's value (a marker icon's URL
 * `…%3Fkey%3D…`), while a value that merely mentions "key" is kept.
 */
function carriesCredential(part: string): boolean {
  const text = readable(part);
  const equals = text.lastIndexOf('=');
  return equals >= 0 && credentialName.test(text.slice(0, equals));
}

/**
 * The URL with the value of every query parameter that carries a credential replaced by
 * `REDACTED` (the whole parameter when its own `=` is encoded). The query starts at the first `?`,
 * or at a `?` encoded in the path (`/ping%3Fkey=…`, which a client meant as one); parameters are
 * split at `&` and at `;` (which many servers and proxies take as a separator), and a fragment a
 * client sent is read as parameters too.
 */
export function redactUrl(url: string): string {
  const start = url.search(/\?|%3F/i);
  if (start < 0) return url;
  const mark = url[start] === '?' ? 1 : 3;
  const query = url
    .slice(start + mark)
    .split(/([&;#])/)
    .map((part) => {
      if (!carriesCredential(part)) return part;
      const equals = part.indexOf('=');
      return equals < 0 ? 'REDACTED' : `${part.slice(0, equals)}=REDACTED`;
    })
    .join('');
  return url.slice(0, start + mark) + query;
}

/**
 * Errors are logged by name, message, code and stack only: database drivers attach the failed
 * query's parameters (token hashes, encrypted tokens) and details quoting values.
 */
function serializeError(error: Error & { code?: unknown }): Record<string, unknown> {
  return { type: error.name, message: error.message, ...(typeof error.code === 'string' ? { code: error.code } : {}), stack: error.stack };
}

/** Pino options for Fastify: structured JSON, credentials removed from what requests log. */
export function loggerOptions(
  level: PlatformConfig['logLevel'],
  stream?: DestinationStream,
): LoggerOptions & { stream?: DestinationStream } {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: 'REDACTED' },
    serializers: {
      err: serializeError,
      req(request: { method: string; url: string; hostname?: string; ip?: string; id?: string }) {
        return {
          method: request.method,
          url: redactUrl(request.url),
          host: request.hostname,
          remoteAddress: request.ip,
        };
      },
    },
  };
}

const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/** Keeps a caller's `X-Request-Id` (when it is sane) so logs join across services; otherwise a new UUID. */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && acceptableRequestId.test(given) ? given : randomUUID();
}

/** The longest user agent an access line keeps. */
const MAX_USER_AGENT = 200;

/** A user agent as an access line keeps it: shortened, and with anything that looks like `key=…` or `token …` blanked. */
export function loggedUserAgent(agent: string | undefined): string | undefined {
  if (agent === undefined) return undefined;
  const scrubbed = agent.replace(/((?:key|token)\w*\s*[=:\s]\s*)[^\s;,)]+/gi, '$1REDACTED');
  return scrubbed.length > MAX_USER_AGENT ? `${scrubbed.slice(0, MAX_USER_AGENT)}…` : scrubbed;
}

/** Bytes written to a response: its body as it left (compressed if it was), counted as written. */
function countWrittenBytes(response: ServerResponse): { bytes: number } {
  const counter = { bytes: 0 };
  const size = (chunk: unknown, encoding: unknown): number =>
    typeof chunk === 'string' ? Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : chunk instanceof Uint8Array ? chunk.byteLength : 0;
  const write = response.write;
  const end = response.end;
  // An `end` that writes its chunk through `write` (as some response implementations do) counts it once.
  let ending = false;
  response.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (!ending) counter.bytes += size(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  response.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') counter.bytes += size(chunk, rest[0]);
    ending = true;
    try {
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } finally {
      ending = false;
    }
  } as ServerResponse['end'];
  return counter;
}

/**
 * One access line per request, in place of Fastify's two (`incoming request`, `request
 * completed`): method, route template, redacted URL, status, milliseconds, body bytes sent, the
 * key's id (never the key), client address and user agent, under the request's `reqId`.
 */
export function logAccess(app: FastifyInstance): void {
  const written = new WeakMap<object, { bytes: number }>();
  app.addHook('onRequest', (request, reply, done) => {
    written.set(request, countWrittenBytes(reply.raw));
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const line: Record<string, unknown> = {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: redactUrl(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      bytes: written.get(request)?.bytes ?? 0,
      // Set by the key gate on the requests it admits (`decorateRequest('apiKey')` in server.ts).
      keyId: (request as { apiKey?: { id: string } | null }).apiKey?.id ?? null,
      client: request.ip,
      userAgent: loggedUserAgent(request.headers['user-agent']) ?? null,
    };
    request.log.info(line, 'request completed');
    done();
  });
}
