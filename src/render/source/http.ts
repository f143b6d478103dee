/**
 * Tiles and documents over http(s), with the platform's HTTP client. Every request has a time
 * limit, and each source keeps a bounded number of requests in flight so that one big render does
 * not flood a tile server. 404 and 204 mean "no tile there"; any other failure is an error the
 * source logs. URLs in error messages have their credentials (`key=`, `token=`…) redacted.
 * Sources and sprites are named by the operator's styles, so hosts on private networks are allowed.
 */

import { HttpClient, HttpClientError } from '../../platform/http/http-client.js';
import { redactUrl } from '../../platform/logging.js';
import type { TileStore } from './encoded.js';
import { expandTemplate, type Scheme } from './template.js';

export interface HttpOptions {
  /** Time limit of one request, body included. */
  timeoutMs: number;
  /** Requests of one source in flight at once. */
  concurrency: number;
}

export const defaultHttpOptions: HttpOptions = { timeoutMs: 10_000, concurrency: 8 };

/** The client of map sources, remote archives and sprites: no retries, redirects as browsers follow them. */
export const sourceClient = new HttpClient({ allowPrivateAddresses: true, headers: { 'user-agent': 'Meridian static maps' } });

/** Why a request failed, as the messages of sources say it. */
export function failureReason(error: unknown): string {
  if (error instanceof HttpClientError) {
    if (error.code === 'timeout' || error.code === 'connect-timeout') return 'timed out';
    const cause = error.cause as { code?: string } | undefined;
    if (error.code === 'network') return cause?.code ?? error.message;
  }
  return (error as Error).message;
}

/** The body of a GET, or null when the server has nothing there (404, 204). */
export async function fetchBytes(url: string, timeoutMs: number): Promise<Uint8Array | null> {
  try {
    const response = await sourceClient.request(url, {
      timeoutMs,
      inspect: ({ status }) => {
        if (status === 404 || status === 204) return false;
        if (status < 200 || status > 299) throw new Error(`HTTP ${status}`);
      },
    });
    return response.status === 404 || response.status === 204 ? null : response.body;
  } catch (error) {
    throw new Error(`GET ${redactUrl(url)}: ${failureReason(error)}`);
  }
}

export async function fetchJson(url: string, timeoutMs: number): Promise<unknown> {
  const bytes = await fetchBytes(url, timeoutMs);
  if (!bytes) throw new Error(`GET ${redactUrl(url)}: not found`);
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    throw new Error(`GET ${redactUrl(url)}: not JSON (${(error as Error).message})`);
  }
}

/** Runs at most `limit` tasks at once, the others in arrival order. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.limit) this.active++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      // A waiting task takes the slot over, so the count stays the same.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** Tiles from an http(s) URL template. */
export class HttpTileStore implements TileStore {
  readonly key: string;
  private readonly limiter: Limiter;

  constructor(
    private readonly templates: readonly string[],
    private readonly scheme: Scheme,
    private readonly options: HttpOptions = defaultHttpOptions,
  ) {
    this.key = `http ${scheme} ${templates.join(' ')}`;
    this.limiter = new Limiter(options.concurrency);
  }

  read(z: number, x: number, y: number): Promise<Uint8Array | null> {
    const url = expandTemplate(this.templates, this.scheme, z, x, y);
    return this.limiter.run(() => fetchBytes(url, this.options.timeoutMs));
  }

  async close(): Promise<void> {}
}
