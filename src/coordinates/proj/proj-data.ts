/**
 * What the PROJ engine reads: the registry (proj.db) and the grid files, and the integrity check
 * they pass at start-up. By default the proj.db that ships with the pinned engine (npm proj-wasm)
 * and Debian's proj-data grids; an operator's `PROJ_DATA` (directories, as PROJ reads it) replaces
 * both, as it would for PROJ itself.
 */

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The engine package.json pins, and what its own proj.db must say. */
export const ENGINE = {
  package: 'proj-wasm',
  version: '0.1.0-alpha10',
  proj: '9.9.0',
  epsg: 'v13.102',
  /** The proj.db layout PROJ 9.9 reads: this major, this minor or newer. */
  layout: { major: 1, minor: 7 },
} as const;

/** Debian's proj-data: where PROJ finds grids when `PROJ_DATA` does not say otherwise. */
export const SYSTEM_GRIDS = '/usr/share/proj';

/** `dist/` of the engine package: the emscripten module, its .wasm and its proj.db. */
export const engineDirectory = path.dirname(createRequire(import.meta.url).resolve(ENGINE.package));

export interface DataSources {
  /** proj.db on this machine. */
  database: string;
  /** The database is not the engine's own (an operator's `PROJ_DATA`). */
  replaced: boolean;
  /** Grids and other resource files PROJ may open, by the name PROJ looks for: their path here. */
  files: Map<string, string>;
}

/** Files of PROJ's search directories; the first directory holding a name wins, as in PROJ. */
function resourceFiles(directories: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const directory of directories) {
    if (!existsSync(directory)) continue;
    for (const name of readdirSync(directory)) {
      const file = path.join(directory, name);
      // proj.db is loaded on its own; proj.ini would only set network options, which stay off.
      if (name === 'proj.db' || name === 'proj.ini' || files.has(name) || !statSync(file).isFile()) continue;
      files.set(name, file);
    }
  }
  return files;
}

/** Where proj.db and the grids come from, given the value of `PROJ_DATA`. */
export function dataSources(projData: string | undefined): DataSources {
  if (!projData) {
    return { database: path.join(engineDirectory, 'proj.db'), replaced: false, files: resourceFiles([SYSTEM_GRIDS]) };
  }
  const directories = projData.split(path.delimiter).filter((directory) => directory.length > 0);
  const holder = directories.find((directory) => existsSync(path.join(directory, 'proj.db')));
  if (!holder) throw new Error(`PROJ_DATA (${projData}) holds no proj.db`);
  return { database: path.join(holder, 'proj.db'), replaced: true, files: resourceFiles(directories) };
}

export interface Registry {
  epsgVersion: string;
  epsgDate: string | null;
}

/**
 * The integrity check of a proj.db, from its metadata. Any proj.db must have the layout PROJ 9.9
 * reads and name its EPSG version; the engine's own must be exactly the one pinned, so that a
 * package swapped under Meridian does not go unnoticed.
 */
export function checkRegistry(metadata: (key: string) => string | null, database: string, replaced: boolean): Registry {
  const major = Number(metadata('DATABASE.LAYOUT.VERSION.MAJOR'));
  const minor = Number(metadata('DATABASE.LAYOUT.VERSION.MINOR'));
  if (major !== ENGINE.layout.major || !(minor >= ENGINE.layout.minor)) {
    throw new Error(`${database} has layout version ${major}.${minor}; PROJ ${ENGINE.proj} reads ${ENGINE.layout.major}.${ENGINE.layout.minor} or a later ${ENGINE.layout.major}.x`);
  }
  const epsgVersion = metadata('EPSG.VERSION');
  if (!epsgVersion) throw new Error(`${database} does not name its EPSG version`);
  if (!replaced && (epsgVersion !== ENGINE.epsg || metadata('PROJ.VERSION') !== ENGINE.proj)) {
    throw new Error(
      `${database} is EPSG ${epsgVersion} for PROJ ${metadata('PROJ.VERSION')}, not the EPSG ${ENGINE.epsg} for PROJ ${ENGINE.proj} of ${ENGINE.package}@${ENGINE.version}`,
    );
  }
  return { epsgVersion, epsgDate: metadata('EPSG.DATE') };
}

/** The installed engine package must be the pinned version: its .wasm and proj.db go together. */
export function checkEnginePackage(): void {
  const { version } = JSON.parse(readFileSync(path.join(engineDirectory, '../package.json'), 'utf8')) as { version: string };
  if (version !== ENGINE.version) throw new Error(`${ENGINE.package} ${version} is installed; Meridian is pinned to ${ENGINE.version}`);
}
