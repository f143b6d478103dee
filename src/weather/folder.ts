/**
 * Which weather folder the instances read. A folder is known by a marker file holding a random id,
 * made the first time it is used, so that a volume mounted at different paths on different
 * machines is one folder, and two folders at the same path on two machines are two. Each serving
 * instance records its folder's id in the database it shares; `meridian weather ingest` and
 * `fetch`, run by hand on PostgreSQL, compare theirs with it before publishing a run to the shared
 * catalog, since a run written to a folder no instance reads would be listed nowhere.
 */

import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ControlError } from '../platform/control.js';
import type { Queryable } from '../platform/storage/database.js';

const MARKER = '.meridian-weather-folder';
const SETTING = 'weather_folder';

interface RecordedFolder {
  id: string;
  directory: string;
}

/** The id of a weather folder, made (once, whoever comes first) when it has none. */
export function weatherFolderId(directory: string): string {
  const file = path.join(directory, MARKER);
  mkdirSync(directory, { recursive: true });
  try {
    writeFileSync(file, `${randomUUID()}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readFileSync(file, 'utf8').trim();
}

/** Records the folder a serving instance reads, for the weather commands to compare theirs with. */
export async function recordServedFolder(db: Queryable, directory: string): Promise<void> {
  const value = JSON.stringify({ id: weatherFolderId(directory), directory } satisfies RecordedFolder);
  await db.query(`INSERT INTO meridian_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [SETTING, value]);
}

/**
 * Before a command publishes a run written to `directory`: refuses (ControlError) when the
 * instances read another folder; returns a warning when no instance has said which folder it
 * reads; null when they read this one.
 */
export async function checkPublishingFolder(db: Queryable, directory: string): Promise<string | null> {
  const [row] = await db.query<{ value: string }>('SELECT value FROM meridian_settings WHERE name = $1', [SETTING]);
  if (!row) {
    return `no instance has served from this database yet, so whether they read ${directory} cannot be checked: the run is listed only by instances whose weather.dir is that folder`;
  }
  const served = JSON.parse(row.value) as RecordedFolder;
  if (served.id === weatherFolderId(directory)) return null;
  throw new ControlError(
    `Not published: the instances on this database read weather from ${served.directory} (on their machines), and this command writes to ${directory}, another folder, so no instance could serve the run. ` +
      'Set weather.dir (MERIDIAN_WEATHER_DIR) to the folder the instances share, or run the command where it is mounted.',
  );
}
