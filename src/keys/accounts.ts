import { randomUUID } from 'node:crypto';
import type { Database } from '../platform/storage/database.js';
import { hashToken, newToken } from '../platform/secrets.js';

export interface AccountSummary {
  account_id: string;
  name: string;
  created: string;
  api_keys: number;
  service_tokens: number;
}

/** Service tokens carry a recognisable prefix so secret scanners can spot a leaked one. */
export const serviceTokenPrefix = 'mst_';
const serviceTokenBytes = 32;

/** Accounts own API keys and authenticate to the key-management API with service tokens, kept hashed. */
export class AccountStore {
  constructor(private readonly db: Database) {}

  async create(name: string): Promise<{ account_id: string; service_token: string }> {
    const accountId = randomUUID();
    const token = newToken(serviceTokenBytes, serviceTokenPrefix);
    await this.db.transaction(async (tx) => {
      await tx.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [accountId, name]);
      await tx.query('INSERT INTO service_tokens (id, account_id, token_hash) VALUES ($1, $2, $3)', [
        randomUUID(),
        accountId,
        hashToken(token),
      ]);
    });
    return { account_id: accountId, service_token: token };
  }

  async list(): Promise<AccountSummary[]> {
    const rows = await this.db.query<{ id: string; name: string; created: Date; api_keys: number; service_tokens: number }>(
      `SELECT a.id, a.name, a.created,
              (SELECT count(*)::int FROM api_keys k WHERE k.account_id = a.id) AS api_keys,
              (SELECT count(*)::int FROM service_tokens t WHERE t.account_id = a.id AND t.revoked IS NULL) AS service_tokens
       FROM accounts a ORDER BY a.created, a.id`,
    );
    return rows.map((row) => ({
      account_id: row.id,
      name: row.name,
      created: row.created.toISOString(),
      api_keys: row.api_keys,
      service_tokens: row.service_tokens,
    }));
  }

  async exists(accountId: string): Promise<boolean> {
    const rows = await this.db.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
    return rows.length > 0;
  }

  /** Gives the account another name; false when there is no such account. */
  async rename(accountId: string, name: string): Promise<boolean> {
    const rows = await this.db.query('UPDATE accounts SET name = $2 WHERE id = $1 RETURNING id', [accountId, name]);
    return rows.length > 0;
  }

  /** A further service token for the account; null when there is no such account. */
  async issueToken(accountId: string): Promise<string | null> {
    if (!(await this.exists(accountId))) return null;
    const token = newToken(serviceTokenBytes, serviceTokenPrefix);
    await this.db.query('INSERT INTO service_tokens (id, account_id, token_hash) VALUES ($1, $2, $3)', [
      randomUUID(),
      accountId,
      hashToken(token),
    ]);
    return token;
  }

  /** Revokes a service token at once; false when it was unknown or already revoked. */
  async revokeToken(token: string): Promise<boolean> {
    const rows = await this.db.query(
      'UPDATE service_tokens SET revoked = now() WHERE token_hash = $1 AND revoked IS NULL RETURNING id',
      [hashToken(token)],
    );
    return rows.length > 0;
  }

  /** The account a live service token belongs to, or null. */
  async authenticate(token: string): Promise<string | null> {
    const [row] = await this.db.query<{ account_id: string }>(
      'SELECT account_id FROM service_tokens WHERE token_hash = $1 AND revoked IS NULL',
      [hashToken(token)],
    );
    return row?.account_id ?? null;
  }
}
