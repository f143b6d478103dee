/**
 * The coordinates area's settings: the worker pool where PROJ runs transforms and computes what
 * search results need and no cache holds yet (default transformations, transformation details,
 * exports).
 */

import { availableParallelism } from 'node:os';
import { Type, type Static } from '@sinclair/typebox';
import { section } from '../platform/settings.js';

export const coordinatesSettings = section({
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
      'when the data directory has no current coordinates cache, the server builds it in the background on a coordinates thread of its own (about 5 minutes of CPU, at low priority and only while no request has the pool) and saves it; searches compute what they need meanwhile',
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
