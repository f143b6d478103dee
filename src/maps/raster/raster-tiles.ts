/**
 * Raster tiles, answered from memory, from the shared store (tile-store.ts) or by rendering the
 * metatile that holds them: the first request for any tile of a metatile renders it (once, however
 * many of its tiles are asked for meanwhile) and keeps all of its tiles, so their neighbours are
 * hits. Tiles are kept encoded, by map revision, size, pixel ratio, format and language: a map
 * whose definition, style or data changes gets a new revision, its old tiles are never served
 * again, and the store drops them the first time the new revision is served.
 *
 * A rendered metatile is written to the store before any of its tiles is answered, so another
 * instance asked for it next finds it there rather than rendering it again; a failing store costs
 * a log line, not the tile, and reading it fails over to rendering the same way.
 */

import { etagOf } from '../../platform/http/http-cache.js';
import { Lru } from '../../platform/lru.js';
import type { Metrics } from '../../platform/metrics.js';
import { silentLog, type Log } from '../../render/source/log.js';
import type { Format } from '../image-format.js';
import type { LoadedMap } from '../registry.js';
import type { RenderPool } from '../render-pool.js';
import { metatileOf, tilesOf, type Metatile, type TileAddress } from './metatile.js';
import type { RasterTileStore } from './tile-store.js';

export interface RasterTileRequest {
  tile: TileAddress;
  format: Format;
  language: string | null;
}

/** Where a tile came from. */
export type TileOrigin = 'memory' | 'store' | 'render';

/** A tile as kept in memory: its bytes and their ETag, computed once rather than per request. */
export interface KeptTile {
  bytes: Buffer;
  etag: string;
}

function kept(bytes: Buffer): KeptTile {
  return { bytes, etag: etagOf(bytes) };
}

/** Bytes an entry is counted for beyond its tile's: the key and the cache's own bookkeeping. */
const ENTRY_OVERHEAD = 200;

/** The name a tile is kept under within its map and revision: `256@2/png/de/5/16/10.png`. */
export function tileName(tile: TileAddress, format: Format, language: string | null): string {
  return `${tile.size}@${tile.pixelRatio}/${format}/${language ?? '-'}/${tile.z}/${tile.x}/${tile.y}.${format}`;
}

export class RasterTiles {
  private readonly memory: Lru<string, KeptTile>;
  private readonly rendering = new Map<string, Promise<Map<string, KeptTile>>>();
  /** Per map and revision, the store's drop of the map's other revisions (done once). */
  private readonly swept = new Map<string, Promise<void>>();

  constructor(
    private readonly pool: Pick<RenderPool, 'metatile'>,
    cacheBytes: number,
    private readonly store: RasterTileStore | null = null,
    private readonly log: Log = silentLog,
    private readonly metrics?: Metrics,
  ) {
    this.memory = new Lru(Number.MAX_SAFE_INTEGER, { weigh: (tile, key) => tile.bytes.byteLength + key.length + ENTRY_OVERHEAD, maxWeight: cacheBytes });
    metrics?.watchCache('raster-tiles', () => ({ entries: this.memory.size, bytes: this.memory.weight }));
  }

  /** Bytes the tiles in memory take. */
  get cachedBytes(): number {
    return this.memory.weight;
  }

  /** The encoded tile with its ETag, and where it came from. */
  async tile(map: LoadedMap, request: RasterTileRequest): Promise<KeptTile & { origin: TileOrigin }> {
    const started = performance.now();
    const tile = await this.find(map, request);
    this.metrics?.rasterTileTime(tile.origin, (performance.now() - started) / 1000);
    return tile;
  }

  private async find(map: LoadedMap, request: RasterTileRequest): Promise<KeptTile & { origin: TileOrigin }> {
    const name = tileName(request.tile, request.format, request.language);
    const key = `${map.id}/${map.revision}/${name}`;
    const hit = this.memory.get(key);
    this.metrics?.cacheLookup('raster-tiles', hit !== undefined);
    if (hit) return { ...hit, origin: 'memory' };
    const stored = await this.fromStore(map, name);
    if (this.store) this.metrics?.cacheLookup('raster-tile-store', stored !== null);
    if (stored) return { ...this.memory.set(key, kept(stored)), origin: 'store' };
    const tiles = await this.render(map, metatileOf(request.tile), request.format, request.language, false);
    return { ...tiles.get(name)!, origin: 'render' };
  }

  /**
   * Renders a metatile into the store (`meridian maps seed`), unless the store has them all
   * already; a failing store fails the seed. Resolves to whether it rendered.
   */
  async seed(map: LoadedMap, metatile: Metatile, format: Format, language: string | null): Promise<boolean> {
    if (!this.store) throw new Error('seeding needs a raster tile store');
    const names = tilesOf(metatile).map(({ x, y }) => tileName({ ...metatile, x, y }, format, language));
    await this.sweep(map);
    const present = await Promise.all(names.map((name) => this.store!.get(map.id, map.revision, name)));
    if (present.every((bytes) => bytes !== null)) return false;
    await this.render(map, metatile, format, language, true);
    return true;
  }

  private async fromStore(map: LoadedMap, name: string): Promise<Buffer | null> {
    if (!this.store) return null;
    try {
      await this.sweep(map);
      return await this.store.get(map.id, map.revision, name);
    } catch (error) {
      this.log.warn(`raster tile store: reading ${map.id}/${name} failed (${(error as Error).message}); the tile is rendered`);
      return null;
    }
  }

  private sweep(map: LoadedMap): Promise<void> {
    const key = `${map.id}/${map.revision}`;
    let sweeping = this.swept.get(key);
    if (!sweeping) {
      sweeping = this.store!.dropOtherRevisions(map.id, map.revision);
      this.swept.set(key, sweeping);
      sweeping.catch(() => this.swept.delete(key));
    }
    return sweeping;
  }

  private render(map: LoadedMap, metatile: Metatile, format: Format, language: string | null, seeding: boolean): Promise<Map<string, KeptTile>> {
    const key = `${map.id}/${map.revision}/${tileName({ ...metatile, x: metatile.x0, y: metatile.y0 }, format, language)}/${metatile.span}`;
    let rendering = this.rendering.get(key);
    if (!rendering) {
      rendering = this.pool
        .metatile(map, { metatile, format, language })
        .then(async (encoded) => {
          const tiles = new Map<string, KeptTile>();
          tilesOf(metatile).forEach(({ x, y }, i) => {
            const name = tileName({ ...metatile, x, y }, format, language);
            const tile = kept(encoded[i]!);
            tiles.set(name, tile);
            this.memory.set(`${map.id}/${map.revision}/${name}`, tile);
          });
          if (this.store) {
            const stored = this.store.put(map.id, map.revision, [...tiles].map(([tile, { bytes }]) => ({ tile, bytes })));
            // A seed must fail when its tiles are not stored; a request is answered all the same.
            await (seeding ? stored : stored.catch((error: Error) => this.log.warn(`raster tile store: writing tiles of ${map.id} failed (${error.message})`)));
          }
          return tiles;
        })
        .finally(() => this.rendering.delete(key));
      this.rendering.set(key, rendering);
    }
    return rendering;
  }
}
