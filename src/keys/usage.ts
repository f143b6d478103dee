import type { Database } from '../platform/storage/database.js';
import { storedLimits, type KeyQuota, type KeyRateLimit } from './settings.js';

export interface UsageRow {
  key_id: string;
  /** The key's name; null once the key is deleted (its counts stay). */
  key_name: string | null;
  account_id: string;
  account_name: string | null;
  day: string;
  requests: number;
}

/** The areas of the API whose gated requests are counted apart (`keys` is `/ping`). */
export const usageAreas = ['maps', 'weather', 'coordinates', 'geocoding', 'keys'] as const;
export type UsageArea = (typeof usageAreas)[number];

/** Requests of one key on one UTC day in one area. */
export interface UsageCount {
  day: string;
  /** One of `usageAreas`, or `unknown` for counts written before areas were told apart. */
  area: string;
  requests: number;
}

/** The usage of an account's keys over the days from `since` on, for the console and `/v1/usage`. */
export interface AccountUsage {
  /** Every key of the account, and deleted keys that were used in the period (`name` null). */
  keys: {
    id: string;
    name: string | null;
    lastUsed: string | null;
    /** The key's own rate limit and quota (null for deleted keys). */
    rateLimit: KeyRateLimit | null;
    quota: KeyQuota | null;
    /** Requests in the current UTC calendar month. */
    monthRequests: number;
    counts: UsageCount[];
  }[];
}

interface Pending {
  keyId: string;
  accountId: string;
  area: UsageArea;
  day: string;
  count: number;
  /** The moment of the last request counted, in milliseconds. */
  last: number;
}

/**
 * Requests per key per UTC day per area, and the moment of each key's last request. The gate only
 * bumps an in-memory counter; a timer writes the counts in one statement, so counting costs the
 * gate nothing measurable. Counts that fail to be written are kept for the next flush, and `close`
 * writes what is left.
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

  record(keyId: string, accountId: string, area: UsageArea, now = Date.now()): void {
    if (now >= this.todayUntil) {
      const date = new Date(now);
      this.today = date.toISOString().slice(0, 10);
      this.todayUntil = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1);
    }
    const id = `${this.today}/${keyId}/${area}`;
    const entry = this.pending.get(id);
    if (entry) {
      entry.count++;
      entry.last = Math.max(entry.last, now);
    } else this.pending.set(id, { keyId, accountId, area, day: this.today, count: 1, last: now });
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
        `INSERT INTO api_key_usage (key_id, account_id, day, area, requests, last_request)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::date[], $4::text[], $5::bigint[], $6::timestamptz[])
         ON CONFLICT (key_id, day, area) DO UPDATE SET requests = api_key_usage.requests + excluded.requests,
           last_request = GREATEST(api_key_usage.last_request, excluded.last_request)`,
        [
          entries.map((e) => e.keyId),
          entries.map((e) => e.accountId),
          entries.map((e) => e.day),
          entries.map((e) => e.area),
          entries.map((e) => e.count),
          entries.map((e) => new Date(e.last).toISOString()),
        ],
      );
    } catch (error) {
      for (const [id, entry] of batch) {
        const newer = this.pending.get(id);
        if (newer) {
          newer.count += entry.count;
          newer.last = Math.max(newer.last, entry.last);
        } else this.pending.set(id, entry);
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  /** Daily counts (all areas together) with the key's and the account's names, newest first, optionally for one account or key and from a given day. */
  async report(filter: { accountId?: string; keyId?: string; since?: string }): Promise<UsageRow[]> {
    const rows = await this.db.query<Omit<UsageRow, 'requests'> & { requests: string }>(
      `SELECT u.key_id, k.name AS key_name, u.account_id, a.name AS account_name, to_char(u.day, 'YYYY-MM-DD') AS day, sum(u.requests)::text AS requests
       FROM api_key_usage u
       LEFT JOIN api_keys k ON k.id = u.key_id
       LEFT JOIN accounts a ON a.id = u.account_id
       WHERE ($1::uuid IS NULL OR u.account_id = $1) AND ($2::uuid IS NULL OR u.key_id = $2) AND ($3::date IS NULL OR u.day >= $3)
       GROUP BY u.key_id, k.name, u.account_id, a.name, u.day
       ORDER BY u.day DESC, u.account_id, u.key_id`,
      [filter.accountId ?? null, filter.keyId ?? null, filter.since ?? null],
    );
    return rows.map((row) => ({ ...row, requests: Number(row.requests) }));
  }

  /**
   * An account's usage from the UTC day `since` on, per key, day and area, with each key's last
   * request (of all time). Counts not yet written are written first, so the answer includes them.
   */
  async account(accountId: string, since: string): Promise<AccountUsage> {
    await this.flush();
    const [keys, counts] = await Promise.all([
      this.db.query<{
        id: string;
        name: string | null;
        last_used: string | null;
        rate_limit_rps: number | null;
        rate_limit_burst: number | null;
        quota_monthly: string | null;
        month_requests: string;
      }>(
        `SELECT k.id, k.name, to_char((SELECT max(u.last_request) FROM api_key_usage u WHERE u.key_id = k.id) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_used,
           k.rate_limit_rps, k.rate_limit_burst, k.quota_monthly::text AS quota_monthly,
           (SELECT coalesce(sum(u.requests), 0) FROM api_key_usage u WHERE u.key_id = k.id AND u.day >= $3::date)::text AS month_requests, k.seq
         FROM api_keys k WHERE k.account_id = $1
         UNION ALL
         SELECT u.key_id, NULL, to_char(max(u.last_request) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), NULL, NULL, NULL,
           coalesce(sum(u.requests) FILTER (WHERE u.day >= $3::date), 0)::text, NULL
         FROM api_key_usage u WHERE u.account_id = $1 AND u.day >= $2 AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.id = u.key_id)
         GROUP BY u.key_id
         ORDER BY seq NULLS LAST, id`,
        [accountId, since, `${new Date().toISOString().slice(0, 7)}-01`],
      ),
      this.db.query<{ key_id: string; day: string; area: string; requests: string }>(
        `SELECT key_id, to_char(day, 'YYYY-MM-DD') AS day, area, requests::text AS requests
         FROM api_key_usage WHERE account_id = $1 AND day >= $2
         ORDER BY day, area`,
        [accountId, since],
      ),
    ]);
    const byKey = new Map(
      keys.map((key) => {
        const { rate_limit: rateLimit, quota } = storedLimits(key);
        return [key.id, { id: key.id, name: key.name, lastUsed: key.last_used, rateLimit, quota, monthRequests: Number(key.month_requests), counts: [] as UsageCount[] }];
      }),
    );
    for (const row of counts) byKey.get(row.key_id)?.counts.push({ day: row.day, area: row.area, requests: Number(row.requests) });
    return { keys: [...byKey.values()] };
  }
}
