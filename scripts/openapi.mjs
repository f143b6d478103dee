// Writes the OpenAPI document of the current routes, as the server serves it at /openapi.json,
// from a Meridian opened without a listening port (the compiled server: run `tsc -p tsconfig.json`
// first). `npm run build` writes dist/openapi.json and generates the console's API types from it.
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../dist/src/cli/api-reference.js';

const out = process.argv[2] ?? 'dist/openapi.json';
writeFileSync(out, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
