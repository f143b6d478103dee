/**
 * Tile data the source tests build in temporary folders: MVT bytes cut from GeoJSON with
 * geojson-vt and written with vt-pbf, images drawn with Skia, PMTiles archives, MBTiles files,
 * and a local http server.
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import { createCanvas } from '@napi-rs/canvas';
import Database from 'better-sqlite3';
import type { FeatureCollection } from 'geojson';
import { writeArchive, type TileType } from '../../../src/platform/pmtiles.js';
import { TileCache } from '../../../src/render/source/cache.js';
import type { Log } from '../../../src/render/source/log.js';

export interface ZxyTile {
  z: number;
  x: number;
  y: number;
  data: Uint8Array;
}

export function collection(...features: { geometry: GeoJSON.Geometry; properties?: Record<string, unknown>; id?: number | string }[]): FeatureCollection {
  return {
    type: 'FeatureCollection',
    features: features.map(({ geometry, properties = {}, id }) => ({ type: 'Feature', geometry, properties, ...(id === undefined ? {} : { id }) })),
  };
}

/** A point feature at lon/lat with the given properties. */
export function point(lon: number, lat: number, properties: Record<string, unknown> = {}, id?: number | string) {
  return { geometry: { type: 'Point' as const, coordinates: [lon, lat] }, properties, ...(id === undefined ? {} : { id }) };
}

/** Every tile of zooms 0..maxZoom that holds a feature, as MVT (layer `layer`, extent 4096). */
export function mvtPyramid(data: FeatureCollection, maxZoom: number, layer = 'places'): ZxyTile[] {
  const index = new GeoJSONVT(data, { maxZoom, indexMaxZoom: maxZoom, extent: 4096, buffer: 64 });
  const tiles: ZxyTile[] = [];
  for (let z = 0; z <= maxZoom; z++) {
    for (let x = 0; x < 2 ** z; x++) {
      for (let y = 0; y < 2 ** z; y++) {
        const tile = index.getTile(z, x, y);
        if (tile && tile.features.length > 0) tiles.push({ z, x, y, data: fromGeojsonVt({ [layer]: tile }, { version: 2, extent: 4096 }) });
      }
    }
  }
  return tiles;
}

/** A solid image of one colour, encoded as `format`. */
export function solidImage(color: string, format: 'png' | 'jpeg' | 'webp' = 'png', size = 256): Uint8Array {
  const canvas = createCanvas(size, size);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = color;
  ctx.fillRect(0, 0, size, size);
  return format === 'png' ? canvas.toBuffer('image/png') : canvas.toBuffer(`image/${format}`, 100);
}

export async function writePmtiles(file: string, tiles: ZxyTile[], tileType: TileType, metadata: Record<string, unknown> = {}, tileCompression: 'none' | 'gzip' = 'none'): Promise<void> {
  const zooms = tiles.map((tile) => tile.z);
  await writeArchive(file, tiles, {
    tileType,
    tileCompression,
    minZoom: Math.min(...zooms),
    maxZoom: Math.max(...zooms),
    bounds: [-170, -80, 170, 80],
    center: [0, 0, 0],
    metadata,
  });
}

/** An MBTiles 1.3 file: rows in the TMS scheme, metadata as given (strings). */
export function writeMbtiles(file: string, tiles: ZxyTile[], metadata: Record<string, string>): void {
  const db = new Database(file);
  db.exec('CREATE TABLE metadata (name text, value text); CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob);');
  db.exec('CREATE UNIQUE INDEX tile_index on tiles (zoom_level, tile_column, tile_row);');
  const meta = db.prepare('INSERT INTO metadata VALUES (?, ?)');
  for (const [name, value] of Object.entries(metadata)) meta.run(name, value);
  const insert = db.prepare('INSERT INTO tiles VALUES (?, ?, ?, ?)');
  for (const tile of tiles) insert.run(tile.z, tile.x, 2 ** tile.z - 1 - tile.y, Buffer.from(tile.data));
  db.close();
}

/** Collects what sources log. */
export class MemoryLog implements Log {
  readonly warnings: string[] = [];
  readonly errors: string[] = [];
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(message: string): void {
    this.errors.push(message);
  }
}

export function bigCache(): TileCache {
  return new TileCache(64 * 1024 * 1024);
}

export interface TestServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

/** A local http server; `handle` answers every request, `requests` records the paths asked for. */
export async function httpServer(handle: (request: IncomingMessage, response: ServerResponse) => void | Promise<void>): Promise<TestServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    void Promise.resolve(handle(request, response)).catch((error: Error) => {
      response.statusCode = 500;
      response.end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
