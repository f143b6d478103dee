/**
 * `/fonts/{fontstack}/{range}.pbf`, behind the API-key gate: MapLibre glyph ranges made from the
 * font catalog the renderer draws with (glyphs/catalog.ts, glyphs/pbf.ts). The fontstack is a
 * comma-separated list of font names; a name the catalog lacks falls back as the catalog decides
 * (per codepoint, to fonts of the same weight and slant). The range is `start-end` with start a
 * multiple of 256 up to 65280 and end = start + 255. Making a range costs tens to hundreds of
 * milliseconds of CPU, so it is made by the render pool's threads, once: ranges are kept in a
 * bounded LRU cache, and requests for a range being made wait for it.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../platform/errors.js';
import { gatedRoute, keyParameter, type KeyGate } from '../../keys/gate.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';
import { Lru } from '../../platform/lru.js';
import { sendCached } from '../../platform/http/http-cache.js';

export interface FontRouteOptions {
  gate: KeyGate;
  /** Makes the glyph PBF of 256 codepoints from `start` (the render pool, off the event loop). */
  glyphs: (fontstack: string[], start: number) => Promise<Uint8Array>;
  maxAgeSeconds: number;
  /** Glyph ranges kept (fontstack and range); one is 5 to 100 KB. */
  cacheEntries?: number;
}

const MAX_FONTS = 8;
const MAX_NAME_LENGTH = 128;
const LAST_RANGE_START = 65280;
const DEFAULT_CACHE_ENTRIES = 512;

/** The first codepoint of a `start-end` range of 256; an ApiError otherwise. */
export function parseGlyphRange(range: string): number {
  const match = /^(\d{1,5})-(\d{1,5})$/.exec(range);
  const start = Number(match?.[1]);
  if (!match || start % 256 !== 0 || start > LAST_RANGE_START || Number(match[2]) !== start + 255) {
    throw new ApiError(`Invalid glyph range "${range}": expected start-end with start a multiple of 256 up to ${LAST_RANGE_START} and end = start + 255`);
  }
  return start;
}

/** The font names of a comma-separated fontstack, trimmed; an ApiError when one is empty or too many. */
export function parseFontstack(fontstack: string): string[] {
  const names = fontstack.split(',').map((name) => name.trim());
  if (names.length > MAX_FONTS || names.some((name) => name === '' || name.length > MAX_NAME_LENGTH)) {
    throw new ApiError(`Invalid fontstack: 1 to ${MAX_FONTS} comma-separated font names of 1 to ${MAX_NAME_LENGTH} characters`);
  }
  return names;
}

export async function fontRoutes(app: FastifyInstance, options: FontRouteOptions): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('maps'));
  const cache = new Lru<string, Promise<Uint8Array>>(options.cacheEntries ?? DEFAULT_CACHE_ENTRIES);
  app.metrics.watchCache('glyphs', () => ({ entries: cache.size }));

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/fonts/:fontstack/:range.pbf',
    {
      schema: {
        tags: ['interactive maps'],
        summary: 'Glyphs of a fontstack for 256 codepoints, as MapLibre GL JS loads them',
        security: gatedRoute.security,
        params: Type.Object({
          fontstack: Type.String({ description: 'Comma-separated font names, e.g. "Noto Sans Regular,Noto Sans Bold"' }),
          range: Type.String({ description: 'start-end: start a multiple of 256 (0..65280), end = start + 255' }),
        }),
        querystring: Type.Object({ key: keyParameter }),
        response: {
          200: { description: 'Glyph PBF (signed distance fields at 24 px)', content: { 'application/x-protobuf': { schema: { type: 'string', format: 'binary' } } } },
          304: { description: 'Not modified (If-None-Match)' },
          400: { $ref: 'ErrorBody#', description: 'Invalid glyph range or fontstack' },
          ...gatedRoute.response,
        },
      },
    },
    async (request, reply) => {
      const start = parseGlyphRange(request.params.range);
      const fontstack = parseFontstack(request.params.fontstack);
      const id = `${fontstack.join(',')}\n${start}`;
      let made = cache.get(id);
      app.metrics.cacheLookup('glyphs', made !== undefined);
      if (!made) {
        made = options.glyphs(fontstack, start);
        cache.set(id, made);
        // A range that could not be made (a busy pool) is asked for again next time.
        made.catch(() => cache.delete(id));
      }
      return sendCached(request, reply, await made, 'application/x-protobuf', options.maxAgeSeconds);
    },
  );
}
