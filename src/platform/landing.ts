/**
 * `/`: a small HTML page for whoever opens the server's address in a browser, linking to what a
 * first visit needs (the console, the OpenAPI document, health) instead of a JSON 404. It is the
 * same for everyone and says nothing about the instance's data, so it needs no key. Hidden from
 * the OpenAPI document, as the console and `/openapi.json` are: it is no API operation.
 */

import type { FastifyInstance } from 'fastify';

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
<li><a href="/console/">Console</a>: sign in with a service token to manage keys and try every API.</li>
<li><a href="/openapi.json">OpenAPI document</a> of this server; the API reference and the operations guide are <code>docs/api.md</code> and <code>docs/operations.md</code> in the Meridian distribution.</li>
<li><a href="/health">Health</a> and <a href="/ready">readiness</a>.</li>
</ul>
<p>API calls carry a key: <code>?key=&lt;API key&gt;</code>.</p>
</body>
</html>
`;

/** Inline styles only: no scripts, no framing, nothing loaded from elsewhere. */
const contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export async function landingRoute(app: FastifyInstance): Promise<void> {
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', contentSecurityPolicy)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-cache')
      .send(page),
  );
}
