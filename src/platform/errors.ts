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
 * A request the client got wrong, found by code that knows nothing of HTTP (a parser, a store):
 * its message is meant for the client, and it is answered with 400.
 */
export class ClientError extends Error {}

/** An error with an HTTP status whose message is safe to show to the client. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
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
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof HttpError) {
      return reply.code(error.statusCode).headers(error.headers).send(errorBody(error.message));
    }
    if (error instanceof ClientError) return reply.code(400).send(errorBody(error.message));
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
    reply.code(404).send(errorBody('The item does not exist'));
  });
}

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
