/**
 * Raster tiles, answered from the cache or by rendering the metatile that holds them: the first
 * request for any tile of a metatile renders it (once, however many of its tiles are asked for
 * meanwhile) and caches all of its tiles, so their neighbours are hits. Tiles are cached encoded,
 * by map revision, size, pixel ratio, format and language: a map whose definition, style or data
 * changes gets a new revision, and its old tiles are never served again (they age out).
 */

import { Lru } from '../../platform/lru.js';
import type { Format } from '../image-format.js';
import type { LoadedMap } from '../registry.js';
import type { RenderPool } from '../render-pool.js';
import { metatileOf, tilesOf, type Metatile, type TileAddress } from './metatile.js';

export interface RasterTileRequest {
  tile: TileAddress;
  format: Format;
  language: string | null;
}

/** Bytes an entry is counted for beyond its tile's: the key and the cache's own bookkeeping. */
const ENTRY_OVERHEAD = 200;

export class RasterTiles {
  private readonly cache: Lru<string, Buffer>;
  private readonly rendering = new Map<string, Promise<Map<string, Buffer>>>();

  constructor(
    private readonly pool: Pick<RenderPool, 'metatile'>,
    cacheBytes: number,
  ) {
    this.cache = new Lru(Number.MAX_SAFE_INTEGER, { weigh: (bytes, key) => bytes.byteLength + key.length + ENTRY_OVERHEAD, maxWeight: cacheBytes });
  }

  /** Bytes the cached tiles take. */
  get cachedBytes(): number {
    return this.cache.weight;
  }

  /** The encoded tile, and whether it came from the cache. */
  async tile(map: LoadedMap, request: RasterTileRequest): Promise<{ bytes: Buffer; cached: boolean }> {
    const key = tileKey(map, request.tile, request);
    const hit = this.cache.get(key);
    if (hit) return { bytes: hit, cached: true };
    const metatile = metatileOf(request.tile);
    const tiles = await this.renderMetatile(map, metatile, request);
    return { bytes: tiles.get(key)!, cached: false };
  }

  private renderMetatile(map: LoadedMap, metatile: Metatile, request: RasterTileRequest): Promise<Map<string, Buffer>> {
    const key = tileKey(map, { ...metatile, x: metatile.x0, y: metatile.y0 }, request, `m${metatile.span}`);
    let rendering = this.rendering.get(key);
    if (!rendering) {
      rendering = this.pool
        .metatile(map.id, { metatile, format: request.format, language: request.language })
        .then((encoded) => {
          const tiles = new Map<string, Buffer>();
          tilesOf(metatile).forEach(({ x, y }, i) => {
            const tileKeyed = tileKey(map, { ...metatile, x, y }, request);
            tiles.set(tileKeyed, encoded[i]!);
            this.cache.set(tileKeyed, encoded[i]!);
          });
          return tiles;
        })
        .finally(() => this.rendering.delete(key));
      this.rendering.set(key, rendering);
    }
    return rendering;
  }
}

function tileKey(map: LoadedMap, tile: Omit<TileAddress, 'x' | 'y'> & { x: number; y: number }, request: Omit<RasterTileRequest, 'tile'>, kind = 't'): string {
  return `${kind}/${map.id}/${map.revision}/${tile.size}@${tile.pixelRatio}/${request.format}/${request.language ?? ''}/${tile.z}/${tile.x}/${tile.y}`;
}
