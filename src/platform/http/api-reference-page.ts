/**
 * `/api-reference/`: the API reference as a page, Swagger UI (npm `swagger-ui-dist`, pinned, its
 * files served from node_modules by this server, nothing from a CDN) reading this listener's
 * generated OpenAPI document at `/openapi.json`. The page and its script are the same for everyone
 * and need no key; *Try it out* asks for one in the page, as the document's `apiKey` scheme says.
 * Hidden from the OpenAPI document: it is no API operation.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { etagOf, sendCached } from './http-cache.js';

const distFolder = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Swagger UI sets inline styles and shows data: images; everything else comes from here. */
const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Meridian</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/api-reference/swagger-ui.css">
</head>
<body>
<p style="font: 14px system-ui, sans-serif; margin: 12px 20px"><a href="/">Meridian</a> · the same reference in Markdown is <code>docs/api.md</code>; the document is <a href="/openapi.json">/openapi.json</a>.</p>
<div id="reference"></div>
<script src="/api-reference/swagger-ui-bundle.js"></script>
<script src="/api-reference/start.js"></script>
</body>
</html>
`;

const start = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false, defaultModelsExpandDepth: 0 });\n`;

function send(reply: FastifyReply, type: string, body: string | Buffer, cacheControl: string): FastifyReply {
  return reply
    .type(type)
    .header('content-security-policy', contentSecurityPolicy)
    .header('x-content-type-options', 'nosniff')
    .header('cache-control', cacheControl)
    .send(body);
}

export async function apiReferencePageRoutes(app: FastifyInstance): Promise<void> {
  // Read once: the files change only with the installed package, which needs a restart anyway.
  const bundle = readFileSync(path.join(distFolder, 'swagger-ui-bundle.js'));
  const css = readFileSync(path.join(distFolder, 'swagger-ui.css'));
  const [bundleTag, cssTag] = [etagOf(bundle), etagOf(css)];
  const hide = { schema: { hide: true } };
  app.get('/api-reference/', hide, async (_request, reply) => send(reply, 'text/html; charset=utf-8', page, 'no-cache'));
  app.get('/api-reference', hide, async (_request, reply) => reply.redirect('/api-reference/', 301));
  app.get('/api-reference/start.js', hide, async (_request, reply) => send(reply, 'application/javascript; charset=utf-8', start, 'no-cache'));
  // Not named after their content: an hour, then revalidated by ETag, so that an upgrade is picked up.
  app.get('/api-reference/swagger-ui-bundle.js', hide, async (request, reply) => sendCached(request, reply.header('x-content-type-options', 'nosniff'), bundle, 'application/javascript; charset=utf-8', 3600, bundleTag));
  app.get('/api-reference/swagger-ui.css', hide, async (request, reply) => sendCached(request, reply.header('x-content-type-options', 'nosniff'), css, 'text/css; charset=utf-8', 3600, cssTag));
}
