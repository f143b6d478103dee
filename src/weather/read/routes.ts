import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { NotFoundError } from '../../platform/errors.js';
import { gatedRoute, keyParameter, type KeyGate } from '../../keys/gate.js';
import { oneOf } from '../../platform/settings.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import type { WeatherCatalog } from '../catalog.js';
import type { CatalogMemory } from './catalog-memory.js';
import { catalogSchema } from '../layer.js';
import { parsePosition, parseVariables, PointForecasts } from './point.js';
import { tileSize } from '../tiler.js';
import { OpenFiles } from '../../platform/files/open-files.js';
import { openArchive } from '../../platform/pmtiles.js';

const contentTypes = { png: 'image/png', webp: 'image/webp' } as const;

/** Archives stay open between requests; the least recently used are closed past this many. */
const maxOpenArchives = 64;


let transparent: Record<'png' | 'webp', Promise<Buffer>> | undefined;

/** The tile of a place the pyramid covers but the data does not reach: fully transparent. */
function emptyTile(format: 'png' | 'webp'): Promise<Buffer> {
  transparent ??= {
    png: sharp({ create: { width: tileSize, height: tileSize, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer(),
    webp: sharp({ create: { width: tileSize, height: tileSize, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .webp({ lossless: true })
      .toBuffer(),
  };
  return transparent[format];
}

/** The routes' request parts, declared once: their types, validation and OpenAPI entries come from these. */
const keyQuerystring = Type.Object({ key: keyParameter });
const tileParams = Type.Object({
  keyframe: Type.String({ format: 'uuid' }),
  z: Type.Integer({ minimum: 0, maximum: 30 }),
  x: Type.Integer({ minimum: 0 }),
  y: Type.Integer({ minimum: 0 }),
  format: oneOf(['png', 'webp']),
});
const pointParams = Type.Object({
  position: Type.String({ description: '{lon},{lat} in decimal degrees (WGS 84): longitude -180..180, latitude -90..90' }),
});
const pointQuerystring = Type.Object({
  key: keyParameter,
  variables: Type.Optional(Type.String({ description: 'Comma-separated variable ids (`temperature-2m:gfs`) or base ids (`temperature-2m`, every model\'s); all when absent' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'First valid time to include (RFC 3339); the run\'s first when absent' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Last valid time to include (RFC 3339); the run\'s last when absent' })),
});

/** Weather (spec 4.3): the catalog and the tiles of its keyframes, behind the API-key gate. */
export async function weatherRoutes(app: FastifyInstance, options: { gate: KeyGate; catalog: WeatherCatalog; memory: CatalogMemory; directory: string }): Promise<void> {
  // Kept open between requests; a file removed by retention, or never written, is simply not there.
  const archives = new OpenFiles((file) => openArchive(path.join(options.directory, file)), maxOpenArchives, (open) =>
    app.metrics.cacheLookup('weather-archives', open),
  );
  app.metrics.watchCache('weather-archives', () => ({ entries: archives.size }));
  // The composition shares the memory with static maps (their weather); it hears of new runs here.
  const { memory } = options;
  const points = new PointForecasts(options.directory, memory);
  const unwatch = await options.catalog.watch(() => memory.changed());
  app.addHook('onRequest', options.gate.hookFor('weather'));
  app.addHook('onClose', async () => {
    await unwatch();
    await archives.close();
    await points.close();
  });

  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  typed.get(
    '/weather/latest.json',
    {
      schema: {
        tags: ['weather'],
        summary: 'Weather catalog',
        description: 'Every variable of the latest complete run of each model, with its keyframes in time order.',
        querystring: keyQuerystring,
        ...gatedRoute,
        response: {
          200: { description: 'WeatherCatalogResult', ...catalogSchema },
          ...gatedRoute.response,
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=60');
      return memory.latest();
    },
  );

  typed.get(
    '/tiles/:keyframe/:z/:x/:y.:format',
    {
      schema: {
        tags: ['weather'],
        summary: 'Tile of a keyframe',
        description: 'Value-encoded tile: decode with the decoding of the variable in the catalog. Transparent pixels have no data.',
        params: tileParams,
        querystring: keyQuerystring,
        ...gatedRoute,
        response: {
          200: { description: 'The tile', content: { 'image/png': { schema: {} }, 'image/webp': { schema: {} } } },
          404: { $ref: 'ErrorBody#', description: 'Unknown keyframe, or a tile outside the pyramid' },
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const { keyframe, z, x, y, format } = request.params;
      const file = await memory.archiveOf(keyframe);
      if (!file) throw new NotFoundError();
      const archive = await archives.get(file);
      if (!archive || archive.tileType !== format) throw new NotFoundError();
      if (z < archive.minZoom || z > archive.maxZoom || x >= 2 ** z || y >= 2 ** z) throw new NotFoundError();
      const data = (await archive.tile(z, x, y)) ?? (await emptyTile(format));
      reply.header('content-type', contentTypes[format]);
      reply.header('cache-control', 'public, max-age=31536000, immutable');
      return reply.send(Buffer.from(data));
    },
  );

  const nullableNumber = (description: string) => ({ type: 'number', nullable: true, description }) as const;
  typed.get(
    '/weather/point/:position.json',
    {
      schema: {
        tags: ['weather'],
        summary: 'Point forecast',
        description:
          'The values of the latest runs\' variables at one place, for every keyframe in [from, to], interpolated bilinearly from the ' +
          'model\'s source grid (after unit conversion, not from the quantised tiles). Two-channel variables (wind) give the eastward u and ' +
          'northward v components, the speed and the direction the wind blows from (degrees clockwise from north). Without `variables`, ' +
          'every variable whose grid covers the point.',
        params: pointParams,
        querystring: pointQuerystring,
        ...gatedRoute,
        response: {
          200: {
            description: 'PointForecastResult',
            type: 'object',
            required: ['lon', 'lat', 'variables'],
            properties: {
              lon: { type: 'number', description: 'Longitude of the point, degrees' },
              lat: { type: 'number', description: 'Latitude of the point, degrees' },
              variables: {
                type: 'array',
                description: 'The requested variables of the latest runs, each with its keyframes in the window',
                items: {
                  type: 'object',
                  required: ['variable_id', 'name', 'unit', 'model', 'attribution', 'release_timestamp', 'channels', 'values'],
                  properties: {
                    variable_id: { type: 'string', description: '`<id>:<model>`, as in the catalog' },
                    name: { type: 'string' },
                    unit: { type: 'string' },
                    model: { type: 'string' },
                    attribution: { type: 'string' },
                    release_timestamp: { type: 'string', format: 'date-time', description: 'Reference time of the model run' },
                    channels: { type: 'string', enum: ['r', 'rg'], description: '`r`: one value; `rg`: a vector (u, v)' },
                    values: {
                      type: 'array',
                      description: 'One entry per keyframe in the window, in time order; null where the grid has no value there',
                      items: {
                        type: 'object',
                        required: ['timestamp'],
                        properties: {
                          timestamp: { type: 'string', format: 'date-time', description: 'Valid time of the keyframe' },
                          value: nullableNumber('The value, in `unit` (one-channel variables)'),
                          u: nullableNumber('Eastward component, in `unit` (two-channel variables)'),
                          v: nullableNumber('Northward component, in `unit`'),
                          speed: nullableNumber('Length of (u, v), in `unit`'),
                          direction: nullableNumber('Direction the vector comes from, degrees clockwise from north (270: from the west)'),
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          400: { $ref: 'ErrorBody#', description: 'A malformed or out-of-range point, an unknown variable, a malformed time, from after to, or a point outside the grid of a named variable (or of every variable)' },
          404: { $ref: 'ErrorBody#', description: 'No run has been published' },
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const { lon, lat } = parsePosition(request.params.position);
      const { from, to } = request.query;
      const forecast = await points.forecast({
        lon,
        lat,
        variables: parseVariables(request.query.variables),
        from: from === undefined ? null : new Date(from),
        to: to === undefined ? null : new Date(to),
      });
      reply.header('cache-control', 'public, max-age=60');
      return forecast;
    },
  );
}
