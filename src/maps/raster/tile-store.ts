/**
 * The shared raster tile store behind the in-memory cache (`maps.rasterStore`): a folder or a
 * PostgreSQL table that every instance reads on a memory miss and writes after a render, so a tile
 * drawn by one instance (or by `meridian maps seed`) is drawn by none again. Tiles are kept per map
 * and revision (revision.ts): the first time an instance serves a revision of a map, it drops what
 * the store holds for that map's other revisions.
 */

export interface RasterTileStore {
  /** The tile stored under `tile` for this revision of the map, or null. */
  get(mapId: string, revision: string, tile: string): Promise<Buffer | null>;
  /** Stores tiles of this revision of the map, replacing what was stored under their names. */
  put(mapId: string, revision: string, tiles: readonly { tile: string; bytes: Buffer }[]): Promise<void>;
  /** Drops every tile of the map that another revision made. */
  dropOtherRevisions(mapId: string, revision: string): Promise<void>;
}

export const RASTER_STORES = ['none', 'folder', 'database'] as const;
