import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { GATE_UNAVAILABLE, gatedRoute, keyParameter, type KeyGate } from '../keys/gate.js';
import { defaulted, type TypeBoxTypeProvider } from '../platform/http/typebox.js';
import { projInfo } from './proj/proj.js';
import { MAX_QUERY_LENGTH } from './search/query.js';
import type { DefaultTransformations, PresetExports } from './derived-cache.js';
import { loadIndex } from './index-cache.js';
import { loadRegistry, type Registry } from './search/registry.js';
import { prepareRanking, SearchCache, searchWith, type Deriver } from './search/search.js';
import { maxTuples, parseCoordinates, parseOperations, type Transforms } from './transform.js';

const xyzSchema = {
  $id: 'XYZ',
  type: 'object',
  required: ['x', 'y', 'z'],
  properties: { x: { type: 'number' }, y: { type: 'number' }, z: { type: 'number' } },
} as const;

const operationUsed = {
  $id: 'OperationUsed',
  type: 'object',
  required: ['code', 'name'],
  description: 'The operation PROJ applied to a point',
  properties: {
    code: { type: ['integer', 'null'], description: 'EPSG code of the operation (or of the one EPSG transformation or concatenated operation it applies), when it has one' },
    name: { type: 'string', description: "PROJ's name of it, e.g. \"Inverse of CH1903+ to WGS 84 (1) + Swiss Oblique Mercator 1995\"" },
  },
} as const;

export const transformResultSchema = {
  $id: 'TransformResult',
  type: 'object',
  required: ['results', 'operations', 'transformer_selection_strategy'],
  properties: {
    results: { type: 'array', items: { $ref: 'XYZ#' } },
    operations: { type: 'array', items: { $ref: 'OperationUsed#' }, description: 'The operation applied to each point, in the order of results' },
    transformer_selection_strategy: { type: 'string', enum: ['auto', 'listed', 'towgs84', 'boundcrs'] },
  },
} as const;

const id = {
  $id: 'Id',
  type: 'object',
  required: ['authority', 'code'],
  properties: { authority: { type: 'string' }, code: { type: 'integer' } },
} as const;

const defaultTransformation = {
  $id: 'DefaultTransformation',
  type: 'object',
  required: ['authority', 'code', 'name', 'steps'],
  description: "PROJ's first operation from the CRS to WGS 84 that runs here: one EPSG operation, or a chain of them",
  properties: {
    authority: { type: 'string' },
    code: { type: 'integer', description: 'The EPSG operation, or the EPSG concatenated operation made of exactly these steps; for a chain EPSG has no code for, its first step' },
    name: { type: 'string' },
    steps: { type: 'array', items: { $ref: 'Id#' }, description: 'The EPSG operations it is made of, in order' },
  },
} as const;

const exportItem = {
  $id: 'ExportItem',
  type: ['object', 'null'],
  properties: { proj4: { type: ['string', 'null'] }, wkt: { type: ['string', 'null'] } },
} as const;

const bbox = { type: ['array', 'null'], items: { type: 'number' }, description: '[min_lon, min_lat, max_lon, max_lat]; min_lon > max_lon when the area crosses the antimeridian' } as const;

const transformationItem = {
  $id: 'TransformationItem',
  type: 'object',
  properties: {
    accuracy: { type: ['number', 'null'] },
    area: { type: ['string', 'null'] },
    bbox,
    deprecated: { type: 'boolean' },
    exports: { $ref: 'ExportItem#' },
    grids: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' } } } },
    id: { $ref: 'Id#' },
    name: { type: 'string' },
    reversible: { type: 'boolean' },
    target_crs: { anyOf: [{ $ref: 'Id#' }, { type: 'null' }] },
    unit: { type: ['string', 'null'] },
    usable: { type: 'boolean' },
  },
} as const;

const searchItem = {
  $id: 'SearchItem',
  type: 'object',
  properties: {
    accuracy: { type: ['number', 'null'], description: 'Metres, of the default transformation to WGS 84' },
    area: { type: ['string', 'null'] },
    bbox,
    default_transformation: { anyOf: [{ $ref: 'DefaultTransformation#' }, { type: 'null' }] },
    deprecated: { type: 'boolean' },
    exports: { $ref: 'ExportItem#' },
    id: { $ref: 'Id#' },
    kind: { type: 'string' },
    name: { type: 'string' },
    transformations: { type: 'array', items: { anyOf: [{ type: 'integer' }, { $ref: 'TransformationItem#' }] } },
    unit: { type: ['string', 'null'] },
  },
} as const;

const searchResult = {
  $id: 'SearchResult',
  type: 'object',
  required: ['results', 'total'],
  properties: { results: { type: 'array', items: { $ref: 'SearchItem#' } }, total: { type: 'integer' } },
} as const;

