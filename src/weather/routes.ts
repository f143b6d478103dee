import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import sharp from 'sharp';
import { NotFoundError } from '../platform/errors.js';
import { gatedRoute, type KeyGate } from '../keys/gate.js';
import type { WeatherCatalog } from './catalog.js';
import { CatalogMemory } from './catalog-memory.js';
import { tileSize } from './mercator.js';
import { Lru } from '../platform/lru.js';
import { openArchive, type Archive } from '../platform/pmtiles.js';

const contentTypes = { png: 'image/png', webp: 'image/webp' } as const;

/** Archives stay open between requests; the least recently used are closed past this many. */
const maxOpenArchives = 64;

class ArchivePool {
  private readonly open = new Lru<string, Promise<Archive | null>>(maxOpenArchives, {
    onEvict: (archive) => void archive.then((a) => a?.close()),
  });

  constructor(private readonly directory: string) {}

  get(file: string): Promise<Archive | null> {
    const cached = this.open.get(file);
    if (cached) return cached;
    // A file removed by retention, or never written, is simply not there.
    const opening = openArchive(path.join(this.directory, file)).catch(() => null);
    this.open.set(file, opening);
    opening.then((archive) => {
      if (!archive) this.open.delete(file);
    });
    return opening;
  }

  async close(): Promise<void> {
    const all = this.open.values();
    this.open.clear();
    await Promise.all(all.map(async (archive) => (await archive)?.close()));
  }
}

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

/** Weather (spec 4.3): the catalog and the tiles of its keyframes, behind the API-key gate. */
export async function weatherRoutes(app: FastifyInstance, options: { gate: KeyGate; catalog: WeatherCatalog; directory: string }): Promise<void> {
  const archives = new ArchivePool(options.directory);
  const memory = new CatalogMemory(options.catalog);
  const unwatch = await options.catalog.watch(() => memory.changed());
  app.addHook('onRequest', options.gate.hookFor('weather'));
  app.addHook('onClose', async () => {
    await unwatch();
    await archives.close();
  });

  app.get(
    '/weather/latest.json',
    {
      schema: {
        tags: ['weather'],
        summary: 'Weather catalog',
        description: 'Every variable of the latest complete run of each model, with its keyframes in time order.',
        querystring: { type: 'object', properties: { key: { type: 'string', description: 'API key token' } } },
        ...gatedRoute,
        response: {
          200: {
            description: 'WeatherCatalogResult',
            type: 'object',
            required: ['variables'],
            properties: { variables: { type: 'array', items: { type: 'object', additionalProperties: true } } },
          },
          ...gatedRoute.response,
        },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=60');
      return memory.latest();
    },
  );

  app.get<{ Params: { keyframe: string; z: number; x: number; y: number; format: 'png' | 'webp' } }>(
    '/tiles/:keyframe/:z/:x/:y.:format',
    {
      schema: {
        tags: ['weather'],
        summary: 'Tile of a keyframe',
        description: 'Value-encoded tile: decode with the decoding of the variable in the catalog. Transparent pixels have no data.',
        params: {
          type: 'object',
          required: ['keyframe', 'z', 'x', 'y', 'format'],
          properties: {
            keyframe: { type: 'string', format: 'uuid' },
            z: { type: 'integer', minimum: 0, maximum: 30 },
            x: { type: 'integer', minimum: 0 },
            y: { type: 'integer', minimum: 0 },
            format: { type: 'string', enum: ['png', 'webp'] },
          },
        },
        querystring: { type: 'object', properties: { key: { type: 'string', description: 'API key token' } } },
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
}
