/**
 * `npm run docs:api`: writes docs/api.md, the API reference, from the OpenAPI document of a
 * Meridian opened on a throw-away data directory (embedded database, no maps, no forecasts: the
 * routes and their schemas do not depend on data).
 */

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createServer } from '../app.js';
import { openMeridian } from '../meridian.js';
import { renderApiReference, type OpenApiDocument } from '../platform/http/api-reference.js';
import { defaultConfig } from '../config.js';

/** docs/api.md of this checkout, found from this file whether it runs from src/ or from dist/src/. */
export const apiReferencePath = path.join(checkoutRoot(path.dirname(fileURLToPath(import.meta.url))), 'docs/api.md');

function checkoutRoot(start: string): string {
  for (let dir = start; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
  }
  throw new Error(`no package.json above ${start}`);
}

export async function apiReference(): Promise<string> {
  return renderApiReference(await openApiDocument());
}

/** The OpenAPI document of the current routes (`/openapi.json`), without a listening port. */
export async function openApiDocument(): Promise<OpenApiDocument> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'meridian-docs-'));
  try {
    const meridian = await openMeridian({ ...structuredClone(defaultConfig), dataDir, logLevel: 'silent', databaseUrl: null });
    try {
      const server = await createServer(meridian);
      try {
        const response = await server.public.inject({ method: 'GET', url: '/openapi.json' });
        return response.json<OpenApiDocument>();
      } finally {
        await server.close();
      }
    } finally {
      await meridian.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const out = process.argv[2] ?? apiReferencePath;
  writeFileSync(out, await apiReference());
  console.log(`wrote ${out}`);
}
