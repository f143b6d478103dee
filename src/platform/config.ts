/** The platform's settings: where the server listens, its storage, secrets and logs. */

import { Type, type Static } from '@sinclair/typebox';
import { nullableInteger, nullableString, oneOf, section } from './settings.js';

const port = { minimum: 0, maximum: 65535 };

export const platformSettings = {
  host: Type.String({ minLength: 1, default: '127.0.0.1', env: 'MERIDIAN_HOST' }),
  port: Type.Integer({ ...port, default: 8080, env: 'MERIDIAN_PORT' }),
  dataDir: Type.String({ minLength: 1, default: './data', env: 'MERIDIAN_DATA_DIR' }),
  databaseUrl: nullableString({ default: null, pattern: '^postgres(ql)?://', env: 'DATABASE_URL' }),
  /** PostgreSQL schema that holds Meridian's tables (lets several deployments share one database). */
  databaseSchema: Type.String({ pattern: '^[a-z_][a-z0-9_]{0,62}$', default: 'public', env: 'MERIDIAN_DB_SCHEMA' }),
  redisUrl: nullableString({ default: null, pattern: '^rediss?://', env: 'REDIS_URL' }),
  /** Base64 of 32 bytes; encrypts API key tokens at rest. Generated into the data directory when null. */
  masterKey: nullableString({ default: null, pattern: '^[A-Za-z0-9+/]{43}=$', env: 'MERIDIAN_MASTER_KEY' }),
  logLevel: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { default: 'info', env: 'MERIDIAN_LOG_LEVEL' }),
  /** Behind a load balancer: take the client address from `X-Forwarded-For`. */
  trustProxy: Type.Boolean({ default: false, env: 'MERIDIAN_TRUST_PROXY' }),
  /** When `port` is set, the key-management API moves to this separate listener. */
  admin: section({
    host: Type.String({ minLength: 1, default: '127.0.0.1', env: 'MERIDIAN_ADMIN_HOST' }),
    port: nullableInteger({ ...port, default: null, env: 'MERIDIAN_ADMIN_PORT' }),
  }),
};

const platformSchema = section(platformSettings);
export type PlatformConfig = Static<typeof platformSchema>;
