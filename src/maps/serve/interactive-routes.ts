/**
 * The interactive-map endpoints, what a MapLibre GL JS client needs besides the static images:
 * style, TileJSON and GeoJSON data (style-routes.ts), tiles (tiles-routes.ts), glyphs
 * (fonts-routes.ts) and sprites (sprite-routes.ts), each behind the API-key gate.
 */

import type { FastifyInstance } from 'fastify';
import type { KeyGate } from '../../keys/gate.js';
import { fontRoutes } from './fonts-routes.js';
import type { MapRegistry } from '../registry.js';
import { spriteRoutes } from './sprite-routes.js';
import { styleRoutes } from './style-routes.js';
import { tileRoutes } from './tiles-routes.js';

export interface InteractiveMapOptions {
  gate: KeyGate;
  registry: MapRegistry;
  /** Makes a glyph range off the event loop (RenderPool.glyphs). */
  glyphs: (fontstack: string[], start: number) => Promise<Uint8Array>;
  /** `Cache-Control: public, max-age=` of every response. */
  maxAgeSeconds: number;
  /** Where clients reach Meridian, for the links in styles and TileJSON; the request's Host when null. */
  publicUrl: string | null;
}

export async function interactiveMapRoutes(app: FastifyInstance, options: InteractiveMapOptions): Promise<void> {
  const { gate, registry, maxAgeSeconds } = options;
  await app.register(styleRoutes, { gate, registry, maxAgeSeconds, publicUrl: options.publicUrl });
  await app.register(tileRoutes, { gate, registry, maxAgeSeconds });
  await app.register(spriteRoutes, { gate, registry, maxAgeSeconds });
  await app.register(fontRoutes, { gate, glyphs: options.glyphs, maxAgeSeconds });
}
