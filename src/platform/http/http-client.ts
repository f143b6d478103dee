/**
 * The one outbound HTTP client. Map sources and sprites, marker icons and weather downloads all
 * fetch through it, each with its own limits:
 *
 * - a time limit to connect (DNS, TCP and TLS) and one for the whole attempt, redirects and body
 *   included;
 * - a size cap on the body: refused at once when Content-Length announces more, aborted as soon as
 *   more arrives (decompressed bytes are what count);
 * - a redirect limit: at most `maxRedirects` are followed, every hop checked like the first;
 * - retries with exponential backoff for idempotent requests after a network error, a timeout, a
 *   5xx or a 429, honouring Retry-After up to a bound (beyond it the answer stands);
 * - range requests (`range`): sent uncompressed, their Content-Range parsed;
 * - a guard against requests into the network behind the server: unless allowed, only public
 *   unicast addresses are connected to. The check sits in the agents' DNS lookup, so the address
 *   checked is the address connected to (no window for DNS rebinding); IP literals are checked
 *   before connecting. What is public is ipaddr.js's table of special ranges (`range()`), with an
 *   IPv4 address carried in an IPv6 one (mapped, translated, NAT64, 6to4) judged by itself.
 *
 * Built on node:http and node:https, whose `lookup` option is where the guard sits; each client
 * has its own keep-alive agents, so a socket opened under one guard is never reused under another.
 */

import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type ClientRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import ipaddr from 'ipaddr.js';

export interface HttpLimits {
  /** Time limit of one attempt: connecting, every redirect, the body. */
  timeoutMs: number;
  /** Time limit to connect (DNS lookup, TCP, TLS) to each hop; never more than `timeoutMs`. */
  connectTimeoutMs: number;
  /** Largest body accepted, in bytes (after decompression). */
  maxBytes: number;
  /** Redirects followed at most; one more is an error. */
  maxRedirects: number;
  /** Further attempts of an idempotent request after a network error, a timeout, a 5xx or a 429. */
  retries: number;
  /** Wait before the first retry; doubled for each further one, up to `maxRetryDelayMs`. */
  retryDelayMs: number;
  maxRetryDelayMs: number;
  /** A Retry-After up to this long is waited for; a longer one ends the retries. */
  maxRetryAfterMs: number;
}

