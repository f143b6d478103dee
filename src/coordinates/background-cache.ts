/**
 * The coordinates caches of a serving instance (derived-cache.ts: the default transformation and
 * the exports of every EPSG CRS; index-cache.ts: the registry index). Read at start-up when they
 * are current. When they are missing or stale (a fresh installation, a new registry or engine),
 * the server builds them itself, in the background, so that the quick start serves at once instead
 * of after minutes of PROJ work (`meridian coordinates build-cache` stays, for operators who prefer
 * to build ahead):
 *
 * - one task of a few CRSs at a time, on a coordinates thread of its own at low priority
 *   (pool.ts, `backgroundPool`), and only while no request has the pool's threads: the build
 *   takes the CPU that searches and transforms leave over;
 * - searches meanwhile take what the build has finished and compute the rest on demand, as without
 *   a cache;
 * - the files are written atomically when the build is complete; `/ready` (`coordinates_cache`)
 *   and the log say how far it is.
 */

import { progressToLog, type Progress } from '../platform/progress.js';
import type { CoordinatesConfig } from './config.js';
import type { DefaultTransformation, DeriveTask } from './derive.js';
import {
  computeDefaults,
  currentKey,
  derivedCachePath,
  exportsCachePath,
  lazyExports,
  readDerivedCache,
  writeDerivedCache,
  writeExportsCache,
  type CacheLog,
  type DefaultTransformations,
  type PresetExports,
} from './derived-cache.js';
import { indexCachePath, readIndexCache, writeIndexCache } from './index-cache.js';
import type { Exports } from './proj/proj.js';
import type { Registry } from './search/registry.js';
import type { Deriver } from './search/search.js';

/** CRSs a background task asks for: about a second of PROJ, the longest a request may queue behind it. */
const CHUNK = 4;
/** How often the build looks again while requests have the pool. */
const YIELD_MS = 50;

/** The pool as the background build uses it: tasks, and whether requests are using it. */
export interface BackgroundPool extends Deriver {
  load(): { running: number; waiting: number };
}

export interface CoordinatesCaches {
  defaults: DefaultTransformations;
  exports: () => PresetExports;
  /** For `/ready`: `current`, `off`, `building: N of M CRSs`, `built`, or `failed: …`. */
  status(): string;
  /** Stops a build in progress (the server closes): it starts no task, and writes nothing; resolves when its last task has ended. */
  stop(): Promise<void>;
}

/** The caches in `folder`, read, or built in the background when `config.buildCache` says so. */
export function coordinatesCaches(folder: string, registry: Registry, pool: BackgroundPool, config: CoordinatesConfig, log: CacheLog): CoordinatesCaches {
  const file = derivedCachePath(folder);
  const started = performance.now();
  const read = readDerivedCache(file);
  if ('defaults' in read) {
    log.info({ file, crs: read.defaults.size, ms: Math.round(performance.now() - started) }, 'coordinates cache loaded');
    return { defaults: read.defaults, exports: lazyExports(folder, log), status: () => 'current', stop: async () => {} };
  }
  if (!config.buildCache) {
    log.warn({ file, problem: read.problem }, 'coordinates cache not used: default transformations are computed on first use; `meridian coordinates build-cache` builds it');
    return { defaults: new Map(), exports: lazyExports(folder, log), status: () => 'off', stop: async () => {} };
  }
  log.info({ file, problem: read.problem }, 'coordinates cache missing: building it in the background (searches compute what they need meanwhile)');
  const defaults = new Map<number, DefaultTransformation | null>();
  const exports = new Map<number, Exports>();
  const codes = [...registry.crs.keys()];
  const abort = new AbortController();
  let status = `building: 0 of ${codes.length} CRSs`;
  const logged = progressToLog(log, { task: 'coordinates cache' });
  const progress: Progress = {
    ...logged,
    update: (done, total) => {
      status = `building: ${done} of ${codes.length} CRSs`;
      logged.update(done, total);
    },
  };
  const derive = async (task: DeriveTask) => {
    await whenIdle(pool, config.workers, abort.signal);
    if (abort.signal.aborted) throw new Error('the server is closing');
    return pool.derive(task);
  };
  const build = computeDefaults(codes, derive, 1, progress, {
    into: { defaults, exports },
    chunk: CHUNK,
    signal: abort.signal,
  })
    .then(({ leftOut }) => {
      if (abort.signal.aborted) return;
      const key = currentKey();
      writeDerivedCache(file, defaults, key);
      writeExportsCache(exportsCachePath(folder), exports, key);
      const indexFile = indexCachePath(folder);
      if ('problem' in readIndexCache(indexFile)) writeIndexCache(indexFile, registry);
      status = 'built';
      log.info({ file, crs: defaults.size, leftOut, seconds: Math.round((performance.now() - started) / 1000) }, 'coordinates cache built in the background and saved');
    })
    .catch((error: unknown) => {
      status = `failed: ${error instanceof Error ? error.message : String(error)}`;
      log.warn({ file, err: error }, 'coordinates cache build failed: default transformations are computed on first use');
    });
  return {
    defaults,
    exports: () => exports,
    status: () => status,
    stop: async () => {
      abort.abort();
      await build;
    },
  };
}

/** Resolves once the pool has a free thread and no request waiting for one (or the build stops). */
async function whenIdle(pool: BackgroundPool, threads: number, signal: AbortSignal): Promise<void> {
  for (;;) {
    const { running, waiting } = pool.load();
    if (signal.aborted || (running < threads && waiting === 0)) return;
    await new Promise((resolve) => setTimeout(resolve, YIELD_MS));
  }
}
