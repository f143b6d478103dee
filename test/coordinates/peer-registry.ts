/**
 * Debian's projinfo and cs2cs (PROJ 9.1.1, native) reading the registry Meridian uses, instead of
 * Debian's own proj.db (EPSG v10.076): the same data through another PROJ build, so that a
 * comparison tests the engine, not the difference between two EPSG releases. PROJ 9.1.1 reads the
 * newer proj.db layout (1.7) as it reads its own; the grids stay Debian's.
 */

import path from 'node:path';
import { projInfo } from '../../src/coordinates/proj/proj.js';
import { SYSTEM_GRIDS } from '../../src/coordinates/proj/proj-data.js';

export const sameRegistry: NodeJS.ProcessEnv = {
  ...process.env,
  PROJ_DATA: [path.dirname(projInfo().databasePath!), SYSTEM_GRIDS].join(path.delimiter),
};
