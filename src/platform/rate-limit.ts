import { Redis } from 'ioredis';

export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a request would be allowed again (for `Retry-After`). */
  retryAfter: number;
}

/**
 * A token bucket per API key: `requestsPerSecond` refill, at most `burst` tokens. Kept in
 * memory (one instance) or in Redis (instances share one budget per key).
 */
export interface RateLimiter {
  /** Resolves once the limiter can decide (connected, for Redis). */
  ready(): Promise<void>;
  take(id: string): RateDecision | Promise<RateDecision>;
  close(): Promise<void>;
}

export interface RateLimitSettings {
  requestsPerSecond: number;
  burst: number;
}

const allowed: RateDecision = { allowed: true, retryAfter: 0 };

function refused(waitMs: number): RateDecision {
  return { allowed: false, retryAfter: Math.max(1, Math.ceil(waitMs / 1000)) };
}

export class MemoryRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly settings: RateLimitSettings,
    private readonly now: () => number = () => performance.now(),
  ) {
    // A bucket that has refilled is the same as no bucket: dropping those bounds memory.
    const fullAfterMs = (settings.burst / settings.requestsPerSecond) * 1000;
    this.sweeper = setInterval(() => {
      const horizon = this.now() - fullAfterMs;
      for (const [id, bucket] of this.buckets) if (bucket.at < horizon) this.buckets.delete(id);
    }, Math.max(1000, fullAfterMs));
    this.sweeper.unref();
  }

  async ready(): Promise<void> {}

  take(id: string): RateDecision {
    const { requestsPerSecond: rate, burst } = this.settings;
    const now = this.now();
    const bucket = this.buckets.get(id);
    if (!bucket) {
      this.buckets.set(id, { tokens: burst - 1, at: now });
      return allowed;
    }
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) * rate) / 1000);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return allowed;
    }
    return refused(((1 - bucket.tokens) * 1000) / rate);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

/** The same bucket as a Lua script, so the read-modify-write is atomic across instances. */
const takeScript = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate / 1000)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return wait
`;

type RedisWithTake = Redis & { meridianTake(key: string, rate: number, burst: number): Promise<number> };

/**
 * Redis-backed buckets. When Redis cannot answer in time the request is allowed (fail open):
 * an unavailable limiter must not take the whole API down with it. `onError` hears about it.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: RedisWithTake;

  constructor(
    url: string,
    private readonly prefix: string,
    private readonly settings: RateLimitSettings,
    private readonly onError: (error: Error) => void,
  ) {
    const redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: 500,
      lazyConnect: true,
    });
    redis.on('error', (error: Error) => this.onError(error));
    redis.defineCommand('meridianTake', { numberOfKeys: 1, lua: takeScript });
    this.redis = redis as RedisWithTake;
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

  async take(id: string): Promise<RateDecision> {
    if (this.redis.status !== 'ready') return allowed;
    try {
      const wait = await this.redis.meridianTake(`${this.prefix}${id}`, this.settings.requestsPerSecond, this.settings.burst);
      return wait > 0 ? refused(wait) : allowed;
    } catch (error) {
      this.onError(error as Error);
      return allowed;
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export class NoRateLimiter implements RateLimiter {
  async ready(): Promise<void> {}

  take(): RateDecision {
    return allowed;
  }

  async close(): Promise<void> {}
}
