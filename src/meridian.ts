/**
 * One Meridian instance's storage and what is built on it, without the HTTP server: the database
 * opened and migrated, the master key checked against it, the account, key, usage and weather
 * stores, and the admin operations over them. The server (app.ts) serves an opened instance; the
 * CLI's admin commands open one without loading the server's areas (renderer, PROJ, routes), which
 * takes a second off each command.
 */

import { runAdmin, type AdminRequest, type AdminServices } from './admin.js';
import type { Config } from './config.js';
import { AccountStore } from './keys/accounts.js';
import { PageCursors } from './keys/cursor.js';
import { keysMigrations } from './keys/migrations.js';
import { ApiKeyStore } from './keys/store.js';
import { UsageRecorder } from './keys/usage.js';
import { rasterTileMigrations } from './maps/raster/database-tile-store.js';
import type { Progress } from './platform/progress.js';
import { loadMasterKey, TokenCipher } from './platform/secrets.js';
import type { Database } from './platform/storage/database.js';
import { migrate } from './platform/storage/migrate.js';
import { platformMigrations } from './platform/storage/migrations.js';
import { openDatabase } from './platform/storage/open.js';
import { WeatherCatalog, weatherMigrations } from './weather/catalog.js';
import { weatherDirectoryOf } from './weather/config.js';
import { IngestPool } from './weather/ingest-pool.js';
import type { IngestPreparer } from './weather/ingest.js';
import { sweepOrphans } from './weather/sweep.js';

export const migrations = [...platformMigrations, ...keysMigrations, ...weatherMigrations, ...rasterTileMigrations];

/** Everything one Meridian instance holds open: storage and the services built on it. */
export interface Meridian extends AdminServices {
  /** Decodes and tiles ingested files on the weather worker pool. */
  prepareIngest: IngestPreparer;
  /** `progress`: where a long operation (a fetch, an ingest) shows how far it is. */
  admin(request: AdminRequest, progress?: Progress): Promise<unknown>;
  close(): Promise<void>;
}

export class MasterKeyMismatchError extends Error {}

/** Opens storage, applies migrations and checks that the master key is the one the data was sealed with. */
export async function openMeridian(config: Config): Promise<Meridian> {
  const db = await openDatabase(config);
  try {
    await migrate(db, migrations);
    const masterKey = loadMasterKey(config.masterKey, config.dataDir);
    const cipher = new TokenCipher(masterKey);
    await checkMasterKey(db, cipher);
    const accounts = new AccountStore(db);
    const keys = new ApiKeyStore(db, cipher, new PageCursors(masterKey));
    const usage = new UsageRecorder(db, config.usage.flushIntervalMs);
    const weather = new WeatherCatalog(db);
    const weatherDirectory = weatherDirectoryOf(config);
    await sweepOrphans(weather, weatherDirectory, config.weather.ingestTimeoutMs);
    const ingests = new IngestPool(config.weather);
    const services = { config, db, accounts, keys, usage, weather, weatherDirectory, prepareIngest: ingests.prepare } satisfies AdminServices;
    return {
      ...services,
      admin: (request, progress) => runAdmin(services, request, progress),
      async close() {
        try {
          await Promise.all([usage.close(), ingests.close()]);
        } finally {
          await db.close();
        }
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}

async function checkMasterKey(db: Database, cipher: TokenCipher): Promise<void> {
  const fingerprint = cipher.fingerprint();
  await db.query(
    `INSERT INTO meridian_settings (name, value) VALUES ('master_key_fingerprint', $1) ON CONFLICT (name) DO NOTHING`,
    [fingerprint],
  );
  const [row] = await db.query<{ value: string }>(
    `SELECT value FROM meridian_settings WHERE name = 'master_key_fingerprint'`,
  );
  if (row!.value !== fingerprint) {
    throw new MasterKeyMismatchError(
      'The master key differs from the one this database was set up with; every instance sharing a database needs the same MERIDIAN_MASTER_KEY',
    );
  }
}
