import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The one error body every endpoint answers with: `{"errors":[{"message":"..."}]}`. */
export interface ErrorBody {
  errors: { message: string }[];
}

export function errorBody(message: string): ErrorBody {
  return { errors: [{ message }] };
}

/** JSON schema of the error body, for route response declarations. */
export const errorBodySchema = {
  $id: 'ErrorBody',
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } },
    },
  },
} as const;

/**
 * What went wrong, in the words of the code that found it. Domain code (parsers, stores, pools)
 * throws an ApiError with one of these; installErrorHandlers alone turns it into an HTTP status.
 */
export type Failure = 'invalid' | 'unauthorized' | 'forbidden' | 'not-found' | 'uri-too-long' | 'unsupported' | 'rate-limited' | 'upstream' | 'unavailable';

const statusOfFailure: Record<Failure, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  'not-found': 404,
  'uri-too-long': 414,
  unsupported: 415,
  'rate-limited': 429,
  upstream: 502,
  unavailable: 503,
};

/**
 * Why a request was answered 503: a task ran past its time limit on a thread (`timeout`), its
 * pool's queue was full (`queue`), the database did not answer (`database`), the task's estimated
 * cost (its pixels at the learned cost per pixel) could not fit within the time limit behind the
 * line (`budget`), or what it needs is still being built at start-up (`starting`).
 */
export type UnavailableReason = 'timeout' | 'queue' | 'database' | 'budget' | 'starting';

/** The documented text of every 404. */
export const NOT_FOUND = 'The item does not exist';
/** The longest URL a request may have (and the longest path parameter), and its documented 414 text. */
export const MAX_URI_BYTES = 8192;
export const URI_TOO_LONG = `URI Too Long. Maximum allowed length is ${MAX_URI_BYTES} bytes.`;

/**
 * A failure whose message is meant for the client (a bad request, a missing item, a busy server),
 * with the response headers it needs (`Retry-After`, `WWW-Authenticate`).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly failure: Failure = 'invalid',
    readonly headers: Record<string, string> = {},
    /** For a 503: why, for the log and the metrics' `reason` label. */
    readonly reason?: UnavailableReason,
  ) {
    super(message);
  }

  /** The HTTP status this failure is answered with. */
  get statusCode(): number {
    return statusOfFailure[this.failure];
  }
}

export class NotFoundError extends ApiError {
  constructor(message = NOT_FOUND) {
    super(message, 'not-found');
  }
}

/** The reason each request answered 503 was given, for the metrics (read once its response is sent). */
const unavailableReasons = new WeakMap<FastifyRequest, UnavailableReason>();

export function unavailableReasonOf(request: FastifyRequest): UnavailableReason | undefined {
  return unavailableReasons.get(request);
}

/** Gives a 503 answered without an ApiError its reason, for the metrics only: `/ready`, which load balancers ask every few seconds, logs none. */
export function noteUnavailable(request: FastifyRequest, reason: UnavailableReason): void {
  unavailableReasons.set(request, reason);
}

/** How often each 503 reason is logged at most; the refusals in between are counted into the next line. */
export const UNAVAILABLE_LOG_INTERVAL_MS = 60_000;

/**
 * Logs a 503's reason at `warn` once per reason and interval (a burst of refusals would otherwise
 * flood the log with the same line), with how many refusals for that reason went unlogged since.
 */
function unavailableLogger(intervalMs: number) {
  const last = new Map<UnavailableReason, { at: number; unlogged: number }>();
  return (request: FastifyRequest, reason: UnavailableReason, message: string) => {
    unavailableReasons.set(request, reason);
    const now = Date.now();
    const seen = last.get(reason);
    if (seen && now - seen.at < intervalMs) {
      seen.unlogged++;
      return;
    }
    request.log.warn(
      { reason, route: request.routeOptions.url ?? null, unloggedSince: seen?.unlogged ?? 0, intervalMs },
      `503 (${reason}): ${message}`,
    );
    last.set(reason, { at: now, unlogged: 0 });
  };
}

/** Fastify's own client-error codes, mapped to messages that do not echo the request back. */
const fastifyMessages: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Media Type: send application/json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty; send a JSON object',
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the body',
};

/**
 * Every failure leaves as the documented error body with the right status. Client errors keep their
 * status; anything unexpected is logged and answered with a generic 500 that reveals nothing.
 */
export function installErrorHandlers(app: FastifyInstance, unavailableLogIntervalMs = UNAVAILABLE_LOG_INTERVAL_MS): void {
  const logUnavailable = unavailableLogger(unavailableLogIntervalMs);
  app.setErrorHandler((error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof ApiError) {
      if (error.statusCode === 503 && error.reason) logUnavailable(request, error.reason, error.message);
      return reply.code(error.statusCode).headers(error.headers).send(errorBody(error.message));
    }
    if (error.validation) {
      return reply.code(400).send(errorBody(validationMessage(error)));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const message = (error.code && fastifyMessages[error.code]) ?? error.message;
      return reply.code(status).send(errorBody(message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody('Internal server error'));
  });

  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send(errorBody(NOT_FOUND));
  });
}

/**
 * Errors Fastify's router raises before any route runs (bad percent-encoding, a path parameter
 * over the limit), in the documented body; the URL (which may carry a key) is never echoed.
 */
export function frameworkErrorHandler(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(414).send(errorBody(URI_TOO_LONG));
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    reply.code(400).send(errorBody('Invalid URL: malformed percent-encoding'));
    return;
  }
  reply.code(400).send(errorBody('Bad request'));
}

/**
 * Requests Node's HTTP parser refuses (malformed, header section over the limit, too slow), in the
 * documented body. An overflowing header section whose request line is longer than MAX_URI_BYTES
 * is a URL too long: 414, as for the static routes; otherwise 431. A HEAD request gets no body, so a keep-alive client stays in step.
 */
export function clientErrorResponse(error: Error & { code?: string; rawPacket?: Buffer }): string | null {
  if (error.code === 'ECONNRESET') return null;
  const packet = error.rawPacket?.toString('latin1') ?? '';
  let status: keyof typeof STATUS_TEXT = 400;
  let message = 'Malformed HTTP request';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') [status, message] = [408, 'Request timeout'];
  else if (error.code === 'HPE_HEADER_OVERFLOW') {
    const requestLine = packet.split('\r\n', 1)[0]!;
    [status, message] = requestLine.length > MAX_URI_BYTES ? [414, URI_TOO_LONG] : [431, 'Request header fields too large'];
  }
  return rawErrorResponse(status, message, packet.startsWith('HEAD '));
}

/** A whole HTTP response in the documented body, for a connection no request object stands for; `headOnly` for HEAD. */
export function rawErrorResponse(status: keyof typeof STATUS_TEXT, message: string, headOnly = false): string {
  const body = JSON.stringify(errorBody(message));
  const head = `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
  return headOnly ? head : head + body;
}

const STATUS_TEXT = { 400: 'Bad Request', 408: 'Request Timeout', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' } as const;

/** "body/description must be string" reads better as "description must be string". */
function validationMessage(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const where = error.validationContext ?? 'request';
  const field = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (first.keyword === 'additionalProperties') {
    const extra = (first.params as { additionalProperty?: string }).additionalProperty;
    return `${where} has unknown field "${field ? `${field}.` : ''}${extra}"`;
  }
  if (first.keyword === 'required') {
    const missing = (first.params as { missingProperty?: string }).missingProperty;
    return `${where} is missing required field "${missing}"`;
  }
  const subject = field ? `${where === 'body' ? '' : `${where} `}"${field}"` : where;
  return `${subject} ${first.message ?? 'is invalid'}`.trim();
}
