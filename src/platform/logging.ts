import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
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
