/**
 * `mbtiles://` sources: an MBTiles 1.3 SQLite file (`mbtiles://tiles/world.mbtiles`, relative to
 * the style's folder, `mbtiles:///abs/path.mbtiles` or `mbtiles://file:///…`), opened read-only.
 * Rows are in the TMS scheme (row 0 at the south), flipped here to xyz. The zoom range, bounds,
 * attribution and format come from the `metadata` table; a file without minzoom/maxzoom there
 * gets the range of its tiles; one without a format is not checked against the source's type.
 * Vector layers come from the `json` row (MBTiles 1.3), when it parses.
 */

import { stat } from 'node:fs/promises';
import Database from 'better-sqlite3';
import type { OpenedArchive, StoredTileType } from './pmtiles.js';
import type { VectorLayer } from './source.js';
import { localPath } from './template.js';
import { vectorLayersOf } from './tilejson.js';

const formats: Record<string, StoredTileType> = { pbf: 'mvt', mvt: 'mvt', png: 'png', jpg: 'jpg', jpeg: 'jpg', webp: 'webp' };

function parseBounds(value: string | undefined): [number, number, number, number] | undefined {
  const parts = value?.split(',').map(Number);
  return parts?.length === 4 && parts.every(Number.isFinite) ? (parts as [number, number, number, number]) : undefined;
}

function parseVectorLayers(json: string | undefined): VectorLayer[] | undefined {
  if (json === undefined) return undefined;
  try {
    return vectorLayersOf((JSON.parse(json) as { vector_layers?: unknown } | null)?.vector_layers);
  } catch {
    return undefined;
  }
}

function parseZoom(value: string | undefined): number | undefined {
  const zoom = value === undefined || value.trim() === '' ? NaN : Number(value);
  return Number.isInteger(zoom) ? zoom : undefined;
}

export async function openMbtiles(location: string, baseDir: string): Promise<OpenedArchive> {
  const file = localPath(location, baseDir);
  const { mtimeMs, size } = await stat(file);
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[];
    const metadata = new Map(rows.map((row) => [row.name, String(row.value)]));
    let minzoom = parseZoom(metadata.get('minzoom'));
    let maxzoom = parseZoom(metadata.get('maxzoom'));
    if (minzoom === undefined || maxzoom === undefined) {
      const range = db.prepare('SELECT MIN(zoom_level) AS min, MAX(zoom_level) AS max FROM tiles').get() as { min: number | null; max: number | null };
      minzoom ??= range.min ?? undefined;
      maxzoom ??= range.max ?? undefined;
    }
    const format = metadata.get('format');
    const select = db.prepare('SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?').pluck();
    return {
      store: {
        key: `mbtiles ${file} ${mtimeMs} ${size}`,
        read: async (z, x, y) => (select.get(z, x, 2 ** z - 1 - y) as Uint8Array | undefined) ?? null,
        close: async () => {
          db.close();
        },
      },
      info: {
        tileType: format === undefined ? undefined : (formats[format.toLowerCase()] ?? 'other'),
        minzoom,
        maxzoom,
        bounds: parseBounds(metadata.get('bounds')),
        attribution: metadata.get('attribution') || undefined,
        vectorLayers: parseVectorLayers(metadata.get('json')),
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}
