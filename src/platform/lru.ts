/**
 * The one bounded cache: at most `capacity` entries, the least recently used going first once it
 * is full; entries may also expire (`ttlMs`, for the whole cache or per entry). With `weigh`, the
 * values together may also weigh at most `maxWeight` (bytes, say: an entry count alone does not
 * bound memory when one value may be a kilobyte or a megabyte), the least recently used going
 * first past it; a value heavier than `maxWeight` on its own is not kept. `onEvict` hears of every
 * entry the cache drops by itself (full, too heavy or expired), so it can release what the value
 * holds; `delete` and `clear` are the owner's own doing and call nothing, nor does a value that is
 * not kept (a capacity of 0 keeps nothing): its owner still holds it.
 */

/** The largest capacity an Lru can hold: a V8 Map takes at most 2^24 entries, and `set` adds one before it evicts. */
export const maxLruEntries = 2 ** 24 - 1;

export interface LruOptions<K, V> {
  /** How long an entry lives after it is set; for ever when absent. */
  ttlMs?: number;
  onEvict?: (value: V, key: K) => void;
  /** The clock, in milliseconds. */
  now?: () => number;
  /** What a value weighs, read once when it is set; without it, only the entry count is bounded. */
  weigh?: (value: V, key: K) => number;
  /** The most the kept values may weigh together (Infinity when absent). */
  maxWeight?: number;
}

interface Entry<V> {
  value: V;
  expires: number;
  weight: number;
}

export class Lru<K, V> {
  private readonly map = new Map<K, Entry<V>>();
  private readonly now: () => number;
  private readonly maxWeight: number;
  private totalWeight = 0;

  constructor(
    private readonly capacity: number,
    private readonly options: LruOptions<K, V> = {},
  ) {
    this.now = options.now ?? (() => Date.now());
    this.maxWeight = options.maxWeight ?? Infinity;
  }

  get size(): number {
    return this.map.size;
  }

  /** What the kept values weigh together (0 without `weigh`). */
  get weight(): number {
    return this.totalWeight;
  }

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    this.map.delete(key);
    if (entry.expires <= this.now()) {
      this.totalWeight -= entry.weight;
      this.options.onEvict?.(entry.value, key);
      return undefined;
    }
    this.map.set(key, entry);
    return entry.value;
  }

  /** Stores the value (for `ttlMs` when given, else the cache's own) and returns it. */
  set(key: K, value: V, ttlMs = this.options.ttlMs): V {
    this.delete(key);
    const weight = this.options.weigh?.(value, key) ?? 0;
    if (this.capacity <= 0 || weight > this.maxWeight) return value;
    this.map.set(key, { value, expires: ttlMs === undefined ? Infinity : this.now() + ttlMs, weight });
    this.totalWeight += weight;
    while (this.map.size > this.capacity || this.totalWeight > this.maxWeight) {
      const [oldest, entry] = this.map.entries().next().value!;
      this.map.delete(oldest);
      this.totalWeight -= entry.weight;
      this.options.onEvict?.(entry.value, oldest);
    }
    return value;
  }

  delete(key: K): void {
    const entry = this.map.get(key);
    if (entry === undefined) return;
    this.map.delete(key);
    this.totalWeight -= entry.weight;
  }

  clear(): void {
    this.map.clear();
    this.totalWeight = 0;
  }

  /** The values held, least recently used first (expired ones included until looked up). */
  values(): V[] {
    return [...this.map.values()].map((entry) => entry.value);
  }
}
