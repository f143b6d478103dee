/**
 * The web console (console/, built by Vite into dist/console) at `/console/`, as static files.
 * It is a single page that talks to the API like any client, so it needs nothing from the server
 * but its files. When it was not built, `/console` says so instead of a bare 404.
 */

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorBody } from './errors.js';

/** dist/console, beside this module's dist/src. */
export const defaultConsoleRoot = fileURLToPath(new URL('../../console', import.meta.url));

/**
 * The page holds a service token: no framing by other sites, and scripts only from here. MapLibre
 * runs its workers from blob: URLs and sets inline styles; tiles and images come from this server.
 */
export const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "child-src 'self' blob:",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

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

export async function consoleRoutes(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const root = options.root ?? defaultConsoleRoot;
  if (!consoleBuilt(root)) {
    const notBuilt = async (_request: unknown, reply: { code(status: number): { send(body: unknown): unknown } }) =>
      reply.code(404).send(errorBody('The console is not built: run `npm run build` (it builds console/ into dist/console)'));
    app.get('/console', { schema: { hide: true } }, notBuilt);
    app.get('/console/*', { schema: { hide: true } }, notBuilt);
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: '/console/',
    schemaHide: true,
    cacheControl: false,
    setHeaders(reply, file) {
      reply.header('content-security-policy', contentSecurityPolicy);
      reply.header('x-content-type-options', 'nosniff');
      // Vite names assets after their content; the page itself must be fresh to point at new ones.
      const hashed = file.startsWith(path.join(root, 'assets') + path.sep);
      reply.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  // The page's relative asset URLs need the trailing slash.
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect('/console/', 301));
}
