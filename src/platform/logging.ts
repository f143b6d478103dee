import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DestinationStream, LoggerOptions } from 'pino';
import type { PlatformConfig } from './config.js';

/**
 * A parameter name as a reader of the log might take it for one: percent-decoded as often as it
 * is encoded (even when malformed), in compatibility form (fullwidth letters are letters), any case.
 */
function parameterName(raw: string): string {
  let name = raw.replaceAll('+', ' ');
  for (let previous = ''; name !== previous && name.includes('%'); ) {
    previous = name;
    name = percentDecoded(name);
  }
  return name.normalize('NFKC').toLowerCase();
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
 * Whether a parameter's value is redacted: its name holds "key" or "token" in any spelling
 * (`api_key`, `apikey`, `key%00`, `%256Bey`, `access-token`), not only the names the key gate
 * reads. A client that misspells the parameter still sent its key; no route takes another
 * parameter with such a name, so nothing useful to a log reader is lost.
 */
const credentialName = /key|token/;

/**
 * The URL with the value of every credential parameter in its query replaced by `REDACTED`.
 * Parameters are split at `&` and at `;` (which many servers and proxies take as a separator),
 * and a fragment a client sent is read as parameters too.
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const query = url
    .slice(start + 1)
    .split(/([&;#])/)
    .map((part) => {
      const equals = part.indexOf('=');
      if (equals < 0) return part;
      const name = part.slice(0, equals);
      return credentialName.test(parameterName(name)) ? `${name}=REDACTED` : part;
    })
    .join('');
  return url.slice(0, start + 1) + query;
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
