/**
 * `/`: the catalog of maps (console/catalog.html, built with the console: each map with its
 * thumbnail, name, area, formats and a link to its viewer), linking to the console, the API
 * reference and health. The page the server sends is the same for everyone and says nothing about
 * the instance's data: it asks the reader for an API key (kept in the tab's sessionStorage) and
 * lists the maps with it, as `/maps` needs one. When the console was not built, a small static page
 * says so and links the rest. Hidden from the OpenAPI document, as the console and `/openapi.json`
 * are: it is no API operation.
 */

import type { FastifyInstance } from 'fastify';
import { consolePage } from './console.js';

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Meridian</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #1d2733; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
li { margin: 0.4rem 0; }
code { background: #eef1f4; padding: 0 0.25rem; border-radius: 3px; }
</style>
</head>
<body>
<h1>Meridian</h1>
<p>A self-hosted mapping platform: API keys, static and interactive maps, weather tiles, coordinates.</p>
<ul>
<li>The list of maps and their viewers are part of the web console's build, which is missing: run <code>npm run build</code>.</li>
<li><a href="/api-reference/">API reference</a> and the <a href="/openapi.json">OpenAPI document</a> of this server.</li>
<li><a href="/health">Health</a> and <a href="/ready">readiness</a>.</li>
</ul>
<p>API calls carry a key: <code>?key=&lt;API key&gt;</code>.</p>
</body>
</html>
`;

/** Inline styles only: no scripts, no framing, nothing loaded from elsewhere. */
const contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export async function landingRoute(app: FastifyInstance, options: { root?: string } = {}): Promise<void> {
  const catalog = consolePage('catalog', options.root);
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    catalog ? catalog(reply) :
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', contentSecurityPolicy)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-cache')
      .send(page),
  );
}
