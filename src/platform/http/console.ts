/**
 * The web console (console/, built by Vite into dist/console) at `/console/`, as static files.
 * It is a single page that talks to the API like any client, so it needs nothing from the server
 * but its files, and `/console/settings.json`: where the public API is. The console is served
 * where key management is, since it signs in with it: on the public listener, or with `admin.port`
 * on the admin listener, whose console then calls the public listener for maps, weather and
 * coordinates (gated routes answer any origin) and whose policy lets it. The public listener
 * then still serves the console's assets (the catalog and viewers use them) but its `/console/`
 * says where the console is. When it was not built, `/console` says so instead of a bare 404.
 */

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody } from '../errors.js';

/** dist/console, beside this module's dist/src. */
export const defaultConsoleRoot = fileURLToPath(new URL('../../../console', import.meta.url));

/**
 * The page holds a service token: no framing by other sites, and scripts only from here. MapLibre
 * runs its workers from blob: URLs and sets inline styles; tiles and images come from this server.
 */
export const contentSecurityPolicy = policyWith(null);

/** The console's policy, letting it reach the public API at `apiOrigin` when that is another origin. */
function policyWith(apiOrigin: string | null): string {
  const api = apiOrigin ? ` ${apiOrigin}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "worker-src 'self' blob:",
    "child-src 'self' blob:",
    `img-src 'self' data: blob:${api}`,
    "style-src 'self' 'unsafe-inline'",
    `connect-src 'self'${api}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

export interface ConsoleOptions {
  root?: string;
  /**
   * Where the console's page is (`here`: this listener, key management beside it) or that it is on
   * the admin listener (`admin`: this listener serves only its assets).
   */
  page?: 'here' | 'admin';
  /** The public API's origin when it is not this listener's (the admin listener's console); null when it is. */
  apiOrigin?: (request: FastifyRequest) => string | null;
}

/** Whether the console was built (`npm run build`) into `root`. */
export function consoleBuilt(root = defaultConsoleRoot): boolean {
  return existsSync(path.join(root, 'index.html'));
}

/**
 * Another page of the console's build (`catalog`, `viewer`: console/<name>.html) served at an address
 * of its own, under the console's policy; null when the console was not built. The page is the same
 * for every reader: it asks for a key itself, so nothing secret is ever in it. Read once.
 */
export function consolePage(name: string, root = defaultConsoleRoot): ((reply: FastifyReply) => FastifyReply) | null {
  const file = path.join(root, `${name}.html`);
  if (!existsSync(file)) return null;
  const html = readFileSync(file, 'utf8');
  return (reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', contentSecurityPolicy)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-cache')
      .send(html);
}

export async function consoleRoutes(app: FastifyInstance, options: ConsoleOptions = {}): Promise<void> {
  const root = options.root ?? defaultConsoleRoot;
  const hide = { schema: { hide: true } };
  if (!consoleBuilt(root)) {
    const notBuilt = async (_request: unknown, reply: { code(status: number): { send(body: unknown): unknown } }) =>
      reply.code(404).send(errorBody('The console is not built: run `npm run build` (it builds console/ into dist/console)'));
    app.get('/console', hide, notBuilt);
    app.get('/console/*', hide, notBuilt);
    return;
  }
  const apiOrigin = options.apiOrigin ?? (() => null);
  const elsewhere = options.page === 'admin';
  // The page itself, under this listener's name: not served where key management is not.
  const notHere = async (_request: unknown, reply: FastifyReply) =>
    reply.code(404).send(errorBody('The console is served where key management is: on the admin listener (admin.port), at /console/; the server’s start-up log names its URL'));
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    schemaHide: true,
    cacheControl: false,
    index: elsewhere ? false : ['index.html'],
    ...(elsewhere ? { allowedPath: (pathname: string) => pathname !== '/index.html' } : {}),
    setHeaders(reply, file) {
      reply.header('content-security-policy', policyWith(apiOrigin(reply.request)));
      reply.header('x-content-type-options', 'nosniff');
      // Vite names assets after their content; the page itself must be fresh to point at new ones.
      const hashed = file.startsWith(path.join(root, 'assets') + path.sep);
      reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  if (elsewhere) app.get('/console/', hide, notHere);
  // Where the console finds the public API: null for its own origin.
  app.get(
    '/console/settings.json',
    { schema: { hide: true, response: { 200: { type: 'object', required: ['api'], properties: { api: { type: ['string', 'null'] } } } } } },
    async (request, reply) => reply.header('cache-control', 'no-cache').send({ api: apiOrigin(request) }),
  );
  // The page's relative asset URLs need the trailing slash.
  app.get('/console', hide, (_request, reply) => reply.redirect('/console/', 301));
}
