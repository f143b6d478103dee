import pg from 'pg';
import {
  Availability,
  channelName,
  DatabaseUnavailableError,
  within,
  type Database,
  type NotificationHandlers,
  type Queryable,
} from './database.js';

const maxReconnectDelayMs = 5_000;
/** How much longer than `statement_timeout` the client waits for a server that does not answer at all. */
const clientGraceMs = 1_000;
/** Connections of an instance's pool; callers beyond wait up to `connectTimeoutMs`, then get 503. */
const poolSize = 10;

/** The time limits of every PostgreSQL operation (the `database` settings). */
export interface PostgresTimeouts {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  heartbeatMs: number;
}

/** Network errors, and what `pg` says when the server goes away or does not answer. */
const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN']);
const lostConnection = /^(Connection terminated|timeout expired|Query read timeout|Client has encountered a connection error|Client was closed)/;
/** SQLSTATEs of a server that is going away or refuses work: connection exceptions, shutdown, too many connections. */
const unavailableStates = /^(08...|57P0[123]|53300)$/;
/** `statement_timeout` or a cancelled statement: the server answers, but too late to use. */
const tooSlowStates = new Set(['57014']);

/**
 * Sorts a failure: `outage` when the server could not be reached or went silent, `slow` when it
 * answered that a statement ran too long (or the pool had no free connection in time), null for
 * anything else (SQL errors, which the caller handles).
 */
function classify(error: unknown): 'outage' | 'slow' | null {
  if (error instanceof DatabaseUnavailableError) return error.outage ? 'outage' : 'slow';
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (error instanceof pg.DatabaseError) {
    if (typeof code === 'string' && unavailableStates.test(code)) return 'outage';
    if (typeof code === 'string' && tooSlowStates.has(code)) return 'slow';
    return null;
  }
  if (error.message === 'timeout exceeded when trying to connect') return 'slow';
  if (typeof code === 'string' && networkCodes.has(code)) return 'outage';
  if (lostConnection.test(error.message)) return 'outage';
  if (error instanceof AggregateError) return error.errors.some((inner) => classify(inner) === 'outage') ? 'outage' : null;
  return null;
}

/**
 * Runs one operation, tells `availability` whether it reached the server, and turns a failure to
 * reach it (or a time limit) into DatabaseUnavailableError, which is answered 503.
 */
async function observe<T>(availability: Availability, operation: () => Promise<T>): Promise<T> {
  const startedAt = performance.now();
  try {
    const result = await operation();
    availability.reached(startedAt);
    return result;
  } catch (error) {
    // Raised by an operation inside this one (a transaction's statement), and observed there.
    if (error instanceof DatabaseUnavailableError) throw error;
    const kind = classify(error);
    if (kind === 'outage') availability.failed(startedAt, error);
    // An error from the server (a constraint, a statement_timeout) shows it answers; a pool
    // with no free connection in time, or an error of our own, says nothing either way.
    else if (error instanceof pg.DatabaseError) availability.reached(startedAt);
    if (kind === null) throw error;
    throw new DatabaseUnavailableError(error, kind === 'outage');
  }
}

/**
 * One statement; the client gives up after `queryTimeoutMs` (null: never). `pg` reads
 * `query_timeout` from a query's config as from a client's, though its types do not say so.
 */
function send(client: pg.Pool | pg.PoolClient | pg.Client, text: string, values: unknown[], queryTimeoutMs: number | null): Promise<pg.QueryResult> {
  const config = queryTimeoutMs === null ? { text, values } : { text, values, query_timeout: queryTimeoutMs };
  return client.query(config as pg.QueryConfig);
}

/** `queryTimeoutMs` null: no client-side limit (the server's `statement_timeout` may be lifted too). */
function wrap(client: pg.Pool | pg.PoolClient, queryTimeoutMs: number | null, availability: Availability): Queryable {
  const run = (text: string, values: unknown[]) => observe(availability, () => send(client, text, values, queryTimeoutMs));
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      const result = await run(sql, params as unknown[]);
      return result.rows as T[];
    },
    async exec(sql: string): Promise<void> {
      await run(sql, []);
    },
  };
}

/**
 * A PostgreSQL server shared by any number of Meridian instances. Every statement has a time limit
 * (the server's `statement_timeout`, and the client's own a little later for a server that went
 * silent), as has opening a connection; an operation that cannot reach the server, or runs out of
 * time, fails with DatabaseUnavailableError.
 */
