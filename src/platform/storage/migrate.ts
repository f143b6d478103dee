import type { Database } from './database.js';

/** One versioned schema change. Versions are global across areas and never reused. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export class MigrationError extends Error {}

/**
 * Applies the missing migrations in version order, in one transaction under an advisory lock, so
 * several instances starting together apply each migration exactly once. The transaction has no
 * statement time limit: a migration may be long, and the lock may wait for another instance's.
 */
export async function migrate(db: Database, migrations: readonly Migration[]): Promise<number[]> {
  const ordered = [...migrations].sort((a, b) => a.version - b.version);
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i]!.version === ordered[i - 1]!.version) {
      throw new MigrationError(`Two migrations share version ${ordered[i]!.version}`);
    }
  }
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`meridian_migrations_${db.schema}`]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const rows = await tx.query<{ version: number }>('SELECT version FROM schema_migrations');
    const applied = new Set(rows.map((row) => row.version));
    const known = new Set(ordered.map((m) => m.version));
    const newest = Math.max(0, ...applied);
    if (newest > Math.max(0, ...known)) {
      throw new MigrationError(
        `The database schema is at version ${newest}, newer than this Meridian knows; upgrade Meridian`,
      );
    }
    const done: number[] = [];
    for (const migration of ordered) {
      if (applied.has(migration.version)) continue;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      done.push(migration.version);
    }
    return done;
  }, { unbounded: true });
}