export const coordinatesSchemas = [xyzSchema, operationUsed, transformResultSchema, id, defaultTransformation, exportItem, transformationItem, searchItem, searchResult];

const srs = (what: string) => defaulted(Type.Integer({ minimum: 1, maximum: 999_999_999, default: 4326, description: `${what} CRS (EPSG code)` }));

/** The routes' parameters, declared once: their types, validation and OpenAPI entries come from these. */
const searchParams = Type.Object({ query: Type.String({ maxLength: MAX_QUERY_LENGTH }) });
const searchQuerystring = Type.Object({
  key: keyParameter,
  limit: defaulted(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
  offset: defaulted(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  transformations: defaulted(Type.Boolean({ default: false, description: 'Detailed transformations for each CRS' })),
  exports: defaulted(Type.Boolean({ default: false, description: 'Exports in WKT and Proj4 notations' })),
});
const transformParams = Type.Object({ coordinates: Type.String({ minLength: 3, maxLength: 4096 }) });
const transformQuerystring = Type.Object({
  key: keyParameter,
  s_srs: srs('Source'),
  t_srs: srs('Target'),
  ops: Type.Optional(Type.String({ maxLength: 512, description: 'EPSG operation codes separated by "|"' })),
});

/** The EPSG dataset in use, reported on every coordinates response and in `/ready`. */
export function epsgVersion(): string {
  return projInfo().epsgVersion ?? 'unknown';
}

let registry: Registry | undefined;

/**
 * The registry index, once per thread: at the first server start, read from the coordinates caches'
 * folder when it is current (index-cache.ts), else built from proj.db (it takes a moment).
 */
export function sharedRegistry(from?: { cacheDir: string; log: Parameters<typeof loadIndex>[1] }): Registry {
  registry ??= from ? loadIndex(from.cacheDir, from.log) : loadRegistry();
  return registry;
}

/**
 * Coordinates (spec 4.4) under `/coordinates`, behind the API-key gate. Search finds its page on the
 * serving thread and has `deriver` (the coordinates pool) compute what PROJ alone knows of it and
 * `defaults` and `exports` (computed at setup) do not hold. Transforms run on `transforms` (the
 * same pool): no PROJ work runs on the serving thread.
 */
export async function coordinatesRoutes(
  app: FastifyInstance,
  options: { gate: KeyGate; registry: Registry; deriver: Deriver; transforms: Transforms; defaults?: DefaultTransformations; exports?: () => PresetExports },
): Promise<void> {
  const cache = new SearchCache(options.defaults, options.exports);
  prepareRanking(options.registry);
  const version = epsgVersion();
  app.addHook('onRequest', options.gate.hookFor('coordinates'));
  app.addHook('onSend', async (_request, reply) => {
    reply.header('x-epsg-version', version);
  });

  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/coordinates/search/:query.json',
    {
      schema: {
        tags: ['coordinates'],
        summary: 'Search coordinate systems',
        description:
          'Free text (code, name, aliases, area; case- and accent-insensitive, word prefixes match) and key:value filters: kind, deprecated, code, trans and more (see docs/guide/coordinates.md). Defaults: kind:CRS deprecated:0.',
        params: searchParams,
        querystring: searchQuerystring,
        ...gatedRoute,
        response: {
          200: { $ref: 'SearchResult#' },
          400: { $ref: 'ErrorBody#', description: 'Invalid query or parameters' },
          ...gatedRoute.response,
        },
      },
    },
    async (request) => searchWith(options.registry, cache, options.deriver, { query: request.params.query, ...request.query }),
  );

  typed.get(
    '/coordinates/transform/:coordinates.json',
    {
      schema: {
        tags: ['coordinates'],
        summary: 'Transform coordinates',
        description: `Tuples x,y[,z] separated by ";" (at most ${maxTuples}), in GIS order: longitude or easting first.`,
        params: transformParams,
        querystring: transformQuerystring,
        ...gatedRoute,
        response: {
          200: { $ref: 'TransformResult#' },
          400: { $ref: 'ErrorBody#', description: 'Invalid coordinates, unknown CRS or operation, or points that cannot be transformed' },
          ...gatedRoute.response,
          503: {
            $ref: 'ErrorBody#',
            description: `PROJ needed more than the time limit (its answer is kept: retry after Retry-After), too many coordinate operations are waiting, or: ${GATE_UNAVAILABLE}`,
          },
        },
      },
    },
    async (request) => {
      const points = parseCoordinates(request.params.coordinates);
      const ops = request.query.ops === undefined || request.query.ops === '' ? [] : parseOperations(request.query.ops);
      return options.transforms.transform({ points, source: request.query.s_srs, target: request.query.t_srs, ops }, request.log);
    },
  );
}
