import type { FastifyInstance } from 'fastify';
import { HttpError } from '../platform/errors.js';
import { gatedRoute, type KeyGate } from '../platform/key-gate.js';
import { projInfo } from './proj.js';
import { maxTuples, parseCoordinates, parseOperations, PlanCache, TransformError, transformPoints } from './transform.js';

const xyzSchema = {
  $id: 'XYZ',
  type: 'object',
  required: ['x', 'y', 'z'],
  properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } },
} as const;

export const transformResultSchema = {
  $id: 'TransformResult',
  type: 'object',
  required: ['results', 'transformer_selection_strategy'],
  properties: {
    results: { type: 'array', items: { $ref: 'XYZ#' } },
    transformer_selection_strategy: { type: 'string', enum: ['auto', 'listed', 'towgs84', 'boundcrs'] },
  },
} as const;

export const coordinatesSchemas = [xyzSchema, transformResultSchema];

const srs = (what: string) => ({ type: 'integer', minimum: 1, maximum: 999_999_999, default: 4326, description: `${what} CRS (EPSG code)` });

/** The EPSG dataset in use, reported on every coordinates response and in `/ready`. */
export function epsgVersion(): string {
  return projInfo().epsgVersion ?? 'unknown';
}

/** Coordinates (spec 4.4) under `/coordinates`, behind the API-key gate. */
export async function coordinatesRoutes(app: FastifyInstance, options: { gate: KeyGate }): Promise<void> {
  const plans = new PlanCache();
  const version = epsgVersion();
  app.addHook('onRequest', options.gate.hook);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-epsg-version', version);
  });

  app.get<{ Params: { coordinates: string }; Querystring: { s_srs: number; t_srs: number; ops?: string } }>(
    '/coordinates/transform/:coordinates.json',
    {
      schema: {
        tags: ['coordinates'],
        summary: 'Transform coordinates',
        description: `Tuples x,y[,z] separated by ";" (at most ${maxTuples}), in GIS order: longitude or easting first.`,
        params: {
          type: 'object',
          required: ['coordinates'],
          properties: { coordinates: { type: 'string', minLength: 3, maxLength: 4096 } },
        },
        querystring: {
          type: 'object',
          properties: {
            key: { type: 'string', description: 'API key token' },
            s_srs: srs('Source'),
            t_srs: srs('Target'),
            ops: { type: 'string', maxLength: 512, description: 'EPSG operation codes separated by "|"' },
          },
        },
        ...gatedRoute,
        response: {
          200: { $ref: 'TransformResult#' },
          400: { $ref: 'ErrorBody#', description: 'Invalid coordinates, unknown CRS or operation, or points that cannot be transformed' },
          ...gatedRoute.response,
        },
      },
    },
    async (request) => {
      try {
        const points = parseCoordinates(request.params.coordinates);
        const ops = request.query.ops === undefined || request.query.ops === '' ? [] : parseOperations(request.query.ops);
        return transformPoints(plans, points, request.query.s_srs, request.query.t_srs, ops);
      } catch (error) {
        if (error instanceof TransformError) throw new HttpError(400, error.message);
        throw error;
      }
    },
  );
}
