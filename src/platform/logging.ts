import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DestinationStream, LoggerOptions } from 'pino';
import type { PlatformConfig } from './config.js';

/** Query parameters whose values are credentials and never reach a log line. */
const secretParameters = new Set(['key', 'token', 'access_token']);

/** A parameter name as a server reads it: percent-decoded (even when malformed), without `[...]`, any case. */
function parameterName(raw: string): string {
  return raw
    .replaceAll('+', ' ')
    .replace(/%([0-9A-Fa-f]{2})/g, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    .replace(/\[.*$/, '')
    .trim()
    .toLowerCase();
}

/**
 * The URL with the value of every credential parameter in its query replaced by `REDACTED`,
 * whatever form its name takes (`%6Bey=`, `KEY=`, `key[]=`).
 */
export function redactUrl(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const hash = url.indexOf('#', start);
  const end = hash < 0 ? url.length : hash;
  const query = url
    .slice(start + 1, end)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      if (equals < 0) return part;
      const name = part.slice(0, equals);
      return secretParameters.has(parameterName(name)) ? `${name}=REDACTED` : part;
    })
    .join('&');
  return url.slice(0, start + 1) + query + url.slice(end);
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
