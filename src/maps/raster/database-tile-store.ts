/**
 * Raster tiles in PostgreSQL (or the embedded PGlite): one row per map and tile name, holding the
 * revision it was drawn for, so instances sharing the database share the tiles. A row of another
 * revision is never served, and is replaced or dropped.
 */

import type { Database } from '../../platform/storage/database.js';
import type { Migration } from '../../platform/storage/migrate.js';
import type { RasterTileStore } from './tile-store.js';

export const rasterTileMigrations: Migration[] = [
  {
    version: 300,
    name: 'raster tiles shared by instances',
    sql: `
      CREATE TABLE maps_raster_tiles (
        map_id text NOT NULL,
        tile text NOT NULL,
        revision text NOT NULL,
        bytes bytea NOT NULL,
        created timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (map_id, tile)
      );
    `,
  },
];

export class DatabaseTileStore implements RasterTileStore {
  constructor(private readonly db: Database) {}

  async get(mapId: string, revision: string, tile: string): Promise<Buffer | null> {
    const [row] = await this.db.query<{ bytes: Uint8Array }>('SELECT bytes FROM maps_raster_tiles WHERE map_id = $1 AND tile = $2 AND revision = $3', [mapId, tile, revision]);
    return row ? Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : null;
  }

  async put(mapId: string, revision: string, tiles: readonly { tile: string; bytes: Buffer }[]): Promise<void> {
    if (tiles.length === 0) return;
    const values = tiles.map((_, i) => `($1, $${i * 2 + 3}, $2, $${i * 2 + 4})`).join(', ');
    await this.db.query(
      `INSERT INTO maps_raster_tiles (map_id, tile, revision, bytes) VALUES ${values}
       ON CONFLICT (map_id, tile) DO UPDATE SET revision = excluded.revision, bytes = excluded.bytes, created = now()`,
      [mapId, revision, ...tiles.flatMap(({ tile, bytes }) => [tile, bytes])],
    );
  }

  async dropOtherRevisions(mapId: string, revision: string): Promise<void> {
    await this.db.query('DELETE FROM maps_raster_tiles WHERE map_id = $1 AND revision <> $2', [mapId, revision]);
  }
}
