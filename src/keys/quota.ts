import { Lru } from '../platform/lru.js';
import type { Database } from '../platform/storage/database.js';
import type { UsageRecorder } from './usage.js';

/** The UTC calendar month of `now` (`YYYY-MM`) and the moment the next one starts. */
export function quotaMonth(now: number): { month: string; resets: Date } {
  const date = new Date(now);
  return {
    month: date.toISOString().slice(0, 7),
    resets: new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)),
  };
}

interface Entry {
  month: string;
  /** The key's requests this month in the database when last read. */
  written: number;
  /** Requests this instance admitted since. */
  local: number;
  readAt: number;
  reading: boolean;
}

/**
 * How many requests a key with a quota made this UTC month, for the gate: the usage counts in the
 * database, read again every `refreshMs`, plus what this instance admitted since. Reading writes
 * this instance's pending counts first, so they are not missed. Other instances' requests are seen
 * once they write them (every `usage.flushIntervalMs`), so instances together may admit what they
 * admit in that interval beyond a quota: never fewer requests than the quota.
 */
export class QuotaMeter {
  private readonly entries: Lru<string, Entry>;

  constructor(
    private readonly db: Database,
    private readonly usage: UsageRecorder,
    private readonly refreshMs: number,
    size: number,
    private readonly now: () => number = Date.now,
  ) {
    this.entries = new Lru(size);
  }

  /** Requests of `keyId` this month; waits for the database only the first time in a month. */
  used(keyId: string): number | Promise<number> {
    const { month } = quotaMonth(this.now());
    const entry = this.entries.get(keyId);
    if (!entry || entry.month !== month) return this.read(keyId, month).then((read) => read.written + read.local);
    if (!entry.reading && this.now() - entry.readAt >= this.refreshMs) {
      // Until the new count arrives, the old one and what was admitted since stand.
      this.read(keyId, month, entry).catch(() => {});
    }
    return entry.written + entry.local;
  }

  /** A request of `keyId` was admitted. */
  admitted(keyId: string): void {
    const entry = this.entries.get(keyId);
    if (entry) entry.local++;
  }

  private async read(keyId: string, month: string, entry?: Entry): Promise<Entry> {
    if (entry) entry.reading = true;
    const counted = entry?.local ?? 0;
    try {
      await this.usage.flush();
      const [row] = await this.db.query<{ requests: string }>(
        'SELECT coalesce(sum(requests), 0)::text AS requests FROM api_key_usage WHERE key_id = $1 AND day >= $2::date',
        [keyId, `${month}-01`],
      );
      const current = this.entries.get(keyId);
      // Admitted meanwhile: not in the count read (or counted twice, on the strict side).
      const local = current && current.month === month ? current.local - counted : 0;
      const next: Entry = { month, written: Number(row!.requests), local, readAt: this.now(), reading: false };
      this.entries.set(keyId, next);
      return next;
    } finally {
      if (entry) entry.reading = false;
    }
  }
}
