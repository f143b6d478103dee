/**
 * An archive given to `maps add`, read as the server will read it: a local PMTiles or MBTiles file
 * (told by its first bytes, not its name), or a remote PMTiles archive over http(s) read with range
 * requests through the HTTP client of map sources (render/source/http.ts), which connects to hosts
 * on private networks as it does for any source: the operator names the URL.
 *
 * What the archive says of itself (tile type and compression, zooms, bounds, metadata with its
 * vector layers) is read and checked before anything is written. A file that is neither format, is
 * shorter than its own header says (cut short by a copy or a download), an unreachable URL, an HTTP
 * error or a server that ignores ranges is an ArchiveError naming the file or URL and the problem.
 */

import { open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Compression, PMTiles, SharedPromiseCache, TileType as PmtilesTileType, type Header, type Source } from 'pmtiles';
import { redactUrl } from '../../platform/logging.js';
import { LocalFile, type TileType } from '../../platform/pmtiles.js';
import { MAX_LATITUDE, xOfLongitude, yOfLatitude } from '../../platform/web-mercator.js';
import { defaultHttpOptions, failureReason, sourceClient } from '../../render/source/http.js';
import { HttpRangeSource } from '../../render/source/pmtiles.js';
import { isHttpUrl } from '../../render/source/template.js';
import type { Region } from '../gshhg.js';

/** What is wrong with the archive: the message names it and the problem. */
export class ArchiveError extends Error {}

export interface AddedArchive {
  /** The file's absolute path, or the URL. */
  location: string;
  /** The archive as messages name it: the path, or the URL with its secrets redacted. */
  label: string;
  format: 'pmtiles' | 'mbtiles';
  remote: boolean;
  tileType: TileType;
  tileCompression: 'none' | 'gzip';
  minzoom: number;
  maxzoom: number;
  bounds: Region;
  /**
   * Where the archive says it opens: longitude, latitude and zoom of its tiles (the PMTiles header's
   * centre, MBTiles' `center` row); null when it says nothing, or names a place outside its bounds
   * or a zoom outside its zooms (a header left at 0,0,0).
   */
  center: [number, number, number] | null;
  /** The archive's own metadata; an MBTiles file's `json` row is merged in, as PMTiles holds it. */
  metadata: Record<string, unknown>;
  /** The ids of the metadata's `vector_layers`. */
  vectorLayers: string[];
  /** One tile, for what the metadata does not say (a raster's tile size); null when none was found. */
  sample: Uint8Array | null;
}

const PMTILES_MAGIC = Buffer.from('PMTiles');
const SQLITE_MAGIC = Buffer.from('SQLite format 3\0');
const PMTILES_HEADER = 127;
const WORLD: Region = [-180, -MAX_LATITUDE, 180, MAX_LATITUDE];

const tileTypes: Partial<Record<PmtilesTileType, TileType>> = {
  [PmtilesTileType.Mvt]: 'mvt',
  [PmtilesTileType.Png]: 'png',
  [PmtilesTileType.Jpeg]: 'jpg',
  [PmtilesTileType.Webp]: 'webp',
};

const compressionNames: Record<Compression, string> = {
  [Compression.Unknown]: 'an unknown compression',
  [Compression.None]: 'none',
  [Compression.Gzip]: 'gzip',
  [Compression.Brotli]: 'brotli',
  [Compression.Zstd]: 'zstd',
};

