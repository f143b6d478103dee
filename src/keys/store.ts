import { randomUUID } from 'node:crypto';
import { ApiError } from '../platform/errors.js';
import type { Database } from '../platform/storage/database.js';
import { hashToken, newToken, type TokenCipher } from '../platform/secrets.js';
import type { PageCursors } from './cursor.js';
import { parseOriginRule, type OriginRule } from './origins.js';
import type { RateLimitSettings } from '../platform/rate-limit.js';
import { storedLimits, type ApiKeySettings, type KeyQuota, type KeyRateLimit } from './settings.js';

/** An API key as the key-management API returns it (spec `APIKey`, plus `name`). */
export interface ApiKey {
  id: string;
  name: string;
  token: string;
  description: string | null;
  user_agent: string | null;
  origins: string[];
  rate_limit: KeyRateLimit | null;
  quota: KeyQuota | null;
  created: string;
  changed: string;
}

export interface ApiKeyPage {
  cursor: string | null;
  total_count: number;
  items: ApiKey[];
}

/** What the gate needs to decide on a request. */
export interface GateKey {
  id: string;
  accountId: string;
  tokenHashHex: string;
  origins: OriginRule[];
  userAgent: string | null;
  /** The key's own rate limit; null: the server's. */
  rateLimit: RateLimitSettings | null;
  /** Requests per UTC month; null: no quota. */
  monthlyQuota: number | null;
}

interface Row {
  position: string;
  id: string;
  name: string;
  token_encrypted: Uint8Array;
  description: string | null;
  user_agent: string | null;
  origins: string[];
  rate_limit_rps: number | null;
  rate_limit_burst: number | null;
  quota_monthly: string | null;
  created: Date;
  changed: Date;
}

/** 24 random bytes: 192 bits, 32 URL-safe characters. */
const tokenBytes = 24;
export const keyChangesTopic = 'api_keys';
const columns =
  'seq::text AS position, id, name, token_encrypted, description, user_agent, origins, rate_limit_rps, rate_limit_burst, quota_monthly::text AS quota_monthly, created, changed';

/**
 * API keys of accounts. Every method is scoped to one account, so another account's key behaves
 * exactly like a missing one. Changes that affect the gate are announced on `keyChangesTopic`
 * (payload: the token hash in hex) to every instance, and to local listeners at once.
 */
export class ApiKeyStore {
  private readonly listeners: ((tokenHashHex: string) => void)[] = [];

  constructor(
    private readonly db: Database,
    private readonly cipher: TokenCipher,
    private readonly cursors: PageCursors,
  ) {}

  onChange(listener: (tokenHashHex: string) => void): void {
    this.listeners.push(listener);
  }

  /** A new key, unless the account holds `maxKeys` already (the account row is locked while counting). */
  async create(accountId: string, settings: ApiKeySettings, maxKeys = Infinity): Promise<ApiKey> {
    const id = randomUUID();
    const token = newToken(tokenBytes);
    const row = await this.db.transaction(async (tx) => {
      await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const [counted] = await tx.query<{ count: string }>('SELECT count(*)::text AS count FROM api_keys WHERE account_id = $1', [accountId]);
      if (Number(counted!.count) >= maxKeys) throw new ApiError(`Key quota reached: an account holds at most ${maxKeys} keys`, 'forbidden');
      const [inserted] = await tx.query<Row>(
        `INSERT INTO api_keys (id, account_id, name, token_hash, token_encrypted, description, user_agent, origins, rate_limit_rps, rate_limit_burst, quota_monthly, created, changed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, now(), now())
         RETURNING ${columns}`,
        [
          id,
          accountId,
          settings.name ?? `key-${id.slice(0, 8)}`,
          hashToken(token),
          this.cipher.encrypt(token),
          settings.description ?? null,
          settings.user_agent ?? null,
          settings.origins ?? [],
          settings.rate_limit?.requests_per_second ?? null,
          settings.rate_limit?.burst ?? null,
          settings.quota?.requests_per_month ?? null,
        ],
      );
      return inserted!;
    });
    return this.present(row);
  }

  async get(accountId: string, id: string): Promise<ApiKey | null> {
    const [row] = await this.db.query<Row>(`SELECT ${columns} FROM api_keys WHERE account_id = $1 AND id = $2`, [
      accountId,
      id,
    ]);
    return row ? this.present(row) : null;
  }

