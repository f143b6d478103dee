import { ApiError } from '../errors.js';
import type { DatabasePoolUse } from '../metrics.js';

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
  /**
   * The listening connection answered a probe sent at `sentAt` (`performance.now()` time): every
   * notification committed before then has been delivered. Infinity: notifications cannot be
   * lost while connected (an in-process database).
   */
  onAlive?(sentAt: number): void;
}

/** The database stopped answering, or answers again: each is heard once per change. */
export type AvailabilityChange = { available: false; error: unknown } | { available: true; downMs: number };

export interface Database extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  readonly schema: string;
  /**
   * Runs `work` in one transaction. Statements have the configured time limit unless `unbounded`
   * (migrations, which may wait for another instance's migrations).
   */
  transaction<T>(work: (tx: Queryable) => Promise<T>, options?: { unbounded?: boolean }): Promise<T>;
  /** The PostgreSQL channel name of a topic, scoped to this schema so deployments do not hear each other. */
  channel(topic: string): string;
  /** Subscribes to a topic; resolves once listening. Returns the unsubscribe function. */
  listen(topic: string, handlers: NotificationHandlers): Promise<() => Promise<void>>;
  /** Hears when the database becomes unreachable and when it answers again. Returns the unsubscribe function. */
  onAvailabilityChange(listener: (change: AvailabilityChange) => void): () => void;
  /** Use of the connection pool, for metrics; null for the embedded database, which has none. */
  poolUse(): DatabasePoolUse | null;
  close(): Promise<void>;
}

export function channelName(schema: string, topic: string): string {
  return `meridian_${schema}_${topic}`;
}

/** The documented text of a 503 for want of the database, and the Retry-After that comes with it. */
export const DATABASE_UNAVAILABLE = 'Service temporarily unavailable: the database does not answer; try again later';
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The database cannot be reached, or did not answer within its time limit: the request is
 * answered 503 with Retry-After. `outage` says whether the server was out of reach (rather than
 * answering that a statement ran too long).
 */
export class DatabaseUnavailableError extends ApiError {
  constructor(
    override readonly cause: unknown,
    readonly outage: boolean,
  ) {
    super(DATABASE_UNAVAILABLE, 'unavailable', { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) }, 'database');
  }
}

/** `promise`, or DatabaseUnavailableError when it has not settled within `ms`. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DatabaseUnavailableError(new Error(`${what}: no answer within ${ms} ms`), false)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether the database answers, from the outcome of every operation. An outcome counts only when
 * its operation started after the one that set the current state, so a query that hung through an
 * outage and fails after recovery does not announce a second outage.
 */
export class Availability {
  private up = true;
  private evidenceAt = -Infinity;
  private downSince = 0;
  private readonly listeners = new Set<(change: AvailabilityChange) => void>();

  get available(): boolean {
    return this.up;
  }

  onChange(listener: (change: AvailabilityChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** An operation started at `startedAt` (`performance.now()`) reached the server. */
  reached(startedAt: number): void {
    if (startedAt < this.evidenceAt) return;
    this.evidenceAt = startedAt;
    if (this.up) return;
    this.up = true;
    this.emit({ available: true, downMs: performance.now() - this.downSince });
  }

  /** An operation started at `startedAt` could not reach the server. */
  failed(startedAt: number, error: unknown): void {
    if (startedAt < this.evidenceAt) return;
    this.evidenceAt = startedAt;
    if (!this.up) return;
    this.up = false;
    this.downSince = performance.now();
    this.emit({ available: false, error });
  }

  private emit(change: AvailabilityChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