export const defaultLimits: Readonly<HttpLimits> = {
  timeoutMs: 30_000,
  connectTimeoutMs: 10_000,
  maxBytes: Infinity,
  maxRedirects: 20,
  retries: 0,
  retryDelayMs: 200,
  maxRetryDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

const limitNames = Object.keys(defaultLimits) as (keyof HttpLimits)[];

export interface HttpClientOptions extends Partial<HttpLimits> {
  /**
   * Hosts on loopback, private, link-local and other non-public addresses: refused when false or
   * absent, all allowed when true, or only those in the given CIDR ranges (`['10.1.0.0/16']`).
   */
  allowPrivateAddresses?: boolean | readonly string[];
  /** Headers of every request (a request's own headers win). */
  headers?: Readonly<Record<string, string>>;
  /** The resolver the guard asks; dns.lookup when absent. */
  lookup?: LookupFunction;
}

export interface ByteRange {
  start: number;
  /** Inclusive; to the end of the file when absent or null. */
  end?: number | null;
}

/** What a Content-Range header says: the bytes sent (206), or only the size (416). */
export interface ContentRange {
  start: number | null;
  end: number | null;
  size: number | null;
}

export interface ResponseHead {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  contentRange: ContentRange | undefined;
}

export interface HttpResponse extends ResponseHead {
  /** Decoded; a view of a whole ArrayBuffer of its own. */
  body: Uint8Array;
  /** Attempts made, the answering one included. */
  attempts: number;
  redirects: number;
}

export interface RetryEvent {
  url: string;
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  /** The status that is retried, or the error. */
  status?: number;
  error?: HttpClientError;
}

export interface RequestOptions extends Partial<HttpLimits> {
  method?: string;
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
  range?: ByteRange;
  /** Ask for gzip, deflate or br and decode it; true unless `range` is given. */
  decompress?: boolean;
  signal?: AbortSignal;
  /**
   * Called with the final answer before its body is read: throw to refuse it (the body is not
   * read, the error is passed on as it is, no retry), return false to leave the body unread.
   */
  inspect?: (head: ResponseHead) => boolean | void;
  onRetry?: (event: RetryEvent) => void;
}

export type HttpClientErrorCode =
  | 'invalid-url'
  | 'protocol'
  | 'private-address'
  | 'connect-timeout'
  | 'timeout'
  | 'too-large'
  | 'too-many-redirects'
  | 'network'
  | 'aborted';

/** Failures of the client itself; the message says what happened, without the URL. */
export class HttpClientError extends Error {
  override name = 'HttpClientError';
  /** Attempts made when the request gave up. */
  attempts = 1;

  constructor(
    readonly code: HttpClientErrorCode,
    message: string,
    /** The URL of the hop that failed. */
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const retriedCodes = new Set<HttpClientErrorCode>(['network', 'timeout', 'connect-timeout']);
const idempotentMethods = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);
const redirectStatuses = new Set([301, 302, 303, 307, 308]);
/** Headers not carried to another origin on a redirect. */
const credentialHeaders = ['authorization', 'cookie', 'proxy-authorization'];

const decoders: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

// ---------------------------------------------------------------------------------------------
// Addresses

const v4FromBytes = (bytes: number[]) => new ipaddr.IPv4(bytes);
/** RFC 9780's dummy prefix, not globally reachable and newer than ipaddr.js's table. */
const dummyPrefix = ipaddr.IPv6.parseCIDR('100:0:0:1::/64');

/**
 * ipaddr.js's name of the range an address is in, `unicast` for a public one. An IPv4 address
 * carried in an IPv6 one (mapped `::ffff:a.b.c.d`, translated `::ffff:0:a.b.c.d`, NAT64
 * `64:ff9b::a.b.c.d`, 6to4 `2002:aabb:ccdd::`) is judged by itself. Two blocks ipaddr.js 2.5 does
 * not know are added: IPv4-compatible `::a.b.c.d` (deprecated; `ipv4Compatible`) and RFC 9780's
 * `100:0:0:1::/64` (`dummy`). Anything that is not an address is `invalid`.
 */
export function addressRange(address: string): string {
  // Node's isIP is strict where ipaddr.js takes inet_aton's short forms (`1.2.3`).
  if (!isIP(address) || !ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  const bytes = v6.toByteArray();
  const isNat64 = range === 'rfc6052' && bytes.slice(4, 12).every((byte) => byte === 0) && bytes[2] === 0xff && bytes[3] === 0x9b;
  if (range === 'ipv4Mapped' || range === 'rfc6145' || isNat64) return v4FromBytes(bytes.slice(12)).range();
  if (range === '6to4') return v4FromBytes(bytes.slice(2, 6)).range();
  if (range === 'unicast' && bytes.slice(0, 12).every((byte) => byte === 0)) return 'ipv4Compatible';
  if (range === 'unicast' && v6.match(dummyPrefix)) return 'dummy';
  return range;
}

/** Whether an address is anything but public unicast (loopback, private, link-local…, or no address). */
export function isPrivateAddress(address: string): boolean {
  return addressRange(address) !== 'unicast';
}

/** The rule an address must pass: public, or allowed by the client's options. */
function addressRule(allow: boolean | readonly string[] | undefined): (address: string) => boolean {
  if (allow === true) return () => true;
  const ranges = (allow || []).map((cidr) => ipaddr.parseCIDR(cidr));
  return (address) => {
    if (!isPrivateAddress(address)) return true;
    if (!isIP(address)) return false;
    const parsed = ipaddr.process(address);
    return ranges.some(([network, bits]) => network.kind() === parsed.kind() && (parsed as ipaddr.IPv4).match(network as ipaddr.IPv4, bits));
  };
}

/** Thrown by the guarded lookup; becomes a `private-address` HttpClientError. */
class AddressRefused extends Error {}

// ---------------------------------------------------------------------------------------------
// Headers

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `bytes a-b/size` or `bytes a-b/*` (206), `bytes *\/size` (416); undefined when neither. */
export function parseContentRange(value: string | undefined): ContentRange | undefined {
  const match = /^bytes\s+(?:(\d+)-(\d+)|\*)\/(\d+|\*)$/i.exec(value?.trim() ?? '');
  if (!match || (match[1] === undefined && match[3] === '*')) return undefined;
  const number = (text: string | undefined) => (text === undefined || text === '*' ? null : Number(text));
  return { start: number(match[1]), end: number(match[2]), size: number(match[3]) };
}

/** Milliseconds a Retry-After header asks to wait (seconds or an HTTP date); undefined when it says nothing usable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

// ---------------------------------------------------------------------------------------------
// The client

/** A response whose body is not read yet, with the attempt's timers still running. */
interface Exchange {
  head: ResponseHead;
  response: IncomingMessage;
  redirects: number;
}

export class HttpClient {
  private readonly limits: HttpLimits;
  private readonly headers: Record<string, string>;
  private readonly allowed: (address: string) => boolean;
  private readonly resolve: LookupFunction;
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  constructor(options: HttpClientOptions = {}) {
    this.limits = { ...defaultLimits, ...pickLimits(options) };
    this.headers = lowerCaseKeys({ 'user-agent': 'Meridian', ...options.headers });
    this.allowed = addressRule(options.allowPrivateAddresses);
    this.resolve = options.lookup ?? (dnsLookup as LookupFunction);
    const agentOptions = { keepAlive: true, timeout: 4_000, lookup: this.lookup };
    this.httpAgent = new http.Agent(agentOptions);
    this.httpsAgent = new https.Agent(agentOptions);
  }

  /** Closes the idle connections kept for reuse. */
  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /**
   * The final answer to a request, its body read. A 5xx or 429 comes back once the retries are
   * spent; failures of the client (and of the network) are HttpClientErrors.
   */
  async request(url: string, options: RequestOptions = {}): Promise<HttpResponse> {
    const limits = { ...this.limits, ...pickLimits(options) };
    const method = (options.method ?? 'GET').toUpperCase();
    const retries = idempotentMethods.has(method) ? limits.retries : 0;
    for (let attempt = 1; ; attempt++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new HttpClientError('timeout', `no complete answer within ${limits.timeoutMs} ms`, url)), limits.timeoutMs);
      const onAbort = () => controller.abort(new HttpClientError('aborted', 'aborted', url, { cause: options.signal?.reason }));
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
      let delayMs: number;
      let retried: { status?: number; error?: HttpClientError };
      try {
        const exchange = await this.exchange(url, method, options, limits, controller.signal);
        const { head, response } = exchange;
        const delay = retryable(head.status) && attempt <= retries ? this.retryDelay(head, attempt, limits) : null;
        if (delay === null) {
          let verdict: boolean | void;
          try {
            verdict = options.inspect?.(head);
          } catch (error) {
            discard(response);
            throw error;
          }
          const body = verdict === false ? discard(response) : await readBody(exchange, method, limits.maxBytes, options, controller.signal);
          return { ...head, body, attempts: attempt, redirects: exchange.redirects };
        }
        discard(response);
        delayMs = delay;
        retried = { status: head.status };
      } catch (error) {
        if (error instanceof HttpClientError) error.attempts = attempt;
        if (!(error instanceof HttpClientError) || !retriedCodes.has(error.code) || attempt > retries) throw error;
        delayMs = backoff(attempt, limits);
        retried = { error };
      } finally {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      }
      options.onRetry?.({ url, attempt, delayMs, ...retried });
      try {
        await sleep(delayMs, undefined, options.signal ? { signal: options.signal } : {});
      } catch (error) {
        throw Object.assign(new HttpClientError('aborted', 'aborted', url, { cause: error }), { attempts: attempt });
      }
    }
  }

  /** Backoff, or what Retry-After asks within its bound; null when it asks for longer. */
  private retryDelay(head: ResponseHead, attempt: number, limits: HttpLimits): number | null {
    const asked = retryAfterMs(headerValue(head.headers, 'retry-after'));
    if (asked === undefined) return backoff(attempt, limits);
    return asked > limits.maxRetryAfterMs ? null : asked;
  }

  /** Sends the request and follows redirects, checking every hop; the body of the last is not read. */
  private async exchange(url: string, method: string, options: RequestOptions, limits: HttpLimits, signal: AbortSignal): Promise<Exchange> {
    let target: URL;
    try {
      target = new URL(url);
    } catch (error) {
      throw new HttpClientError('invalid-url', 'not a valid URL', url, { cause: error });
    }
    const headers: Record<string, string> = { ...this.headers };
    const decompress = options.decompress ?? !options.range;
    headers['accept-encoding'] = decompress ? Object.keys(decoders).filter((name) => name !== 'x-gzip').join(', ') : 'identity';
    if (options.range) headers.range = `bytes=${options.range.start}-${options.range.end ?? ''}`;
    Object.assign(headers, lowerCaseKeys(options.headers ?? {}));
    let body = options.body;
    for (let redirects = 0; ; redirects++) {
      this.checkTarget(target);
      const response = await this.send(target, method, headers, body, Math.min(limits.connectTimeoutMs, limits.timeoutMs), signal);
      const status = response.statusCode ?? 0;
      const location = redirectStatuses.has(status) ? headerValue(response.headers, 'location') : undefined;
      if (location === undefined) {
        const head: ResponseHead = {
          url: target.href,
          status,
          statusText: response.statusMessage ?? '',
          headers: response.headers,
          contentRange: parseContentRange(headerValue(response.headers, 'content-range')),
        };
        return { head, response, redirects };
      }
      discard(response);
      if (redirects >= limits.maxRedirects) throw new HttpClientError('too-many-redirects', `more than ${limits.maxRedirects} redirects`, target.href);
      let next: URL;
      try {
        next = new URL(location, target);
      } catch (error) {
        throw new HttpClientError('invalid-url', `redirected to an invalid URL`, target.href, { cause: error });
      }
      if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
        method = 'GET';
        body = undefined;
      }
      if (next.origin !== target.origin) for (const name of credentialHeaders) delete headers[name];
      target = next;
    }
  }

  /** Only http(s), and an IP literal must pass the guard before anything is sent to it. */
  private checkTarget(target: URL): void {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new HttpClientError('protocol', `${target.protocol.slice(0, -1)} URLs are not fetched, only http and https`, target.href);
    }
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.allowed(host)) {
      throw new HttpClientError('private-address', `${host} is not a public address (${addressRange(host)})`, target.href);
    }
  }

  /** One hop. A request on a reused keep-alive socket that the server closed meanwhile is sent again on a new one. */
  private async send(target: URL, method: string, headers: Record<string, string>, body: string | Uint8Array | undefined, connectTimeoutMs: number, signal: AbortSignal): Promise<IncomingMessage> {
    for (let stale = 0; ; stale++) {
      const socket = { reused: false };
      try {
        return await this.sendOnce(target, method, headers, body, connectTimeoutMs, signal, socket);
      } catch (error) {
        const resend = socket.reused && !(error instanceof HttpClientError) && idempotentMethods.has(method) && stale < 3 && !signal.aborted;
        if (!resend) throw asClientError(error, target);
      }
    }
  }

  private sendOnce(
    target: URL,
    method: string,
    headers: Record<string, string>,
    body: string | Uint8Array | undefined,
    connectTimeoutMs: number,
    signal: AbortSignal,
    socket: { reused: boolean },
  ): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const secure = target.protocol === 'https:';
      const request: ClientRequest = (secure ? https : http).request(target, {
        method,
        headers,
        agent: secure ? this.httpsAgent : this.httpAgent,
        lookup: this.lookup,
      });
      const connectTimer = setTimeout(
        () => request.destroy(new HttpClientError('connect-timeout', `no connection within ${connectTimeoutMs} ms`, target.href)),
        connectTimeoutMs,
      );
      const onAbort = () => request.destroy(signal.reason);
      const settle = () => {
        clearTimeout(connectTimer);
        signal.removeEventListener('abort', onAbort);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      request.once('socket', (assigned) => {
        socket.reused = request.reusedSocket;
        if (!assigned.connecting) return clearTimeout(connectTimer);
        assigned.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
      });
      request.once('response', (response) => {
        settle();
        resolve(response);
      });
      // Not once: a socket error while the body is read comes here too, and is the body's to report.
      request.on('error', (error) => {
        settle();
        reject(error);
      });
      request.end(body);
    });
  }

  /** dns.lookup keeping only the addresses the guard allows: the address checked is the address connected to. */
  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname, { ...options, all: true }, (error, result, family) => {
      if (error) return callback(error, '', 0);
      const addresses: LookupAddress[] = Array.isArray(result) ? result : [{ address: result, family: family ?? isIP(result) }];
      const allowed = addresses.filter((entry) => this.allowed(entry.address));
      if (allowed.length === 0) {
        const found = addresses.map((entry) => `${entry.address} (${addressRange(entry.address)})`).join(', ');
        return callback(new AddressRefused(`${hostname} resolves to no public address: ${found || 'none'}`), '', 0);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

function pickLimits(options: Partial<HttpLimits>): Partial<HttpLimits> {
  const picked: Partial<HttpLimits> = {};
  for (const name of limitNames) if (options[name] !== undefined) picked[name] = options[name];
  return picked;
}

function lowerCaseKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

const retryable = (status: number) => status === 429 || status >= 500;

const backoff = (attempt: number, limits: HttpLimits) => Math.min(limits.maxRetryDelayMs, limits.retryDelayMs * 2 ** (attempt - 1));

function asClientError(error: unknown, target: URL): HttpClientError {
  if (error instanceof HttpClientError) return error;
  if (error instanceof AddressRefused) return new HttpClientError('private-address', error.message, target.href);
  return new HttpClientError('network', (error as Error).message, target.href, { cause: error });
}

/** Leaves a body unread: a short one is drained so that its connection can serve again, a long one is cut off. */
function discard(response: IncomingMessage): Uint8Array {
  if (response.complete || Number(headerValue(response.headers, 'content-length') ?? Infinity) <= 16_384) {
    const timer = setTimeout(() => response.destroy(), 1_000).unref();
    response.once('close', () => clearTimeout(timer));
    response.resume();
  } else {
    response.destroy();
  }
  return new Uint8Array(0);
}

/** The body, decoded, never more than `maxBytes`; copied into a buffer of its own. */
async function readBody(exchange: Exchange, method: string, maxBytes: number, options: RequestOptions, signal: AbortSignal): Promise<Uint8Array> {
  const { response, head } = exchange;
  const tooLarge = () => new HttpClientError('too-large', `larger than ${maxBytes} bytes`, head.url);
  const encoding = headerValue(head.headers, 'content-encoding')?.trim().toLowerCase();
  const decoder = (options.decompress ?? !options.range) && encoding ? decoders[encoding]?.() : undefined;
  if (!decoder && method !== 'HEAD' && Number(headerValue(head.headers, 'content-length') ?? 0) > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  const stream: Readable = decoder ?? response;
  if (decoder) pipeline(response, decoder, () => {});
  const onAbort = () => {
    stream.destroy(signal.reason);
    response.destroy(signal.reason);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      length += chunk.length;
      if (length > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    response.destroy();
    throw asClientError(signal.aborted ? signal.reason : error, new URL(head.url));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  const body = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}