  /**
   * One page in creation order. `cursor` must come from a previous page of the same account; null
   * starts at the beginning.
   */
  async list(accountId: string, limit: number, cursor: string | null): Promise<ApiKeyPage> {
    const after = cursor === null ? '0' : this.cursors.open(accountId, cursor);
    if (after === null) throw new InvalidCursorError();
    const rows = await this.db.query<Row>(
      `SELECT ${columns} FROM api_keys WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [accountId, after, limit + 1],
    );
    const [count] = await this.db.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM api_keys WHERE account_id = $1',
      [accountId],
    );
    const page = rows.slice(0, limit);
    return {
      cursor: rows.length > limit ? this.cursors.seal(accountId, page.at(-1)!.position) : null,
      total_count: count!.total,
      items: page.map((row) => this.present(row)),
    };
  }

  /** Changes the fields present in `settings`; null when the account has no such key. */
  async update(accountId: string, id: string, settings: ApiKeySettings): Promise<ApiKey | null> {
    const row = await this.db.transaction(async (tx) => {
      const [updated] = await tx.query<Row & { token_hash: Uint8Array }>(
        `UPDATE api_keys SET
           name = CASE WHEN $3 THEN $4 ELSE name END,
           description = CASE WHEN $5 THEN $6 ELSE description END,
           user_agent = CASE WHEN $7 THEN $8 ELSE user_agent END,
           origins = CASE WHEN $9 THEN $10::text[] ELSE origins END,
           rate_limit_rps = CASE WHEN $11 THEN $12::double precision ELSE rate_limit_rps END,
           rate_limit_burst = CASE WHEN $11 THEN $13::integer ELSE rate_limit_burst END,
           quota_monthly = CASE WHEN $14 THEN $15::bigint ELSE quota_monthly END,
           changed = now()
         WHERE account_id = $1 AND id = $2
         RETURNING ${columns}, token_hash`,
        [
          accountId,
          id,
          settings.name !== undefined,
          settings.name ?? null,
          settings.description !== undefined,
          settings.description ?? null,
          settings.user_agent !== undefined,
          settings.user_agent ?? null,
          settings.origins !== undefined,
          settings.origins ?? [],
          settings.rate_limit !== undefined,
          settings.rate_limit?.requests_per_second ?? null,
          settings.rate_limit?.burst ?? null,
          settings.quota !== undefined,
          settings.quota?.requests_per_month ?? null,
        ],
      );
      if (updated) await this.announce(tx, updated.token_hash);
      return updated;
    });
    if (!row) return null;
    this.changed(row.token_hash);
    return this.present(row);
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const hash = await this.db.transaction(async (tx) => {
      const [deleted] = await tx.query<{ token_hash: Uint8Array }>(
        'DELETE FROM api_keys WHERE account_id = $1 AND id = $2 RETURNING token_hash',
        [accountId, id],
      );
      if (deleted) await this.announce(tx, deleted.token_hash);
      return deleted?.token_hash;
    });
    if (!hash) return false;
    this.changed(hash);
    return true;
  }

  /**
   * Deletes an account with its keys and service tokens (its usage counts stay, without names);
   * null when there is no such account. Here rather than with the accounts because every deleted
   * key must be announced to the gates. The account row is locked first, so no key can be created
   * for it meanwhile and leave unannounced by the cascade.
   */
  async deleteAccount(accountId: string): Promise<{ api_keys: number } | null> {
    const hashes = await this.db.transaction(async (tx) => {
      const [account] = await tx.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      if (!account) return null;
      const deleted = await tx.query<{ token_hash: Uint8Array }>('DELETE FROM api_keys WHERE account_id = $1 RETURNING token_hash', [accountId]);
      for (const { token_hash } of deleted) await this.announce(tx, token_hash);
      await tx.query('DELETE FROM accounts WHERE id = $1', [accountId]);
      return deleted.map((row) => row.token_hash);
    });
    if (!hashes) return null;
    for (const hash of hashes) this.changed(hash);
    return { api_keys: hashes.length };
  }

  async findForGate(tokenHashHex: string): Promise<GateKey | null> {
    const [row] = await this.db.query<{
      id: string;
      account_id: string;
      token_hash: Uint8Array;
      origins: string[];
      user_agent: string | null;
      rate_limit_rps: number | null;
      rate_limit_burst: number | null;
      quota_monthly: string | null;
    }>('SELECT id, account_id, token_hash, origins, user_agent, rate_limit_rps, rate_limit_burst, quota_monthly::text AS quota_monthly FROM api_keys WHERE token_hash = $1', [
      Buffer.from(tokenHashHex, 'hex'),
    ]);
    if (!row) return null;
    const { rate_limit, quota } = storedLimits(row);
    return {
      id: row.id,
      accountId: row.account_id,
      tokenHashHex: Buffer.from(row.token_hash).toString('hex'),
      origins: row.origins.map((text) => parseOriginRule(text)).filter((rule): rule is OriginRule => rule !== null),
      userAgent: row.user_agent,
      rateLimit: rate_limit && { requestsPerSecond: rate_limit.requests_per_second, burst: rate_limit.burst },
      monthlyQuota: quota?.requests_per_month ?? null,
    };
  }

  /** The notification is sent by PostgreSQL when the transaction commits, so no instance sees it early. */
  private async announce(tx: Pick<Database, 'query'>, tokenHash: Uint8Array): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [this.db.channel(keyChangesTopic), Buffer.from(tokenHash).toString('hex')]);
  }

  private changed(tokenHash: Uint8Array): void {
    const hex = Buffer.from(tokenHash).toString('hex');
    for (const listener of this.listeners) listener(hex);
  }

  private present(row: Row): ApiKey {
    return {
      id: row.id,
      name: row.name,
      token: this.cipher.decrypt(Buffer.from(row.token_encrypted)),
      description: row.description,
      user_agent: row.user_agent,
      origins: row.origins,
      ...storedLimits(row),
      created: row.created.toISOString(),
      changed: row.changed.toISOString(),
    };
  }
}

export class InvalidCursorError extends ApiError {
  constructor() {
    super('cursor is not a valid page cursor');
  }
}
