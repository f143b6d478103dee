/**
 * An MBTiles file (tilemaker's output, or one given to `maps add`) as a PMTiles archive. Meridian
 * serves PMTiles: one file, read with range requests locally or over HTTPS, the format remote
 * planets use too, with no SQLite connection per render thread; MBTiles stays readable as a source
 * for styles written by hand. Tiles are copied as stored and streamed (platform/pmtiles.ts spools
 * them), so memory stays small for a country; rows are TMS (row 0 at the south) and flipped to xyz.
 */

import Database from 'better-sqlite3';
import { ArchiveWriter, type TileType } from '../../platform/pmtiles.js';
import type { Region } from '../gshhg.js';

export interface ConvertOptions {
  /** What the tiles are, and how they are compressed, as stored: MBTiles does not say reliably. */
  tileType: TileType;
  tileCompression: 'none' | 'gzip';
  bounds: Region;
  /** Where the map opens: longitude, latitude, zoom (the header's centre). */
  center: [number, number, number];
  minzoom: number;
  maxzoom: number;
  metadata: Record<string, unknown>;
  onProgress: (done: number, total: number) => void;
}

export async function mbtilesToPmtiles(mbtiles: string, pmtiles: string, options: ConvertOptions): Promise<number> {
  const db = new Database(mbtiles, { readonly: true, fileMustExist: true });
  const writer = new ArchiveWriter(pmtiles);
  try {
    const rows = db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[];
    const json = rows.find((row) => row.name === 'json')?.value;
    const vectorLayers = json ? ((JSON.parse(json) as { vector_layers?: unknown }).vector_layers ?? []) : [];
    const total = (db.prepare('SELECT count(*) AS n FROM tiles').get() as { n: number }).n;
    const select = db.prepare('SELECT zoom_level AS z, tile_column AS x, tile_row AS row, tile_data AS data FROM tiles');
    for (const { z, x, row, data } of select.iterate() as Iterable<{ z: number; x: number; row: number; data: Buffer }>) {
      await writer.add({ z, x, y: (1 << z) - 1 - row, data });
      if (writer.count % 1000 === 0) options.onProgress(writer.count, total);
    }
    options.onProgress(writer.count, total);
    await writer.finish({
      tileType: options.tileType,
      tileCompression: options.tileCompression,
      minZoom: options.minzoom,
      maxZoom: options.maxzoom,
      bounds: options.bounds,
      center: options.center,
      metadata: options.tileType === 'mvt' ? { ...options.metadata, vector_layers: vectorLayers } : options.metadata,
    });
    return writer.count;
  } catch (error) {
    await writer.abort();
    throw error;
  } finally {
    db.close();
  }
}
