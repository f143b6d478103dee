import type { Database } from '../platform/storage/database.js';

export interface UsageRow {
  key_id: string;
  /** The key's name; null once the key is deleted (its counts stay). */
  key_name: string | null;
  account_id: string;
  account_name: string | null;
  day: string;
  requests: number;
}

interface Pending {
  keyId: string;
  accountId: string;
  day: string;
  count: number;
}

/**
 * Requests per key per UTC day. The gate only bumps an in-memory counter; a timer writes the
 * counts in one statement, so counting costs the gate nothing measurable. Counts that fail to be
 * written are kept for the next flush, and `close` writes what is left.
 */
export class UsageRecorder {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private today = '';
  private todayUntil = 0;

  constructor(
    private readonly db: Database,
    private readonly flushIntervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.flush().catch(() => {}), this.flushIntervalMs);
    this.timer.unref();
  }

  record(keyId: string, accountId: string, now = Date.now()): void {
    if (now >= this.todayUntil) {
      const date = new Date(now);
      this.today = date.toISOString().slice(0, 10);
      this.todayUntil = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
    }
    const id = `${this.today}/${keyId}`;
    const entry = this.pending.get(id);
    if (entry) entry.count++;
    else this.pending.set(id, { keyId, accountId, day: this.today, count: 1 });
  }

  /** Writes the counts gathered so far. Flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.catch(() => {}).then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const entries = [...batch.values()];
    try {
      await this.db.query(
        `INSERT INTO api_key_usage (key_id, account_id, day, requests)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::date[], $4::bigint[])
         ON CONFLICT (key_id, day) DO UPDATE SET requests = api_key_usage.requests + excluded.requests`,
        [entries.map((e) => e.keyId), entries.map((e) => e.accountId), entries.map((e) => e.day), entries.map((e) => e.count)],
      );
    } catch (error) {
      for (const [id, entry] of batch) {
        const newer = this.pending.get(id);
        if (newer) newer.count += entry.count;
        else this.pending.set(id, entry);
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Daily counts with the key's and the account's names, newest first, optionally for one account or key and from a given day. */
  async report(filter: { accountId?: string; keyId?: string; since?: string }): Promise<UsageRow[]> {
    const rows = await this.db.query<Omit<UsageRow, 'requests'> & { requests: string }>(
      `SELECT u.key_id, k.name AS key_name, u.account_id, a.name AS account_name, to_char(u.day, 'YYYY-MM-DD') AS day, u.requests::text AS requests
       FROM api_key_usage u
       LEFT JOIN api_keys k ON k.id = u.key_id
       LEFT JOIN accounts a ON a.id = u.account_id
       WHERE ($1::uuid IS NULL OR u.account_id = $1) AND ($2::uuid IS NULL OR u.key_id = $2) AND ($3::date IS NULL OR u.day >= $3)
       ORDER BY u.day DESC, u.account_id, u.key_id`,
      [filter.accountId ?? null, filter.keyId ?? null, filter.since ?? null],
    );
    return rows.map((row) => ({ ...row, requests: Number(row.requests) }));
  }
}
