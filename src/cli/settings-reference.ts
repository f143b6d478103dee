/**
 * `npm run docs:api` also writes the settings table of docs/operations.md (between its
 * `settings:start` and `settings:end` markers) from the configuration schema.
 */

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { configSchema } from '../config.js';
import { settingsTable } from '../platform/settings.js';
import { apiReferencePath } from './api-reference.js';

export const operationsGuidePath = path.join(path.dirname(apiReferencePath), 'operations.md');

const start = '<!-- settings:start (generated from the configuration schema by npm run docs:api) -->';
const end = '<!-- settings:end -->';

/** The operations guide with its settings table made from the schema. */
export function withSettingsTable(guide: string): string {
  const from = guide.indexOf(start);
  const to = guide.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${operationsGuidePath} has no settings markers`);
  return `${guide.slice(0, from + start.length)}\n${settingsTable(configSchema)}\n${guide.slice(to)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(operationsGuidePath, withSettingsTable(readFileSync(operationsGuidePath, 'utf8')));
  console.log(`wrote ${path.relative(process.cwd(), operationsGuidePath)}`);
}
