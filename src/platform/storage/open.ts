import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { PlatformConfig } from '../config.js';
import type { Database } from './database.js';
import { acquireLock } from './lock.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

export function embeddedLockFile(dataDir: string): string {
  return path.join(dataDir, 'pglite.lock');
}

/** Where the embedded PGlite keeps its cluster inside the data directory. */
export function embeddedDatabaseDir(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

/** PostgreSQL at `databaseUrl` when configured, else the embedded PGlite under the data directory. */
export async function openDatabase(
  config: Pick<PlatformConfig, 'databaseUrl' | 'databaseSchema' | 'dataDir' | 'database'>,
): Promise<Database> {
  if (config.databaseUrl) return openPostgres(config.databaseUrl, config.databaseSchema, config.database);
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const release = acquireLock(embeddedLockFile(config.dataDir));
  try {
    const db = await openPglite(embeddedDatabaseDir(config.dataDir), config.databaseSchema);
    return {
      ...db,
      async close() {
        try {
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (error) {
    release();
    throw error;
  }
}
