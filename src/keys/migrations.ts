import type { Migration } from '../platform/storage/migrate.js';

export const keysMigrations: Migration[] = [
  {
    version: 100,
    name: 'accounts, service tokens, API keys and usage',
    sql: `
      CREATE TABLE accounts (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        created timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE service_tokens (
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        token_hash bytea NOT NULL UNIQUE,
        created timestamptz NOT NULL DEFAULT now(),
        revoked timestamptz
      );
      CREATE TABLE api_keys (
        seq bigserial NOT NULL UNIQUE,
        id uuid PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
        name text NOT NULL,
        token_hash bytea NOT NULL UNIQUE,
        token_encrypted bytea NOT NULL,
        description text,
        user_agent text,
        origins text[] NOT NULL DEFAULT '{}',
        created timestamptz NOT NULL,
        changed timestamptz NOT NULL
      );
      CREATE INDEX api_keys_by_account ON api_keys (account_id, seq);
      CREATE TABLE api_key_usage (
        key_id uuid NOT NULL,
        account_id uuid NOT NULL,
        day date NOT NULL,
        requests bigint NOT NULL,
        PRIMARY KEY (key_id, day)
      );
      CREATE INDEX api_key_usage_by_account ON api_key_usage (account_id, day);
    `,
  },
  {
    version: 101,
    name: 'usage per area of the API, and the moment of the last request',
    // Counts from before areas were told apart keep the area 'unknown'.
    sql: `
      ALTER TABLE api_key_usage ADD COLUMN area text NOT NULL DEFAULT 'unknown';
      ALTER TABLE api_key_usage ALTER COLUMN area DROP DEFAULT;
      ALTER TABLE api_key_usage ADD COLUMN last_request timestamptz;
      ALTER TABLE api_key_usage DROP CONSTRAINT api_key_usage_pkey;
      ALTER TABLE api_key_usage ADD PRIMARY KEY (key_id, day, area);
    `,
  },
  {
    version: 102,
    name: 'per-key rate limits and monthly quotas',
    // Null: the server's rate limit, and no quota.
    sql: `
      ALTER TABLE api_keys ADD COLUMN rate_limit_rps double precision;
      ALTER TABLE api_keys ADD COLUMN rate_limit_burst integer;
      ALTER TABLE api_keys ADD COLUMN quota_monthly bigint;
      ALTER TABLE api_keys ADD CONSTRAINT api_keys_rate_limit_whole CHECK ((rate_limit_rps IS NULL) = (rate_limit_burst IS NULL));
    `,
  },
];
