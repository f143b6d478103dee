/** The platform's settings: where the server listens, its storage, secrets and logs. */

import { Type, type Static } from '@sinclair/typebox';
import { nullableInteger, nullableString, oneOf, section } from './settings.js';

const port = { minimum: 0, maximum: 65535 };

/** An address, a network in CIDR notation, or one of proxy-addr's names; checked fully by `checkTrustedProxies`. */
const trustedProxyPattern = '^(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(/[0-9]{1,3})?)$';

export const platformSettings = {
  host: Type.String({ minLength: 1, default: '127.0.0.1', env: 'MERIDIAN_HOST', description: 'address to listen on (`0.0.0.0` for all)' }),
  port: Type.Integer({ ...port, default: 8080, env: 'MERIDIAN_PORT', description: 'port of the main listener' }),
  dataDir: Type.String({ minLength: 1, default: './data', env: 'MERIDIAN_DATA_DIR', description: 'embedded database, master key, control socket' }),
  databaseUrl: nullableString({
    default: null,
    pattern: '^postgres(ql)?://',
    env: 'DATABASE_URL',
    description: '`postgres://…`: use a PostgreSQL server instead of PGlite',
  }),
  databaseSchema: Type.String({
    pattern: '^[a-z_][a-z0-9_]{0,62}$',
    default: 'public',
    env: 'MERIDIAN_DB_SCHEMA',
    description: "schema holding Meridian's tables (lets several deployments share one database)",
  }),
  database: section({
    connectTimeoutMs: Type.Integer({
      minimum: 100,
      maximum: 600000,
      default: 2000,
      env: 'MERIDIAN_DB_CONNECT_TIMEOUT_MS',
      description: 'time limit for opening a PostgreSQL connection, and for waiting for a free one of the pool (10 per instance; 503 beyond)',
    }),
    statementTimeoutMs: Type.Integer({
      minimum: 100,
      maximum: 3600000,
      default: 5000,
      env: 'MERIDIAN_DB_STATEMENT_TIMEOUT_MS',
      description: 'time limit of every statement: PostgreSQL `statement_timeout`, and the instance gives up one second later when the server does not answer at all (503 beyond; migrations have no limit)',
    }),
    heartbeatMs: Type.Integer({
      minimum: 100,
      maximum: 60000,
      default: 2000,
      env: 'MERIDIAN_DB_HEARTBEAT_MS',
      description: 'how often the connection that hears key and weather changes (`LISTEN`) is probed with `SELECT 1`; a probe unanswered for as long marks it lost, and it reconnects',
    }),
    readyTimeoutMs: Type.Integer({
      minimum: 100,
      maximum: 60000,
      default: 1000,
      env: 'MERIDIAN_DB_READY_TIMEOUT_MS',
      description: '`/ready` answers 503 when the database does not answer within this time',
    }),
    revocationBoundMs: Type.Integer({
      minimum: 1000,
      maximum: 300000,
      default: 60000,
      env: 'MERIDIAN_KEY_REVOCATION_BOUND_MS',
      description: 'the revocation bound: while an instance cannot hear key changes (database outage, partition), the keys it verified keep working for this long after it last heard, then answer 503 until the database answers; so a deleted or changed key stops working everywhere within this time (at least twice `database.heartbeatMs`; see [Database outages](#database-outages))',
    }),
  }),
  redisUrl: nullableString({ default: null, pattern: '^rediss?://', env: 'REDIS_URL', description: '`redis://…`: share rate-limit budgets between instances' }),
  redisKeyPrefix: nullableString({
    default: null,
    pattern: '^[\\x21-\\x7e]{1,100}$',
    env: 'MERIDIAN_REDIS_PREFIX',
    shownDefault: '`meridian:<databaseSchema>:`',
    description: 'start of the names of the Redis keys of the rate-limit budgets: instances with the same prefix share budgets, so give each deployment its own (two deployments on one Redis and the default schema would share the budget of unknown keys)',
  }),
  masterKey: nullableString({
    default: null,
    pattern: '^[A-Za-z0-9+/]{43}=$',
    env: 'MERIDIAN_MASTER_KEY',
    shownDefault: 'generated',
    description: 'base64 of 32 bytes; encrypts API key tokens at rest and seals key-listing cursors (generated into the data directory when unset)',
  }),
  logLevel: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    env: 'MERIDIAN_LOG_LEVEL',
    description: '`fatal` … `trace`, or `silent`',
  }),
  logFormat: oneOf(['auto', 'json', 'pretty'], {
    default: 'auto',
    env: 'MERIDIAN_LOG_FORMAT',
    description: '`json`: one JSON object per line (pino), for a log collector; `pretty`: one short line per event for a person (an access line reads `200 182ms 48.2kB GET /url key <id> from <address>`); `auto`: `pretty` when standard output is a terminal, `json` otherwise',
  }),
  trustProxy: Type.Union(
    [
      Type.Boolean(),
      Type.Integer({ minimum: 1, maximum: 100 }),
      Type.Array(Type.String({ pattern: trustedProxyPattern }), { minItems: 1, maxItems: 1000 }),
    ],
    {
      default: false,
      env: 'MERIDIAN_TRUST_PROXY',
      description:
        'behind a load balancer: the proxies whose `X-Forwarded-For`, `-Proto` and `-Host` are believed, as a list of addresses and networks (`10.0.0.5`, `10.0.0.0/8`, `loopback`; comma-separated in the environment): the client address is the last one a trusted hop forwarded, so a client cannot forge it; or a number of hops; `true` believes every hop, forged headers included',
    },
  ),
  publicUrl: nullableString({
    default: null,
    pattern: '^https?://[^/?#]+/?$',
    env: 'MERIDIAN_PUBLIC_URL',
    shownDefault: 'the request\'s',
    description:
      '`https://maps.example.com`: the origin clients reach Meridian at, used in the links of styles and TileJSON; unset, links follow the request\'s `Host` and the responses vary by it',
  }),
  http: section({
    headersTimeoutMs: Type.Integer({
      minimum: 1000,
      maximum: 600000,
      default: 20000,
      env: 'MERIDIAN_HTTP_HEADERS_TIMEOUT_MS',
      description: 'time a client has to send the header section of a request once it has connected or started it (408 beyond)',
    }),
    maxConnectionsAwaitingHeaders: Type.Integer({
      minimum: 1,
      maximum: 100000,
      default: 256,
      env: 'MERIDIAN_HTTP_MAX_AWAITING_HEADERS',
      description: 'connections per listener that may be open without having sent the header section of their first request; a new one beyond closes the one that has waited longest (408)',
    }),
  }),
  admin: section({
    host: Type.String({ minLength: 1, default: '127.0.0.1', env: 'MERIDIAN_ADMIN_HOST', description: 'address of that listener' }),
    port: nullableInteger({ ...port, default: null, env: 'MERIDIAN_ADMIN_PORT', description: 'move key management (and `/metrics`) to a listener of its own' }),
  }),
  metrics: section({
    token: nullableString({
      default: null,
      pattern: '^[\\x21-\\x7e]{16,256}$',
      env: 'MERIDIAN_METRICS_TOKEN',
      description:
        'bearer token `/metrics` asks for (16 to 256 printable characters): without an admin listener, `/metrics` is on the public listener only when this is set (404 otherwise); with one, it is on the admin listener, behind this token when set (see [Metrics](#metrics))',
    }),
  }),
};

const platformSchema = section(platformSettings);
export type PlatformConfig = Static<typeof platformSchema>;
