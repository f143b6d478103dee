/**
 * `GET /maps/{mapId}/viewer`: the map's viewer page (console/viewer.html, built with the console:
 * MapLibre GL JS from this server, opening on the map's data, its styles, and URLs to copy). The
 * page is the same for every map and every reader and holds no data and no key: it asks the reader
 * for a key and loads the map with it, so it is not behind the gate, and does not say whether a map
 * exists (the page does, once it has a key). Without a built console it answers 404 saying how to
 * build it, as `/console/` does.
 */

import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { consolePage } from '../../platform/http/console.js';
import { errorBody } from '../../platform/errors.js';
import type { TypeBoxTypeProvider } from '../../platform/http/typebox.js';

export async function viewerRoutes(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const viewer = consolePage('viewer', options.root);
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/maps/:mapId/viewer',
    { schema: { hide: true, params: Type.Object({ mapId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }) }) } },
    async (_request, reply) =>
      viewer ? viewer(reply) : reply.code(404).send(errorBody('The map viewer is not built: run `npm run build` (it builds console/ into dist/console)')),
  );
}
