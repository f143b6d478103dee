/**
 * `meridian coordinates build-cache`: saves the registry index (index-cache.ts) and computes the
 * default transformation and the exports of every EPSG CRS on the coordinates pool (its threads,
 * each with its own PROJ engine) into the cache files the server loads (derived-cache.ts). Leaves each
 * file alone when it is current for this registry, engine and grid set. Takes minutes: it is PROJ's operation search for each of the registry's
 * CRSs.
 */

import type { Progress } from '../platform/progress.js';
import type { CoordinatesConfig } from './config.js';
import { computeDefaults, currentKey, derivedCachePath, exportsCachePath, readDerivedCache, readExportsCache, writeDerivedCache, writeExportsCache } from './derived-cache.js';
import { indexCachePath, readIndexCache, writeIndexCache } from './index-cache.js';
import { CoordinatesPool } from './pool.js';
import { loadRegistry } from './search/registry.js';

/** PROJ time a chunk of CRSs may use before it is sent again from where it stopped. */
const CHUNK_BUDGET_MS = 60_000;
/**
 * How long a single PROJ call may run past that before its thread is stopped: setup may share a
 * busy machine, where a call of half a second takes many times that; a serving pool stops sooner.
 */
const STUCK_MS = 60_000;

export interface BuildCacheReport {
  file: string;
  epsg: string;
  /** CRSs in the file. */
  crs: number;
  /** CRSs with a default transformation. */
  withDefault: number;
  /** The exports file beside it, and the CRSs it holds. */
  exportsFile: string;
  withExports: number;
  /** False when the file was current already. */
  built: boolean;
  /** The saved registry index (index-cache.ts); false when it was current already. */
  indexBuilt: boolean;
  /** CRSs whose operation search failed twice: left out of the file, computed on first use. */
  leftOut: number[];
  seconds: number;
}

export async function buildCoordinatesCache(folder: string, config: CoordinatesConfig, progress: Progress): Promise<BuildCacheReport> {
  const started = performance.now();
  const file = derivedCachePath(folder);
  const key = currentKey();
  const indexFile = indexCachePath(folder);
  const savedIndex = readIndexCache(indexFile);
  const indexBuilt = 'problem' in savedIndex;
  const registry = 'registry' in savedIndex ? savedIndex.registry : loadRegistry();
  if ('problem' in savedIndex) {
    writeIndexCache(indexFile, registry);
    progress.note(`Saved the registry index in ${indexFile} (${savedIndex.problem} before)`);
  }
  const exportsFile = exportsCachePath(folder);
  const report = (crs: number, withDefault: number, withExports: number, built: boolean, leftOut: number[] = []): BuildCacheReport => ({
    file,
    epsg: key.epsg,
    crs,
    withDefault,
    exportsFile,
    withExports,
    built,
    indexBuilt,
    leftOut,
    seconds: Number(((performance.now() - started) / 1000).toFixed(1)),
  });
  const current = readDerivedCache(file, key);
  const currentExports = readExportsCache(exportsFile, key);
  if ('defaults' in current && 'exports' in currentExports) {
    progress.note(`${file} and ${exportsFile} are current (EPSG ${key.epsg}, ${key.engine})`);
    return report(current.defaults.size, [...current.defaults.values()].filter(Boolean).length, currentExports.exports.size, false);
  }
  progress.note(`Building ${file} and ${exportsFile}: ${'problem' in current ? current.problem : `exports: ${(currentExports as { problem: string }).problem}`}`);
  const codes = [...registry.crs.keys()];
  const pool = new CoordinatesPool({ ...config, queue: config.workers, timeoutMs: CHUNK_BUDGET_MS }, { stuckMs: STUCK_MS, lowPriority: true });
  try {
    const { defaults, exports, leftOut } = await computeDefaults(codes, (task) => pool.derive(task), config.workers, progress);
    writeDerivedCache(file, defaults, key);
    writeExportsCache(exportsFile, exports, key);
    return report(defaults.size, [...defaults.values()].filter(Boolean).length, exports.size, true, leftOut);
  } finally {
    await pool.close();
  }
}
