/**
 * @oneDatabase the database only checks the key; what is tested is the settings reference generated from the configuration schema.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { operationsGuidePath, withSettingsTable } from '../../src/cli/settings-reference.js';
import { environmentVariables } from '../../src/config.js';

test('the settings table of docs/operations.md is the one the configuration schema makes (run `npm run docs:api`)', () => {
  const guide = readFileSync(operationsGuidePath, 'utf8');
  assert.equal(guide, withSettingsTable(guide));
  for (const [name, setting] of Object.entries(environmentVariables)) {
    assert.ok(guide.includes(`| \`${setting}\` | \`${name}\` |`), `${setting} and ${name} are in the table`);
  }
});
