/**
 * A source whose tiles are stored encoded (MVT, PNG, JPEG, WebP) somewhere: a PMTiles or MBTiles
 * archive, a folder, an http(s) server. The store reads bytes; this decodes and caches them. A tile
 * that cannot be read or decoded is drawn as missing: the failure is logged once per source (a
 * static image with a hole beats an error), and not cached, so it is tried again next time.
 * The tile endpoints get the stored bytes as they are (getTileData), gzip and all. A vector source
 * also answers for tiles deeper than its maxzoom, cut from the maxzoom tile (overzoom.ts), as
 * MapLibre's vector sources do.
 */

import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { TileCache } from './cache.js';
import { decodeRaster, decodeVector, isGzip } from './decode.js';
import type { PromoteId } from './mvt.js';
import type { Log } from './log.js';
import { sliceVectorTile } from './overzoom.js';
import type { MapSource, SourceKind, Tile, TileData, TileFormat, VectorLayer } from './source.js';

const gunzipAsync = promisify(gunzip);

export const MVT_CONTENT_TYPE = 'application/x-protobuf';

/** Encoded tiles by z/x/y (xyz scheme). */
export interface TileStore {
  /** Identity of the stored tiles in the shared cache: two stores with one key hold the same tiles. */
  readonly key: string;
  /**
   * The tile's bytes as stored (gzip-compressed or not), null when there is no tile there; throws
   * when the tile cannot be read.
   */
  read(z: number, x: number, y: number): Promise<Uint8Array | null>;
  close(): Promise<void>;
}

/** Everything a source says about itself, settled from the style and the store's own metadata. */
export interface SourceInfo {
  kind: Exclude<SourceKind, 'geojson'>;
  tileSize: number;
  minzoom: number;
  maxzoom: number;
  bounds: [number, number, number, number];
  attribution: string | undefined;
  encoding: 'terrarium' | 'mapbox' | undefined;
  promoteId?: PromoteId | undefined;
  format: TileFormat;
  vectorLayers: readonly VectorLayer[] | undefined;
}

/** The image type of PNG, JPEG and WebP bytes, by their signature. */
export function imageContentType(bytes: Uint8Array): string {
  const starts = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP') return 'image/webp';
  return 'application/octet-stream';
}

/** Stored tile bytes with the headers they are sent with. */
export function storedTile(kind: SourceKind, bytes: Uint8Array): TileData {
  const gzip = isGzip(bytes);
  const contentType = kind === 'vector' || kind === 'geojson' ? MVT_CONTENT_TYPE : imageContentType(bytes);
  return gzip ? { data: bytes, contentType, contentEncoding: 'gzip' } : { data: bytes, contentType };
}

export function inPyramid(z: number, x: number, y: number): boolean {
  const n = 2 ** z;
  return Number.isInteger(z) && Number.isInteger(x) && Number.isInteger(y) && z >= 0 && x >= 0 && y >= 0 && x < n && y < n;
}

export class EncodedTileSource implements MapSource {
  readonly kind: SourceInfo['kind'];
  readonly tileSize: number;
  readonly minzoom: number;
  readonly maxzoom: number;
  readonly bounds: [number, number, number, number];
  readonly attribution: string | undefined;
  readonly encoding: 'terrarium' | 'mapbox' | undefined;
  readonly format: TileFormat;
  readonly vectorLayers: readonly VectorLayer[] | undefined;
  private readonly promoteId: PromoteId | undefined;
  private warned = false;

  constructor(
    /** How log lines name the source, e.g. `map "osm", source "openmaptiles"`. */
    private readonly name: string,
    info: SourceInfo,
    private readonly store: TileStore,
    private readonly cache: TileCache,
    private readonly log: Log,
  ) {
    this.kind = info.kind;
    this.tileSize = info.tileSize;
    this.minzoom = info.minzoom;
    this.maxzoom = info.maxzoom;
    this.bounds = info.bounds;
    this.attribution = info.attribution;
    this.encoding = info.encoding;
    this.promoteId = info.promoteId;
    this.format = info.format;
    this.vectorLayers = info.vectorLayers;
  }

  async getTile(z: number, x: number, y: number): Promise<Tile | null> {
    const deeper = this.kind === 'vector' && z > this.maxzoom;
    if (!inPyramid(z, x, y) || z < this.minzoom || (z > this.maxzoom && !deeper)) return null;
    try {
      if (!deeper) return await this.load(z, x, y);
      // Cut from the maxzoom tile as MapLibre cuts it, and kept like a stored tile, so that what
      // the renderer derives from it (paths, selections) lives as long.
      const dz = z - this.maxzoom;
      const from = { z: this.maxzoom, x: x >> dz, y: y >> dz };
      return await this.cache.get(`${this.store.key}/${z}/${x}/${y}`, async () => {
        const tile = await this.load(from.z, from.x, from.y);
        return tile?.kind === 'vector' ? sliceVectorTile(tile, from, { z, x, y }) : null;
      });
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.log.warn(`${this.name}: tile ${z}/${x}/${y} failed (${(error as Error).message}); failing tiles of this source are left out`);
      }
      return null;
    }
  }

  /** The stored tile at z/x/y decoded, through the cache; throws when it cannot be read or decoded. */
  private load(z: number, x: number, y: number): Promise<Tile | null> {
    return this.cache.get(`${this.store.key}/${z}/${x}/${y}`, async () => {
      const bytes = await this.store.read(z, x, y);
      if (!bytes || bytes.length === 0) return null;
      if (this.kind === 'vector') return decodeVector(bytes, this.promoteId);
      // An archive may store images gzipped too, though the PMTiles spec advises against it.
      return decodeRaster(isGzip(bytes) ? new Uint8Array(await gunzipAsync(bytes)) : bytes);
    });
  }

  async getTileData(z: number, x: number, y: number): Promise<TileData | null> {
    if (!inPyramid(z, x, y) || z < this.minzoom || z > this.maxzoom) return null;
    const bytes = await this.store.read(z, x, y);
    return bytes && bytes.length > 0 ? storedTile(this.kind, bytes) : null;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
