/**
 * Atomic publishing of the maps over one archive, shared by `maps import` and `maps add`: a version
 * is built in `<maps>/osm/<id>/<version>.partial/`, renamed to `<version>/` when complete, and only
 * then are the definitions (`<maps>/<id><suffix>.json`) replaced, each by a rename. A failed build
 * removes its partial folder and leaves the previous version serving; publishing again keeps the
 * previous version's folder (a running server may still read it) and removes older ones. One build
 * of an id runs at a time (a lock file beside the versions), whichever command runs it.
 */

import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { MAP_ID, type Schema } from '../../platform/map-names.js';
import type { Region } from '../gshhg.js';
import type { Progress } from '../../platform/progress.js';
import { acquireLock, LockHeldError } from '../../platform/storage/lock.js';
import { recordChildrenIn, stopLeftovers } from '../child-processes.js';
import { writeJson } from '../write-json.js';

/** The file of a partial folder that lists the process groups its build started (child-processes.ts). */
const CHILDREN_FILE = '.children';

/** What is wrong with the command's arguments (not with the file). */
export class MapsUsageError extends Error {}

/** One map of a version: its id is `<id><suffix>`, its style the file `style` in the version folder. */
export interface PublishedStyle {
  suffix: string;
  style: string;
}

/** What the definitions say of the maps' data (maps/definition.ts, platform/map-names.ts): its schema, extent and, when its archive names one, where the maps open. */
export interface DataFacts {
  schema: Schema;
  bounds: Region;
  center?: [number, number, number];
}

export interface Publication {
  /** The map ids, in the order the build gave them. */
  maps: string[];
  versionDir: string;
}

/** The longest id whose maps, with these suffixes, are still map ids. */
const longestId = (suffixes: readonly string[]) => 64 - Math.max(...suffixes.map((suffix) => suffix.length));

/** A map id from a name (a file's, a URL's): lower case, runs of other characters as `-`. */
export function idFromName(name: string, suffixes: readonly string[], fallback: string): string {
  return name.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, longestId(suffixes)) || fallback;
}

export function checkId(id: string, suffixes: readonly string[]): void {
  const longest = longestId(suffixes);
  if (!MAP_ID.test(id) || id.length > longest) throw new MapsUsageError(`--id must be 1 to ${longest} of A-Z, a-z, 0-9, _ and -`);
}

/** A version name that sorts by time. */
function versionName(): string {
  // Milliseconds and random bits: two imports of an id in the same second must not share a name.
  return `${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(3).toString('hex')}`;
}

/** The version folder the current definition of `id` points at, if any. */
async function currentVersion(mapsDir: string, id: string): Promise<string | null> {
  try {
    const definition = JSON.parse(await readFile(path.join(mapsDir, `${id}.json`), 'utf8')) as { style?: unknown };
    return typeof definition.style === 'string' ? path.basename(path.dirname(definition.style)) : null;
  } catch {
    return null;
  }
}

/**
 * Builds a version of the maps of `id` and publishes it. `build` writes everything into `partial`
 * (which becomes `versionDir`, where the styles' relative paths must point) and returns the maps'
 * styles; each definition gets a name (`<id> <style>`) and `facts`. The id is checked by the
 * caller, who knows the suffixes.
 */
export async function publishMaps(
  mapsDir: string,
  id: string,
  facts: DataFacts,
  progress: Progress,
  build: (partial: string, versionDir: string) => Promise<readonly PublishedStyle[]>,
): Promise<Publication> {
  const home = path.join(mapsDir, 'osm', id);
  await mkdir(home, { recursive: true });
  let release: () => void;
  try {
    release = acquireLock(path.join(home, '.lock'));
  } catch (error) {
    if (error instanceof LockHeldError) throw new MapsUsageError(`another import of "${id}" is running (maps import or maps add, process ${error.pid})`);
    throw error;
  }
  const version = versionName();
  const partial = path.join(home, `${version}.partial`);
  const versionDir = path.join(home, version);
  try {
    // With the lock held, partial folders are what killed builds left, maybe with programs still writing into them.
    for (const entry of await readdir(home)) {
      if (!entry.endsWith('.partial')) continue;
      await stopLeftovers(path.join(home, entry, CHILDREN_FILE));
      await rm(path.join(home, entry), { recursive: true, force: true });
    }
    await mkdir(partial, { recursive: true });
    const styles = await recordChildrenIn(path.join(partial, CHILDREN_FILE), () => build(partial, versionDir));
    await rm(path.join(partial, CHILDREN_FILE), { force: true });

    progress.phase('Publishing');
    const previous = await currentVersion(mapsDir, id);
    await rename(partial, versionDir);
    const maps: string[] = [];
    for (const { style, suffix } of styles) {
      await writeJson(path.join(mapsDir, `${id}${suffix}.json`), {
        style: `osm/${id}/${version}/${style}`,
        formats: ['png', 'jpg', 'webp'],
        minzoom: 0,
        maxzoom: 22,
        name: `${id} ${path.basename(style, '.json')}`,
        schema: facts.schema,
        bounds: facts.bounds,
        ...(facts.center ? { center: facts.center } : {}),
      });
      maps.push(`${id}${suffix}`);
    }
    // The previous version stays for servers that still read it; older ones go.
    for (const entry of await readdir(home, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== version && entry.name !== previous) await rm(path.join(home, entry.name), { recursive: true, force: true });
    }
    return { maps, versionDir };
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  } finally {
    release();
  }
}
