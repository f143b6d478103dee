/** The raster tile store the configuration asks for (`maps.rasterStore`), or none. */

import path from 'node:path';
import type { Database } from '../../platform/storage/database.js';
import type { MapsConfig } from '../config.js';
import { DatabaseTileStore } from './database-tile-store.js';
import { FolderTileStore } from './folder-tile-store.js';
import type { RasterTileStore } from './tile-store.js';

/** `db` is the database of keys and weather; the `database` store needs it. */
export function openTileStore(maps: Pick<MapsConfig, 'rasterStore' | 'rasterStoreDir'>, dataDir: string, db: Database | null): RasterTileStore | null {
  switch (maps.rasterStore) {
    case 'none':
      return null;
    case 'folder':
      return new FolderTileStore(maps.rasterStoreDir ?? path.join(dataDir, 'raster-tiles'));
    case 'database':
      if (!db) throw new Error('the database raster tile store needs the database');
      return new DatabaseTileStore(db);
  }
}
