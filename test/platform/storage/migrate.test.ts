import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../../../src/meridian.js';
import { migrate, MigrationError } from '../../../src/platform/storage/migrate.js';
import { openDatabase } from '../../../src/platform/storage/open.js';
import { cleanUp, onPostgres, testConfig } from '../../helpers.js';

test('migrations apply once, in order, and record their versions', async () => {
  const config = testConfig();
  const db = await openDatabase(config);
  try {
    assert.deepEqual(await migrate(db, migrations), migrations.map((m) => m.version).sort((a, b) => a - b));
    assert.deepEqual(await migrate(db, migrations), []);
    const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(rows.map((r) => r.version), migrations.map((m) => m.version).sort((a, b) => a - b));
    const extra = { version: 999_999, name: 'extra', sql: 'CREATE TABLE extra_table (id int)' };
    assert.deepEqual(await migrate(db, [...migrations, extra]), [999_999]);
    await assert.rejects(migrate(db, migrations), (error: Error) => error instanceof MigrationError && /newer/.test(error.message));
  } finally {
    await db.close();
    await cleanUp(config);
  }
});

test('a failing migration applies nothing', async () => {
  const config = testConfig();
  const db = await openDatabase(config);
  try {
    const broken = [
      { version: 1, name: 'good', sql: 'CREATE TABLE good_table (id int)' },
      { version: 2, name: 'bad', sql: 'CREATE TABLE nope (' },
    ];
    await assert.rejects(migrate(db, broken));
    const tables = await db.query(`SELECT 1 FROM information_schema.tables WHERE table_name IN ('good_table', 'schema_migrations') AND table_schema = $1`, [db.schema]);
    assert.equal(tables.length, 0);
  } finally {
    await db.close();
    await cleanUp(config);
  }
});

test('duplicate versions are refused', async () => {
  const config = testConfig();
  const db = await openDatabase(config);
  try {
    const twins = [
      { version: 5, name: 'a', sql: 'SELECT 1' },
      { version: 5, name: 'b', sql: 'SELECT 1' },
    ];
    await assert.rejects(migrate(db, twins), MigrationError);
  } finally {
    await db.close();
    await cleanUp(config);
  }
});

test('instances starting together apply each migration exactly once', { skip: !onPostgres && 'needs PostgreSQL' }, async () => {
  const config = testConfig();
  const dbs = await Promise.all([openDatabase(config), openDatabase(config), openDatabase(config)]);
  try {
    const applied = await Promise.all(dbs.map((db) => migrate(db, migrations)));
    assert.equal(applied.flat().length, migrations.length);
  } finally {
    await Promise.all(dbs.map((db) => db.close()));
    await cleanUp(config);
  }
});

test('the embedded database can be opened by one process at a time', { skip: onPostgres && 'PGlite only' }, async () => {
  const config = testConfig();
  const db = await openDatabase(config);
  try {
    await assert.rejects(openDatabase(config), /held by process/);
  } finally {
    await db.close();
  }
  const again = await openDatabase(config);
  await again.close();
  await cleanUp(config);
});
