import pg from 'pg';
import { channelName, type Database, type NotificationHandlers, type Queryable } from './database.js';

const heartbeatMs = 10_000;
const maxReconnectDelayMs = 5_000;

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      const result = await client.query(sql, params as unknown[]);
      return result.rows as T[];
    },
    async exec(sql: string): Promise<void> {
      await client.query(sql);
    },
  };
}

/** A PostgreSQL server shared by any number of Meridian instances. */
export async function openPostgres(url: string, schema: string): Promise<Database> {
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  } catch (error) {
    // Another instance creating the schema at the same moment is not a failure.
    if ((error as { code?: string }).code !== '23505') throw error;
  } finally {
    await setup.end();
  }
  const connection = { connectionString: url, options: `-c search_path=${schema}`, keepAlive: true };
  const pool = new pg.Pool({ ...connection, max: 10, idleTimeoutMillis: 30_000 });
  // An idle client that loses its server is replaced on next use; the error must not crash the process.
  pool.on('error', () => {});
  const self = wrap(pool);

  return {
    kind: 'postgres',
    schema,
    ...self,
    async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    channel: (topic) => channelName(schema, topic),
    listen: (topic, handlers) => listen(connection, channelName(schema, topic), handlers),
    close: () => pool.end(),
  };
}

/**
 * LISTEN on a dedicated connection that reconnects with backoff. A heartbeat query notices a
 * connection that died silently, so the subscriber learns it may have missed notifications.
 */
async function listen(
  connection: pg.ClientConfig,
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
    failed.end().catch(() => {});
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
    await next.connect();
    await next.query(`LISTEN ${channel}`);
    if (stopped) {
      await next.end();
      return;
    }
    client = next;
    delay = 100;
    heartbeat = setInterval(() => {
      next.query('SELECT 1').catch(() => lost(next));
    }, heartbeatMs);
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
    await client?.end().catch(() => {});
  };
}
