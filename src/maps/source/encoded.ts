/**
 * A source whose tiles are stored encoded (MVT, PNG, JPEG, WebP) somewhere: a PMTiles or MBTiles
 * archive, a folder, an http(s) server. The store reads bytes; this decodes and caches them. A tile
 * that cannot be read or decoded is drawn as missing: the failure is logged once per source (a
 * static image with a hole beats an error), and not cached, so it is tried again next time.
 */

import type { TileCache } from './cache.js';
import { decodeRaster, decodeVector, type PromoteId } from './decode.js';
import type { Log } from './log.js';
import type { SourceKind, Tile, TileSource } from './source.js';

/** Encoded tiles by z/x/y (xyz scheme). */
export interface TileStore {
  /** Identity of the stored tiles in the shared cache: two stores with one key hold the same tiles. */
  readonly key: string;
  /** The tile's bytes, null when there is no tile there; throws when the tile cannot be read. */
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
}

export function inPyramid(z: number, x: number, y: number): boolean {
  const n = 2 ** z;
  return Number.isInteger(z) && Number.isInteger(x) && Number.isInteger(y) && z >= 0 && x >= 0 && y >= 0 && x < n && y < n;
}

export class EncodedTileSource implements TileSource {
  readonly kind: SourceInfo['kind'];
  readonly tileSize: number;
  readonly minzoom: number;
  readonly maxzoom: number;
  readonly bounds: [number, number, number, number];
  readonly attribution: string | undefined;
  readonly encoding: 'terrarium' | 'mapbox' | undefined;
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
  }

  async getTile(z: number, x: number, y: number): Promise<Tile | null> {
    if (!inPyramid(z, x, y) || z < this.minzoom || z > this.maxzoom) return null;
    try {
      return await this.cache.get(`${this.store.key}/${z}/${x}/${y}`, async () => {
        const bytes = await this.store.read(z, x, y);
        if (!bytes || bytes.length === 0) return null;
        return this.kind === 'vector' ? decodeVector(bytes, this.promoteId) : decodeRaster(bytes);
      });
    } catch (error) {
      if (!this.warned) {
        this.warned = true;
        this.log.warn(`${this.name}: tile ${z}/${x}/${y} failed (${(error as Error).message}); failing tiles of this source are left out`);
      }
      return null;
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
