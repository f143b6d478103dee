/** What every store needs from PostgreSQL, whether embedded (PGlite) or a server. */
export interface Queryable {
  /** One statement with `$n` parameters; returns its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface NotificationHandlers {
  onMessage(payload: string): void;
  /** The listening connection was lost: notifications may be missed until `onConnect`. */
  onDisconnect(): void;
  onConnect(): void;
}

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  readonly schema: string;
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** The PostgreSQL channel name of a topic, scoped to this schema so deployments do not hear each other. */
  channel(topic: string): string;
  /** Subscribes to a topic; resolves once listening. Returns the unsubscribe function. */
  listen(topic: string, handlers: NotificationHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

export function channelName(schema: string, topic: string): string {
  return `meridian_${schema}_${topic}`;
}