export async function readAddedArchive(input: string): Promise<AddedArchive> {
  const url = input.replace(/^pmtiles:\/\//i, '');
  if (isHttpUrl(url)) return readRemote(url);
  const file = path.resolve(input);
  let handle: FileHandle;
  let size: number;
  const head = Buffer.alloc(100);
  try {
    handle = await open(file, 'r');
    size = (await handle.stat()).size;
    await handle.read(head, 0, head.length, 0);
  } catch (error) {
    throw new ArchiveError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (head.subarray(0, PMTILES_MAGIC.length).equals(PMTILES_MAGIC)) {
    try {
      return await readPmtiles(new LocalFile(file, handle), { location: file, label: file, remote: false }, size);
    } finally {
      await handle.close();
    }
  }
  await handle.close();
  if (size === 0) throw new ArchiveError(`${file} is empty`);
  if (head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return readMbtiles(file, head, size);
  throw new ArchiveError(`${file} is neither a PMTiles archive nor an MBTiles file`);
}

/**
 * A remote archive: a first range request checks that the server answers ranges, that the bytes are
 * a PMTiles archive and how long it is (Content-Range), before the pmtiles library reads it.
 */
async function readRemote(url: string): Promise<AddedArchive> {
  const label = redactUrl(url);
  let response;
  try {
    response = await sourceClient.request(url, {
      range: { start: 0, end: PMTILES_HEADER - 1 },
      maxBytes: PMTILES_HEADER,
      timeoutMs: defaultHttpOptions.timeoutMs,
      inspect: ({ status, statusText }) => {
        if (status === 200) throw new ArchiveError(`${label}: the server does not answer range requests (HTTP 200 to a Range request), which a remote archive needs`);
        if (status !== 206) throw new ArchiveError(`${label}: HTTP ${status}${statusText ? ` ${statusText}` : ''}`);
      },
    });
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(`cannot read ${label}: ${failureReason(error)}`);
  }
  if (!Buffer.from(response.body.subarray(0, PMTILES_MAGIC.length)).equals(PMTILES_MAGIC)) throw new ArchiveError(`${label} is not a PMTiles archive`);
  const size = response.contentRange?.size;
  if (size === null || size === undefined) throw new ArchiveError(`${label}: the server does not say the archive's size (Content-Range)`);
  return readPmtiles(new HttpRangeSource(url, defaultHttpOptions.timeoutMs), { location: url, label, remote: true }, size);
}

/** Where the last section the header points at ends: the archive is at least this long. */
function sectionsEnd(header: Header): number {
  return Math.max(
    header.rootDirectoryOffset + header.rootDirectoryLength,
    header.jsonMetadataOffset + header.jsonMetadataLength,
    header.leafDirectoryOffset + (header.leafDirectoryLength ?? 0),
    header.tileDataOffset + (header.tileDataLength ?? 0),
  );
}

/** The tile at a place and zoom. */
async function tileAt(archive: PMTiles, z: number, lon: number, lat: number): Promise<Uint8Array | null> {
  const n = 2 ** z;
  const x = Math.min(n - 1, Math.floor(xOfLongitude(lon) * n));
  const y = Math.min(n - 1, Math.floor(yOfLatitude(lat) * n));
  const found = await archive.getZxy(z, x, y);
  return found ? new Uint8Array(found.data) : null;
}

async function readPmtiles(source: Source, where: { location: string; label: string; remote: boolean }, size: number): Promise<AddedArchive> {
  const { label } = where;
  // Tiles as stored, as the server reads them (it tells gzip by its magic bytes): the sample is only measured.
  const archive = new PMTiles(source, new SharedPromiseCache(), async (data) => data);
  let header: Header;
  try {
    header = await archive.getHeader();
  } catch (error) {
    throw new ArchiveError(`${label}: its PMTiles header cannot be read (${failureReason(error)})`);
  }
  const end = sectionsEnd(header);
  if (size < end) throw new ArchiveError(`${label} is truncated: ${size} bytes, where its header needs ${end}`);
  const tileType = tileTypes[header.tileType];
  if (!tileType) throw new ArchiveError(`${label}: its tiles are neither vector tiles nor PNG, JPEG or WebP images (PMTiles tile type ${header.tileType})`);
  if (header.tileCompression !== Compression.None && header.tileCompression !== Compression.Gzip) {
    throw new ArchiveError(`${label}: its tiles are compressed with ${compressionNames[header.tileCompression]}; Meridian reads uncompressed and gzipped tiles`);
  }
  let metadata: unknown;
  let sample: Uint8Array | null;
  try {
    metadata = await archive.getMetadata();
    const [west, south, east, north] = [header.minLon, header.minLat, header.maxLon, header.maxLat];
    const centerZoom = Math.min(header.maxZoom, Math.max(header.minZoom, header.centerZoom));
    sample = (await tileAt(archive, centerZoom, header.centerLon, header.centerLat)) ?? (await tileAt(archive, header.minZoom, (west + east) / 2, (south + north) / 2));
  } catch (error) {
    throw new ArchiveError(`${label}: its metadata or tiles cannot be read (${failureReason(error)})`);
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw new ArchiveError(`${label}: its metadata is not a JSON object`);
  return {
    ...where,
    format: 'pmtiles',
    tileType,
    tileCompression: header.tileCompression === Compression.Gzip ? 'gzip' : 'none',
    minzoom: header.minZoom,
    maxzoom: header.maxZoom,
    bounds: [header.minLon, header.minLat, header.maxLon, header.maxLat],
    center: centerIn([header.centerLon, header.centerLat, header.centerZoom], [header.minLon, header.minLat, header.maxLon, header.maxLat], header.minZoom, header.maxZoom),
    metadata: metadata as Record<string, unknown>,
    vectorLayers: layerIds(metadata as Record<string, unknown>),
    sample,
  };
}

function layerIds(metadata: Record<string, unknown>): string[] {
  const layers = metadata.vector_layers;
  if (!Array.isArray(layers)) return [];
  return layers.flatMap((layer) => (typeof (layer as { id?: unknown } | null)?.id === 'string' ? [(layer as { id: string }).id] : []));
}

/** A centre the archive gives, if it is one: within its bounds and its zooms. */
function centerIn(center: readonly number[] | undefined, [west, south, east, north]: Region, minzoom: number, maxzoom: number): [number, number, number] | null {
  if (center?.length !== 3 || !center.every(Number.isFinite)) return null;
  const [lon, lat, zoom] = center as [number, number, number];
  const within = lon >= west && lon <= east && lat >= south && lat <= north && zoom >= minzoom && zoom <= maxzoom;
  return within ? [lon, lat, zoom] : null;
}

/** What a tile is, from its first bytes: an image format's signature, else a vector tile. */
function sniffTile(tile: Uint8Array): { tileType: TileType; tileCompression: 'none' | 'gzip' } {
  const bytes = Buffer.from(tile.buffer, tile.byteOffset, tile.byteLength);
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return { tileType: 'png', tileCompression: 'none' };
  if (bytes.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return { tileType: 'jpg', tileCompression: 'none' };
  if (bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return { tileType: 'webp', tileCompression: 'none' };
  return { tileType: 'mvt', tileCompression: bytes[0] === 0x1f && bytes[1] === 0x8b ? 'gzip' : 'none' };
}

/** MBTiles metadata rows the PMTiles header holds, or that say what the tiles show better (`format`). */
const HEADER_ROWS = new Set(['bounds', 'center', 'minzoom', 'maxzoom', 'format', 'json']);

async function readMbtiles(file: string, head: Buffer, size: number): Promise<AddedArchive> {
  // SQLite's header gives the database's size in pages (offset 28), valid when the change counter
  // at 24 matches the one at 92; a shorter file was cut short.
  const pageSize = head.readUInt16BE(16) === 1 ? 65_536 : head.readUInt16BE(16);
  const pages = head.readUInt32BE(28);
  if (head.readUInt32BE(24) === head.readUInt32BE(92) && size < pageSize * pages) {
    throw new ArchiveError(`${file} is truncated: ${size} bytes, where its SQLite header needs ${pageSize * pages}`);
  }
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").pluck().all() as string[]).map((name) => name.toLowerCase()));
    const missing = ['metadata', 'tiles'].filter((table) => !tables.has(table));
    if (missing.length > 0) throw new ArchiveError(`${file} is an SQLite database but not an MBTiles file: it has no ${missing.join(' and no ')} table`);
    const rows = new Map((db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: unknown }[]).map((row) => [row.name, String(row.value)]));
    const sample = (db.prepare('SELECT tile_data FROM tiles LIMIT 1').pluck().get() as Uint8Array | undefined) ?? null;
    if (!sample) throw new ArchiveError(`${file} holds no tiles`);
    const zooms = db.prepare('SELECT MIN(zoom_level) AS min, MAX(zoom_level) AS max FROM tiles').get() as { min: number; max: number };
    const metadata: Record<string, unknown> = Object.fromEntries([...rows].filter(([name]) => !HEADER_ROWS.has(name)));
    const json = rows.get('json');
    if (json !== undefined) {
      try {
        Object.assign(metadata, JSON.parse(json) as Record<string, unknown>);
      } catch (error) {
        throw new ArchiveError(`${file}: its metadata row "json" is not JSON (${(error as Error).message})`);
      }
    }
    const listed = rows.get('bounds')?.split(',').map(Number);
    const bounds = listed?.length === 4 && listed.every(Number.isFinite) ? (listed as Region) : WORLD;
    return {
      location: file,
      label: file,
      format: 'mbtiles',
      remote: false,
      ...sniffTile(sample),
      // The tiles' own zooms: a metadata row can be wrong, and PMTiles needs the true range.
      minzoom: zooms.min,
      maxzoom: zooms.max,
      bounds,
      center: centerIn(rows.get('center')?.split(',').map(Number), bounds, zooms.min, zooms.max),
      metadata,
      vectorLayers: layerIds(metadata),
      sample,
    };
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(`${file}: ${(error as Error).message}`);
  } finally {
    db?.close();
  }
}
