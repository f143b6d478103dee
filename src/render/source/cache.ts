/**
 * Decoded tiles kept in memory, least recently used first out, bounded by an estimate of the bytes
 * they hold. Every source of a registry shares one cache; keys carry the source's identity. A tile
 * being loaded is shared too: concurrent requests for it wait on one load. Failed loads are not
 * kept, so the next request tries again.
 *
 * What the renderer derives from a kept tile and keeps as long as the tile (its paths in Skia's
 * memory, the features each style layer selects, its labels' layouts) is counted with the tile
 * through addDerivedBytes, so the bound covers it too: it is dropped with the tile.
 */

import type { Tile } from './source.js';

// What decoded data occupies, measured on Node 20 (heap and resident memory over thousands of
// objects): the bound is meant as memory, so these err on the high side.

/** Bookkeeping of one entry (key, map slot) and of a tile with no data. */
const ENTRY_BYTES = 64;
/** A decoded feature: its object, its geometry array, its property record (a dictionary). */
const FEATURE_BYTES = 220;
const PROPERTY_BYTES = 40;
/** A ring: an Int32Array with its ArrayBuffer and allocation. */
const RING_BYTES = 300;
/** Two int32 coordinates. */
const POINT_BYTES = 8;

/**
 * What a decoded tile roughly occupies. Raster tiles count twice their bitmap: the decoded image,
 * and the RGBA copy `pixels()` makes on demand.
 */
export function tileBytes(tile: Tile | null): number {
  if (!tile) return ENTRY_BYTES;
  if (tile.kind === 'raster') return ENTRY_BYTES + tile.width * tile.height * 8;
  let bytes = ENTRY_BYTES;
  for (const layer of tile.layers.values()) {
    for (const feature of layer.features) {
      bytes += FEATURE_BYTES + Object.keys(feature.properties).length * PROPERTY_BYTES;
      for (const ring of feature.geometry) bytes += RING_BYTES + (ring.length / 2) * POINT_BYTES;
    }
  }
  return bytes;
}

interface Entry {
  tile: Tile | null;
  bytes: number;
}

/** The cache and key under which each kept tile is, for addDerivedBytes. */
const owners = new WeakMap<Tile, { cache: TileCache; key: string }>();

/**
 * Counts memory derived from a tile (and kept as long as it) with the tile's entry, evicting older
 * tiles when that takes the cache over its bound. A tile no cache keeps is not counted: its derived
 * data goes with it.
 */
export function addDerivedBytes(tile: Tile, bytes: number): void {
  const owner = owners.get(tile);
  owner?.cache.addBytes(owner.key, bytes);
}

export class TileCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Tile | null>>();
  private total = 0;
  /** Lookups answered from memory (a kept tile, or one being loaded) and lookups that loaded. */
  private counted = { hits: 0, misses: 0 };

  constructor(readonly maxBytes: number) {}

  /** Lookups since the cache was made. */
  get lookups(): Readonly<{ hits: number; misses: number }> {
    return this.counted;
  }

  /** Bytes held by the kept tiles (as estimated by tileBytes) and what was derived from them. */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The tile under key, loading it with `load` when it is neither kept nor being loaded. */
  get(key: string, load: () => Promise<Tile | null>): Promise<Tile | null> {
    const entry = this.entries.get(key);
    if (entry) {
      this.counted.hits++;
      this.entries.delete(key);
      this.entries.set(key, entry);
      return Promise.resolve(entry.tile);
    }
    const pending = this.loading.get(key);
    if (pending) {
      this.counted.hits++;
      return pending;
    }
    this.counted.misses++;
    const loaded = load().then(
      (tile) => {
        this.loading.delete(key);
        this.keep(key, tile);
        return tile;
      },
      (error: unknown) => {
        this.loading.delete(key);
        throw error;
      },
    );
    this.loading.set(key, loaded);
    return loaded;
  }

  /** Adds derived bytes to a kept entry (see addDerivedBytes). */
  addBytes(key: string, bytes: number): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    entry.bytes += bytes;
    this.total += bytes;
    this.evict();
  }

  private keep(key: string, tile: Tile | null): void {
    const bytes = tileBytes(tile);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { tile, bytes });
    if (tile) owners.set(tile, { cache: this, key });
    this.total += bytes;
    this.evict();
  }

  /** Drops least recently used entries until the total is within the bound. */
  private evict(): void {
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      if (entry.tile) owners.delete(entry.tile);
      this.total -= entry.bytes;
    }
  }
}