export async function openPostgres(url: string, schema: string, timeouts: PostgresTimeouts): Promise<Database> {
  const availability = new Availability();
  const queryTimeoutMs = timeouts.statementTimeoutMs + clientGraceMs;
  const setup = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeouts.connectTimeoutMs });
  await observe(availability, () => setup.connect());
  try {
    await observe(availability, () => send(setup, `CREATE SCHEMA IF NOT EXISTS ${schema}`, [], queryTimeoutMs));
  } catch (error) {
    // Another instance creating the schema at the same moment is not a failure.
    if ((error as { code?: string }).code !== '23505') throw error;
  } finally {
    await end(setup, timeouts.connectTimeoutMs);
  }
  const connection: pg.ClientConfig = {
    connectionString: url,
    options: `-c search_path=${schema} -c statement_timeout=${timeouts.statementTimeoutMs}`,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    keepAlive: true,
  };
  const pool = new pg.Pool({ ...connection, max: poolSize, idleTimeoutMillis: 30_000 });
  // An idle client that loses its server is replaced on next use; the error must not crash the
  // process. Losing one connection is not an outage: failing to open or use the next one is.
  pool.on('error', () => {});
  const self = wrap(pool, queryTimeoutMs, availability);

  return {
    kind: 'postgres',
    schema,
    ...self,
    async transaction<T>(work: (tx: Queryable) => Promise<T>, options: { unbounded?: boolean } = {}): Promise<T> {
      const client = await observe(availability, () => pool.connect());
      const tx = wrap(client, options.unbounded ? null : queryTimeoutMs, availability);
      // A connection that failed mid-transaction is closed rather than returned to the pool.
      let broken: Error | undefined;
      try {
        await tx.exec('BEGIN');
        if (options.unbounded) await tx.exec('SET LOCAL statement_timeout = 0');
        const result = await work(tx);
        await tx.exec('COMMIT');
        return result;
      } catch (error) {
        if (classify(error) === 'outage') broken = error as Error;
        else await tx.exec('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
        throw error;
      } finally {
        client.release(broken);
      }
    },
    channel: (topic) => channelName(schema, topic),
    listen: (topic, handlers) => listen(connection, timeouts, availability, channelName(schema, topic), handlers),
    onAvailabilityChange: (listener) => availability.onChange(listener),
    poolUse: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: poolSize }),
    // Idle connections to a partitioned server would hold the shutdown: it waits so long at most.
    close: () => within(pool.end(), timeouts.connectTimeoutMs, 'closing the pool').catch(() => {}),
  };
}

/** Ends a client; one whose server went silent is cut off after `ms` rather than waited for. */
async function end(client: pg.Client, ms: number): Promise<void> {
  await within(client.end(), ms, 'closing the connection').catch(() => {
    (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  });
}

/**
 * LISTEN on a dedicated connection that reconnects with backoff. A heartbeat (`SELECT 1` every
 * `heartbeatMs`, given as long to answer) notices a connection that died silently, so the
 * subscriber learns within seconds that it may have missed notifications; each answered probe
 * tells it up to when it has heard everything (`onAlive`).
 */
async function listen(
  connection: pg.ClientConfig,
  timeouts: PostgresTimeouts,
  availability: Availability,
  channel: string,
  handlers: NotificationHandlers,
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let delay = 100;
  let heartbeat: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;

  const lost = (failed: pg.Client) => {
    if (stopped || client !== failed) return;
    client = null;
    clearInterval(heartbeat);
    void end(failed, timeouts.connectTimeoutMs);
    handlers.onDisconnect();
    retry = setTimeout(reconnect, delay);
    delay = Math.min(delay * 2, maxReconnectDelayMs);
  };

  const connect = async () => {
    const next = new pg.Client(connection);
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.onMessage(message.payload ?? '');
    });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await observe(availability, () => next.connect());
      await observe(availability, () => send(next, `LISTEN ${channel}`, [], timeouts.heartbeatMs + timeouts.connectTimeoutMs));
    } catch (error) {
      void end(next, timeouts.connectTimeoutMs);
      throw error;
    }
    if (stopped) {
      await end(next, timeouts.connectTimeoutMs);
      return;
    }
    client = next;
    delay = 100;
    let probing = false;
    heartbeat = setInterval(() => {
      if (probing) return;
      probing = true;
      const sentAt = performance.now();
      let answered = false;
      // Unanswered for heartbeatMs: lost. The check waits for the I/O phase, so an event loop that
      // was busy does not make an answer already received look late.
      const late = setTimeout(
        () =>
          setImmediate(() => {
            if (answered) return;
            availability.failed(sentAt, new Error(`the database did not answer the heartbeat within ${timeouts.heartbeatMs} ms`));
            lost(next);
          }),
        timeouts.heartbeatMs,
      );
      observe(availability, () => send(next, 'SELECT 1', [], null))
        .then(
          () => {
            answered = true;
            if (client === next) handlers.onAlive?.(sentAt);
          },
          () => lost(next),
        )
        .finally(() => {
          clearTimeout(late);
          probing = false;
        });
    }, timeouts.heartbeatMs);
    heartbeat.unref();
    handlers.onConnect();
  };

  const reconnect = () => {
    connect().catch(() => {
      if (stopped) return;
      retry = setTimeout(reconnect, delay);
      delay = Math.min(delay * 2, maxReconnectDelayMs);
    });
  };

  await connect();
  return async () => {
    stopped = true;
    clearInterval(heartbeat);
    clearTimeout(retry);
    const last = client;
    client = null;
    if (last) await end(last, timeouts.connectTimeoutMs);
  };
}
