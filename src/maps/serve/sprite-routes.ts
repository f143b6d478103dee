/**
 * The sprite files of a map, behind the API-key gate, as the style's `sprite` names them (read
 * through sprite/read.ts, within sprite/sprite.ts's size and time limits):
 * `/maps/{mapId}/sprite{@2x}.{json,png}` for a single sprite (or the entry "default" of the array
 * form) and `/maps/{mapId}/sprite/{id}{@2x}.{json,png}` for each entry of the array form. When a
 * sprite has no `@2x` files, the `@2x` URLs answer with the 1x ones, as Meridian's renderer falls
 * back (the index's pixelRatio tells MapLibre). Files are kept in a small LRU cache, as the style is
 * kept: both change with a restart.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, NotFoundError } from '../../platform/errors.js';
import { gatedRoute, keyParameter, type KeyGate } from '../../keys/gate.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import { Lru } from '../../platform/lru.js';
import { sendCached } from '../../platform/http/http-cache.js';
import { mapOf, type MapRegistry } from '../registry.js';
import { readLimited } from '../../render/sprite/read.js';
import { defaultSpriteLimits, spriteEntries, spriteFiles, type SpriteLimits } from '../../render/sprite/sprite.js';

export interface SpriteRouteOptions {
  gate: KeyGate;
  registry: MapRegistry;
  maxAgeSeconds: number;
  limits?: SpriteLimits;
}

interface SpriteFiles {
  json: Uint8Array;
  png: Uint8Array;
}

const CACHED_SPRITES = 32;
const DEFAULT_SPRITE = 'default';

/** `{id}{@2x}.{json|png}` of the array form's URLs; undefined when the name is not one. */
export function parseSpriteFile(name: string): { id: string; ratio: 1 | 2; format: 'json' | 'png' } | undefined {
  const match = /^(.+?)(@2x)?\.(json|png)$/.exec(name);
  if (!match) return undefined;
  return { id: match[1]!, ratio: match[2] ? 2 : 1, format: match[3] as 'json' | 'png' };
}

export async function spriteRoutes(app: FastifyInstance, options: SpriteRouteOptions): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  const limits = options.limits ?? defaultSpriteLimits;
  const cache = new Lru<string, SpriteFiles>(CACHED_SPRITES);
  app.metrics.watchCache('sprites', () => ({ entries: cache.size }));

  const readPair = async (base: string, ratio: number): Promise<SpriteFiles | null> => {
    const files = spriteFiles(base, ratio);
    const [json, png] = await Promise.all([readLimited(files.json, limits.maxJsonBytes, limits.timeoutMs), readLimited(files.png, limits.maxPngBytes, limits.timeoutMs)]);
    return json && png ? { json, png } : null;
  };

  const load = async (mapId: string, id: string, ratio: 1 | 2): Promise<SpriteFiles> => {
    const map = mapOf(options.registry, mapId);
    const entry = map.style.sprite === undefined ? undefined : spriteEntries(map.style.sprite).find((candidate) => candidate.id === id);
    if (!entry) throw new NotFoundError();
    const cacheKey = `${mapId}\n${id}\n${ratio}`;
    const cached = cache.get(cacheKey);
    app.metrics.cacheLookup('sprites', cached !== undefined);
    if (cached) return cached;
    let files: SpriteFiles | null;
    try {
      files = (ratio === 2 ? await readPair(entry.url, 2) : null) ?? (await readPair(entry.url, 1));
    } catch (error) {
      app.log.warn(`map "${mapId}": sprite "${id}" cannot be read: ${(error as Error).message}`);
      throw new ApiError('The sprite could not be read', 'upstream');
    }
    if (!files) throw new NotFoundError();
    return cache.set(cacheKey, files);
  };

  const send = async (request: FastifyRequest, reply: FastifyReply, mapId: string, id: string, ratio: 1 | 2, format: 'json' | 'png') => {
    const files = await load(mapId, id, ratio);
    return format === 'json'
      ? sendCached(request, reply, files.json, 'application/json; charset=utf-8', options.maxAgeSeconds)
      : sendCached(request, reply, files.png, 'image/png', options.maxAgeSeconds);
  };

  const response = {
    200: {
      description: 'The sprite index (JSON) or sheet (PNG)',
      content: { 'application/json': { schema: { type: 'object' } }, 'image/png': { schema: { type: 'string', format: 'binary' } } },
    },
    304: { description: 'Not modified (If-None-Match)' },
    404: { $ref: 'ErrorBody#', description: 'No such map, the map has no such sprite, or its files are missing' },
    502: { $ref: 'ErrorBody#', description: 'The sprite’s files could not be read' },
    ...gatedRoute.response,
  };
  const querystring = Type.Object({ key: keyParameter });
  const mapId = Type.String({ description: 'Map identifier' });
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  for (const ratio of [1, 2] as const) {
    for (const format of ['json', 'png'] as const) {
      typed.get(
        `/maps/:mapId/sprite${ratio === 2 ? '@2x' : ''}.${format}`,
        {
          schema: {
            tags: ['interactive maps'],
            summary: `The map’s sprite ${format === 'json' ? 'index' : 'sheet'}${ratio === 2 ? ' for pixel ratio 2' : ''}`,
            security: gatedRoute.security,
            params: Type.Object({ mapId }),
            querystring,
            response,
          },
        },
        (request, reply) => send(request, reply, request.params.mapId, DEFAULT_SPRITE, ratio, format),
      );
    }
  }

  typed.get(
    '/maps/:mapId/sprite/:file',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'A file of one sprite of the array form of the map’s sprite',
        security: gatedRoute.security,
        params: Type.Object({ mapId, file: Type.String({ description: '{id}{@2x}.{json|png}' }) }),
        querystring,
        response,
      },
    },
    (request, reply) => {
      const file = parseSpriteFile(request.params.file);
      if (!file) throw new NotFoundError();
      return send(request, reply, request.params.mapId, file.id, file.ratio, file.format);
    },
  );
}
