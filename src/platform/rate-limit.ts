import { Redis } from 'ioredis';
import { ApiError } from './errors.js';

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a request would be allowed again (for `Retry-After`). */
  retryAfter: number;
  /** The bucket after the decision, for the `RateLimit-*` headers; absent when nothing limits. */
  bucket?: BucketState;
}

/** A bucket as the IETF `RateLimit-*` headers tell it: its size, whole tokens left, whole seconds until full. */
export interface BucketState {
  limit: number;
  remaining: number;
  reset: number;
}

/** The IETF `RateLimit-*` headers (draft-ietf-httpapi-ratelimit-headers): which field of a bucket each tells, as the API reference describes it. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': { field: 'limit', description: "Size of the limit nearest to refusing: the key's burst, or its monthly quota" },
  'RateLimit-Remaining': { field: 'remaining', description: 'Requests left in that limit' },
  'RateLimit-Reset': { field: 'reset', description: 'Seconds until that limit is whole again' },
} as const satisfies Record<string, { field: keyof BucketState; description: string }>;

/** The `RateLimit-*` headers of a bucket. */
export function rateLimitHeaders(state: BucketState): Record<string, string> {
  return Object.fromEntries(Object.entries(RATE_LIMIT_HEADERS).map(([name, { field }]) => [name.toLowerCase(), String(state[field])]));
}

/** The `RateLimit-*` headers as an OpenAPI response's `headers`: sent whenever a limit applies to the key. */
export const rateLimitHeaderDocs = Object.fromEntries(
  Object.entries(RATE_LIMIT_HEADERS).map(([name, { description }]) => [name, { description: `${description} (when a rate limit or quota applies)`, schema: { type: 'integer', minimum: 0 } }]),
);

/** The 429 of a refused decision: `message` in the error body, when to try again, and the bucket. */
export function rateLimitedError(message: string, decision: RateDecision): ApiError {
  return new ApiError(message, 'rate-limited', {
    'retry-after': String(decision.retryAfter),
    ...(decision.bucket ? rateLimitHeaders(decision.bucket) : {}),
  });
}

/**
 * A token bucket per API key: `requestsPerSecond` refill, at most `burst` tokens. Kept in
 * memory (one instance) or in Redis (instances share one budget per key).
 */
export interface RateLimiter {
  /** Resolves once the limiter can decide (connected, for Redis). */
  ready(): Promise<void>;
  /** A token from `id`'s bucket, which refills as `settings` say when given (a key's own limit), else as the limiter's. */
  take(id: string, settings?: RateLimitSettings): RateDecision | Promise<RateDecision>;
  /** Gives back one token `take` granted, for a charge that turned out not to be owed; never above the burst. */
  refund(id: string): void;
  close(): Promise<void>;
}

export interface RateLimitSettings {
  /** `0`: not limited. */
  requestsPerSecond: number;
  burst: number;
}

const allowed: RateDecision = { allowed: true, retryAfter: 0 };

const sameSettings = (a: RateLimitSettings, b: RateLimitSettings): boolean => a.requestsPerSecond === b.requestsPerSecond && a.burst === b.burst;

/** The decision after a bucket of `settings` was left with `left` tokens. */
function decided(ok: boolean, left: number, settings: RateLimitSettings): RateDecision {
  const { requestsPerSecond: rate, burst } = settings;
  // A bucket holds 0 to `burst` tokens: what was counted under other settings never shows beyond them.
  const tokens = Math.min(burst, Math.max(0, left));
  const bucket = { limit: burst, remaining: Math.floor(tokens), reset: Math.ceil((burst - tokens) / rate) };
  if (ok) return { allowed: true, retryAfter: 0, bucket };
  return { allowed: false, retryAfter: Math.max(1, Math.ceil((1 - tokens) / rate)), bucket };
}

export class MemoryRateLimiter implements RateLimiter {
  /** `fullAt`: when the bucket will have refilled, and is the same as no bucket. */
  private readonly buckets = new Map<string, { tokens: number; at: number; fullAt: number; burst: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    // Dropping refilled buckets bounds memory.
    this.sweeper = setInterval(() => {
      const now = this.now();
      for (const [id, bucket] of this.buckets) if (bucket.fullAt < now) this.buckets.delete(id);
    }, 1000);
    this.sweeper.unref();
  }

  async ready(): Promise<void> {}

