import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { channelName, type Database, type NotificationHandlers, type Queryable } from './database.js';

function wrap(target: PGlite | Transaction): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
      const result = await target.query<T>(sql, params as unknown[]);
      return result.rows;
    },
    async exec(sql: string): Promise<void> {
      await target.exec(sql);
    },
  };
}

/**
 * PostgreSQL's default 128 MB of shared buffers is resident in the WebAssembly memory from the
 * start: 16 MB took an idle server from 518 to 347 MiB (a PostgreSQL server's instance: 287), and
 * inserting and listing keys on PGlite alone was no slower; 8 MB saved no more. The tables of keys
 * and usage are small, and a page not in the buffers is read from the operating system's cache.
 */
const SHARED_BUFFERS = '16MB';

/** The embedded PostgreSQL: one WebAssembly instance persisted in `directory`, owned by this process. */
export async function openPglite(directory: string, schema: string): Promise<Database> {
  mkdirSync(directory, { recursive: true });
  const pg = await PGlite.create(directory, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] });
  await pg.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}`);
  const self = wrap(pg);
  return {
    kind: 'pglite',
    schema,
    ...self,
    transaction: (work) => pg.transaction((tx) => work(wrap(tx))),
    channel: (topic) => channelName(schema, topic),
    async listen(topic: string, handlers: NotificationHandlers) {
      const unlisten = await pg.listen(channelName(schema, topic), handlers.onMessage);
      handlers.onConnect();
      // Notifications are delivered in-process: none can be missed while listening.
      handlers.onAlive?.(Infinity);
      return () => unlisten();
    },
    // The embedded database is this process: it is there as long as the process is.
    onAvailabilityChange: () => () => {},
    poolUse: () => null,
    close: () => pg.close(),
  };
}
