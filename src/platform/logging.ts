import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DestinationStream, LoggerOptions } from 'pino';
import type { PlatformConfig } from './config.js';

/** Query parameters whose values are credentials and never reach a log line. */
const secretParameters = /([?&](?:key|token|access_token)=)[^&#]*/gi;

/** The URL with every credential value in its query replaced by `REDACTED`. */
export function redactUrl(url: string): string {
  return url.replace(secretParameters, '$1REDACTED');
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