  take(id: string, settings = this.settings): RateDecision {
    const { requestsPerSecond: rate, burst } = settings;
    if (rate === 0) return allowed;
    const now = this.now();
    const bucket = this.buckets.get(id) ?? { tokens: burst, at: now, fullAt: now, burst };
    this.buckets.set(id, bucket);
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) * rate) / 1000);
    bucket.at = now;
    bucket.burst = burst;
    const ok = bucket.tokens >= 1;
    if (ok) bucket.tokens -= 1;
    bucket.fullAt = now + ((burst - bucket.tokens) * 1000) / rate;
    return decided(ok, bucket.tokens, settings);
  }

  refund(id: string): void {
    const bucket = this.buckets.get(id);
    if (bucket) bucket.tokens = Math.min(bucket.burst, bucket.tokens + 1);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/**
 * The same bucket as a Lua script, so the read-modify-write is atomic across instances. It grants
 * up to ARGV[3] tokens at once (a lease) and returns {granted, tokens left} (as text: Lua numbers
 * reach Redis replies as integers). The state is stored with every digit (%.17g): Lua's tostring
 * keeps 14, which rounds the time to 0.1 ms, and each lease would add that rounding to the refill.
 */
const leaseScript = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local granted = math.min(want, math.floor(tokens))
if granted >= 1 then
  tokens = tokens - granted
else
  granted = 0
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return {granted, tostring(tokens)}
`;

/** Adds one token to a bucket that still exists (a bucket gone from Redis is full). */
const refundScript = `
local tokens = tonumber(redis.call('HGET', KEYS[1], 'tokens'))
if tokens then redis.call('HSET', KEYS[1], 'tokens', tostring(math.min(tonumber(ARGV[1]), tokens + 1))) end
return 0
`;

type RedisWithLease = Redis & {
  meridianLease(key: string, rate: number, burst: number, want: number): Promise<[number, string]>;
  meridianRefund(key: string, burst: number): Promise<number>;
};

/** How long an instance may hold tokens it took from Redis before they lapse. */
const leaseMs = 100;
/** How long a Redis command may take before the limiter fails open: a request is not held longer for it. */
const COMMAND_TIMEOUT_MS = 500;

/**
 * Redis-backed buckets shared by all instances. Each instance takes tokens in small leases (what
 * the key may spend in 100 ms, at least one), so a busy key costs one Redis round trip per lease,
 * not per request; unspent tokens lapse with the lease, which errs on the strict side. When Redis
 * cannot answer, requests are allowed (fail open): an unavailable limiter must not take the whole
 * API down with it. `onError` hears about it.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: RedisWithLease;
  /**
   * `left`: what the shared bucket held when the lease was taken, for the headers; `settings`:
   * the bucket's rate and size it was taken under.
   */
  private readonly leases = new Map<string, { tokens: number; left: number; expires: number; settings: RateLimitSettings }>();
  private readonly fetching = new Map<string, Promise<RateDecision>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly settings: RateLimitSettings,
    private readonly onError: (error: Error) => void,
    /** How long a command may take before the request is let through (tests give it more than load alone can use up). */
    { commandTimeoutMs = COMMAND_TIMEOUT_MS }: { commandTimeoutMs?: number } = {},
  ) {
    const redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: commandTimeoutMs,
      lazyConnect: true,
      // Commands issued in the same tick share one round trip.
      enableAutoPipelining: true,
    });
    redis.on('error', (error: Error) => this.onError(error));
    redis.defineCommand('meridianLease', { numberOfKeys: 1, lua: leaseScript });
    redis.defineCommand('meridianRefund', { numberOfKeys: 1, lua: refundScript });
    this.redis = redis as RedisWithLease;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const [id, lease] of this.leases) if (lease.expires <= now) this.leases.delete(id);
    }, 10 * leaseMs);
    this.sweeper.unref();
  }

  /** Waits up to `timeoutMs` for the first connection; without one, requests pass until Redis is back. */
  async ready(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.redis.connect().catch((error: Error) => this.onError(error)), timeout]);
    clearTimeout(timer);
  }

  take(id: string, settings = this.settings): RateDecision | Promise<RateDecision> {
    if (this.redis.status !== 'ready' || settings.requestsPerSecond === 0) return allowed;
    const lease = this.leases.get(id);
    // A lease taken under other settings (the key's limit changed) is dropped: its tokens were
    // granted by the old limit, and the new one applies from the next request.
    if (lease && !sameSettings(lease.settings, settings)) this.leases.delete(id);
    else if (lease && lease.tokens >= 1 && lease.expires > performance.now()) {
      lease.tokens--;
      return decided(true, lease.left + lease.tokens, settings);
    }
    // Requests that find the lease empty wait for one fetch, then spend from what it brought.
    const running = this.fetching.get(id);
    if (running) return running.then(() => this.take(id, settings));
    const fetch = this.fetchLease(id, settings).finally(() => this.fetching.delete(id));
    this.fetching.set(id, fetch);
    return fetch;
  }

  private async fetchLease(id: string, settings: RateLimitSettings): Promise<RateDecision> {
    const { requestsPerSecond, burst } = settings;
    const size = Math.max(1, Math.min(burst, Math.floor((requestsPerSecond * leaseMs) / 1000)));
    try {
      const [granted, text] = await this.redis.meridianLease(`${this.prefix}${id}`, requestsPerSecond, burst, size);
      const left = Number(text);
      if (granted < 1) return decided(false, left, settings);
      this.leases.set(id, { tokens: granted - 1, left, expires: performance.now() + leaseMs, settings });
      return decided(true, left + granted - 1, settings);
    } catch (error) {
      this.onError(error as Error);
      return allowed;
    }
  }

  /** Into the shared bucket in Redis, where every instance sees it. */
  refund(id: string): void {
    if (this.redis.status !== 'ready') return;
    this.redis.meridianRefund(`${this.prefix}${id}`, this.settings.burst).catch((error: Error) => this.onError(error));
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.redis.disconnect();
  }
}

export class NoRateLimiter implements RateLimiter {
  async ready(): Promise<void> {}

  take(): RateDecision {
    return allowed;
  }

  refund(): void {}

  async close(): Promise<void> {}
}
