/**
 * The embedded database starts with fewer shared buffers than PostgreSQL's 128 MB default, which
 * held about 170 MiB more of an idle server's resident memory (docs/operations.md, Memory).
 *
 * @oneDatabase what is tested is the embedded PGlite itself, whatever database the suite runs on.
 */

import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { openPglite } from '../../../src/platform/storage/pglite.js';
import { tempDir } from '../../scratch.js';

test('the embedded database runs with 16 MB of shared buffers, and keeps what it stores across a restart', async () => {
  const directory = path.join(tempDir(), 'pglite');
  const first = await openPglite(directory, 'public');
  try {
    assert.deepEqual(await first.query('SHOW shared_buffers'), [{ shared_buffers: '16MB' }]);
    await first.exec('CREATE TABLE kept (id int); INSERT INTO kept VALUES (1)');
  } finally {
    await first.close();
  }
  const second = await openPglite(directory, 'public');
  try {
    assert.deepEqual(await second.query('SHOW shared_buffers'), [{ shared_buffers: '16MB' }]);
    assert.deepEqual(await second.query('SELECT id FROM kept'), [{ id: 1 }]);
  } finally {
    await second.close();
  }
});
