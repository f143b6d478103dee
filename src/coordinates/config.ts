/**
 * The coordinates area's settings: the worker pool where PROJ runs transforms and computes what
 * search results need and no cache holds yet (default transformations, transformation details,
 * exports), and the folder of the caches computed from proj.db.
 */

import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { nullableString, section } from '../platform/settings.js';

export const coordinatesSettings = section({
  cacheDir: nullableString({
    default: null,
    env: 'MERIDIAN_COORDINATES_CACHE_DIR',
    shownDefault: '`<dataDir>/coordinates`',
    description:
      'folder of the coordinates caches (the registry index, default transformations and exports computed from proj.db): instances may share one, written atomically, so one build serves them all',
  }),
  workers: Type.Integer({
    minimum: 1,
    maximum: 64,
    default: Math.min(2, availableParallelism()),
    env: 'MERIDIAN_COORDINATES_WORKERS',
    shownDefault: 'min(2, CPUs)',
    description: 'threads where PROJ runs transforms and computes search results not cached yet, each with its own PROJ engine (about 55 MB each)',
  }),
  queue: Type.Integer({ minimum: 0, default: 32, description: 'transforms and searches that may wait for a thread before 503' }),
  buildCache: Type.Boolean({
    default: true,
    env: 'MERIDIAN_COORDINATES_BUILD_CACHE',
    description:
      'when the caches folder has no current coordinates cache, the server builds it in the background on a coordinates thread of its own (about 5 minutes of CPU, at low priority and only while no request has the pool) and saves it; searches compute what they need meanwhile',
  }),
  timeoutMs: Type.Integer({
    minimum: 100,
    maximum: 600000,
    default: 10000,
    env: 'MERIDIAN_COORDINATES_TIMEOUT_MS',
    description: 'PROJ time one transform or search may use (503 with `Retry-After` beyond; what it computed is kept, so a retry goes on from there)',
  }),
});

export type CoordinatesConfig = Static<typeof coordinatesSettings>;

/** The folder of the coordinates caches: `coordinates.cacheDir`, or `coordinates` under the data directory. */
export function coordinatesCacheDirectoryOf(config: { dataDir: string; coordinates: { cacheDir: string | null } }): string {
  return config.coordinates.cacheDir ?? path.join(config.dataDir, 'coordinates');
}
