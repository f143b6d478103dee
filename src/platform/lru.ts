/**
 * The one bounded cache: at most `capacity` entries, the least recently used going first once it
 * is full; entries may also expire (`ttlMs`, for the whole cache or per entry). `onEvict` hears of
 * every entry the cache drops by itself (full or expired), so it can release what the value holds;
 * `delete` and `clear` are the owner's own doing and call nothing. A capacity of 0 keeps nothing.
 */

export interface LruOptions<K, V> {
  /** How long an entry lives after it is set; for ever when absent. */
  ttlMs?: number;
  onEvict?: (value: V, key: K) => void;
  /** The clock, in milliseconds. */
  now?: () => number;
}

interface Entry<V> {
  value: V;
  expires: number;
}

export class Lru<K, V> {
  private readonly map = new Map<K, Entry<V>>();
  private readonly now: () => number;

  constructor(
    private readonly capacity: number,
    private readonly options: LruOptions<K, V> = {},
  ) {
    this.now = options.now ?? (() => Date.now());
  }

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    this.map.delete(key);
    if (entry.expires <= this.now()) {
      this.options.onEvict?.(entry.value, key);
      return undefined;
    }
    this.map.set(key, entry);
    return entry.value;
  }

  /** Stores the value (for `ttlMs` when given, else the cache's own) and returns it. */
  set(key: K, value: V, ttlMs = this.options.ttlMs): V {
    this.map.delete(key);
    if (this.capacity <= 0) return value;
    this.map.set(key, { value, expires: ttlMs === undefined ? Infinity : this.now() + ttlMs });
    if (this.map.size > this.capacity) {
      const [oldest, entry] = this.map.entries().next().value!;
      this.map.delete(oldest);
      this.options.onEvict?.(entry.value, oldest);
    }
    return value;
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  /** The values held, least recently used first (expired ones included until looked up). */
  values(): V[] {
    return [...this.map.values()].map((entry) => entry.value);
  }
}
