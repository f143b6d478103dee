import { Type, type TString } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { originAllowed } from './origins.js';
import { keyChangesTopic, type ApiKeyStore, type GateKey } from './store.js';
import { quotaMonth, type QuotaMeter } from './quota.js';
import type { UsageArea, UsageRecorder } from './usage.js';
import { ApiError } from '../platform/errors.js';
import { Lru } from '../platform/lru.js';
import type { KeyRefusal, Metrics } from '../platform/metrics.js';
import { clientNetwork } from '../platform/http/client-network.js';
import { rateLimitedError, rateLimitHeaders, type BucketState, type RateDecision, type RateLimiter } from '../platform/rate-limit.js';
import { hashTokenHex, sameHexHash } from '../platform/secrets.js';
import { DatabaseUnavailableError, type Database } from '../platform/storage/database.js';

export const keyRejectedMessage = 'Key is missing, invalid or restricted';

/**
 * What a refusal adds to the documented words, for a key that exists and was refused by one of its
 * rules: its holder can act on it, and someone without the key learns nothing (the request had to
 * carry the key). The allowed origins and user agent are not named. A missing or unknown key, or
 * one deleted, gets the documented words alone, as guessing keys must learn nothing.
 */
const refusalDetail: Partial<Record<KeyRefusal, string>> = {
  origin: 'this key does not accept requests from this origin (Origin or Referer)',
  'user-agent': 'this key does not accept requests with this User-Agent',
};

/** The key a request was admitted with. */
export interface AdmittedKey {
  id: string;
  accountId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: AdmittedKey | null;
  }
}

/** Why a gated route answers 503 whatever it does: the key could not be checked. */
export const GATE_UNAVAILABLE = 'The key could not be checked: the database is unreachable (past the revocation bound for a key checked before); see Retry-After';

/** Route-schema parts every gated route declares, so the OpenAPI document shows the gate. */
export const gatedRoute = {
  security: [{ apiKey: [] }],
  response: {
    403: { $ref: 'ErrorBody#', description: `${keyRejectedMessage}; a key refused by its origin or user-agent rule says which (\`${keyRejectedMessage}: this key does not accept requests from this origin…\`)` },
    429: { $ref: 'ErrorBody#', description: "Rate limit or monthly quota of the key, or the budget of unknown keys from the client address, exceeded; see Retry-After" },
    503: { $ref: 'ErrorBody#', description: GATE_UNAVAILABLE },
  },
} as const;

/**
 * The `key` query parameter of a gated route. Validation runs after the gate, which refuses a
 * request without a key (403, in `gatedRoute`), so the schema leaves it out of `required` and a
 * handler has it: typed as present.
 */
export const keyParameter = Type.Optional(Type.String({ description: 'API key token' })) as unknown as TString;

/** The 503 response of a gated route that can also be unavailable for a reason of its own. */
export const gatedUnavailable = (reason: string) => ({ $ref: 'ErrorBody#', description: `${reason}; or ${GATE_UNAVAILABLE.charAt(0).toLowerCase()}${GATE_UNAVAILABLE.slice(1)}` }) as const;

export interface KeyGateOptions {
  db: Database;
  keys: ApiKeyStore;
  limiter: RateLimiter;
  /**
   * Budgets of lookups that find no key, per client network: a token this instance knows nothing
   * of costs one before the database is asked, given back when the key exists.
   */
  unknownKeyLimiter: RateLimiter;
  usage: UsageRecorder;
  /** This month's requests of keys with a quota. */
  quotas: QuotaMeter;
  cacheSize: number;
  negativeCacheMs: number;
  negativeCacheSize: number;
  /**
   * The revocation bound: a cached key is trusted only while every key change committed up to
   * this long ago is known to have been heard (or the key was verified this recently).
   */
  revocationBoundMs: number;
  /** Counts refusals by reason and requests over a rate limit. */
  metrics?: Metrics;
}

/** A cached key is verified again after this long even while changes are heard: a backstop. */
const refreshAfterMs = 5 * 60_000;
const maxTokenLength = 256;

/** A key the database returned for a token hash, and when the lookup started (`performance.now()`). */
interface Verified {
  key: GateKey;
  verifiedAt: number;
}

/**
 * The API-key gate in front of every public endpoint: `key` query parameter, origin and
 * user-agent rules, per-key rate limit, usage counting. Verified keys are cached in memory by
 * token hash and dropped by key-change notifications, so a deleted or changed key stops working
 * everywhere as soon as the change commits.
 *
 * A cached key is trusted while this instance has heard every change committed up to
 * `revocationBoundMs` ago: the notification connection's heartbeat tells up to when it heard
 * everything. When it cannot hear (a database outage, a silent partition), cached keys keep
 * working for that long after the last moment it did (or after they were verified, if later),
 * and then need the database again: without it they answer 503, so a key deleted elsewhere during
 * a partition stops working within the bound. When it hears again, each cached key is verified
 * again at its next use, since changes made meanwhile were not heard. A key not cached needs the
 * database at once.
 *
 * Tokens the database does not know are remembered briefly, in a cache of their own, and a client
 * network that keeps sending them runs out of its budget of unknown keys: then tokens this
 * instance knows nothing of are refused (429) before they reach the database.
 */
export class KeyGate {
  /** Keys found, by token hash. */
  private readonly cache: Lru<string, Verified>;
  /** Token hashes the database did not know, for `negativeCacheMs`: apart, so guesses cannot push keys out. */
  private readonly unknown: Lru<string, true>;
  private readonly inflight = new Map<string, Promise<GateKey | null>>();
  /** Bumped by every invalidation, so a lookup that raced with one does not cache stale data. */
  private epoch = 0;
  private listening = false;
  /** Every key change committed before this moment (`performance.now()`) has been heard. */
  private heardUntil = -Infinity;
  /**
   * Keys verified before this moment (`performance.now()`), when the notification connection came
   * back after changes it could not hear, are verified again before they are used: as keys this
   * instance knows, not as guesses charged to the client's budget of unknown keys.
   */
  private verifyAgainBefore = -Infinity;
  private unlisten: (() => Promise<void>) | undefined;

  constructor(private readonly options: KeyGateOptions) {
    this.cache = new Lru(options.cacheSize);
    this.unknown = new Lru(options.negativeCacheSize, { ttlMs: options.negativeCacheMs, now: () => performance.now() });
  }

  async start(): Promise<void> {
    this.options.keys.onChange((hex) => this.invalidate(hex));
    this.unlisten = await this.options.db.listen(keyChangesTopic, {
      onMessage: (hex) => this.invalidate(hex),
      // Cached keys stay: they are trusted for the revocation bound after `heardUntil`.
      onDisconnect: () => {
        this.listening = false;
      },
      // Changes made while this instance could not hear them are unknown: verify every key again.
      onConnect: () => {
        this.verifyAgainBefore = performance.now();
        this.unknown.clear();
        this.listening = true;
        this.heardUntil = performance.now();
      },
      onAlive: (sentAt) => {
        if (this.listening) this.heardUntil = Math.max(this.heardUntil, sentAt);
      },
    });
  }

  async stop(): Promise<void> {
    await this.unlisten?.();
    this.listening = false;
  }

  /**
   * The Fastify `onRequest` hook of an area's routes: admits the request, counted as usage of
   * `area`, or answers 403/429. Written with a callback rather than async so that a cached key
   * with an in-memory limiter is decided synchronously.
   */
  hookFor(area: UsageArea): (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void {
    return (request, reply, done) => this.check(area, request, reply, done);
  }

  private check(area: UsageArea, request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    // Keys travel in the URL, not in cookies, so any web page may read the answer, refusals included.
    reply.header('access-control-allow-origin', '*');
    const token = (request.query as Record<string, unknown> | undefined)?.key;
    if (typeof token !== 'string' || token.length === 0 || token.length > maxTokenLength) {
      done(this.refuse(request, 'missing', null));
      return;
    }
    const hashHex = hashTokenHex(token);
    const failed = (error: Error) => {
      if (error instanceof ApiError && error.failure === 'rate-limited') this.rateLimited(request, 'unknown-keys', null);
      done(error);
    };
    const found = this.lookup(hashHex, request.ip);
    if (found instanceof Promise) {
      found.then((key) => this.admit(area, request, reply, hashHex, key, done), failed);
    } else {
      this.admit(area, request, reply, hashHex, found, done);
    }
  }

  /**
   * The 403 of a refused request, counted and logged with its reason and the key's id when there
   * is one (never the token: it is a credential, and the request's own log line has it redacted).
   */
  private refuse(request: FastifyRequest, reason: KeyRefusal, keyId: string | null): ApiError {
    this.options.metrics?.keyRefused(reason);
    request.log.info({ refusal: reason, keyId }, 'key refused');
    const detail = refusalDetail[reason];
    return new ApiError(detail ? `${keyRejectedMessage}: ${detail}` : keyRejectedMessage, 'forbidden');
  }

  private rateLimited(request: FastifyRequest, limit: 'key' | 'quota' | 'unknown-keys', keyId: string | null): void {
    this.options.metrics?.rateLimited(limit);
    request.log.info({ rateLimit: limit, keyId }, 'rate limited');
  }

  private admit(area: UsageArea, request: FastifyRequest, reply: FastifyReply, hashHex: string, key: GateKey | null, done: (error?: Error) => void): void {
    const headers = request.headers;
    if (!key || !sameHexHash(key.tokenHashHex, hashHex)) {
      done(this.refuse(request, 'unknown', null));
      return;
    }
    if (!originAllowed(key.origins, headers.origin, headers.referer)) {
      done(this.refuse(request, 'origin', key.id));
      return;
    }
    if (key.userAgent !== null && !(headers['user-agent'] ?? '').includes(key.userAgent)) {
      done(this.refuse(request, 'user-agent', key.id));
      return;
    }
    const quota = key.monthlyQuota;
    const limited = (used: number | null) => {
      if (quota !== null && used !== null && used >= quota) {
        this.rateLimited(request, 'quota', key.id);
        done(quotaExhausted(quota));
        return;
      }
      const decided = (decision: RateDecision) => {
        if (!decision.allowed) {
          this.rateLimited(request, 'key', key.id);
          done(rateLimitedError('Rate limit exceeded for this key', decision));
          return;
        }
        if (quota !== null) this.options.quotas.admitted(key.id);
        this.options.usage.record(key.id, key.accountId, area);
        request.apiKey = { id: key.id, accountId: key.accountId };
        const closest = closestLimit(decision.bucket, quota === null || used === null ? null : quotaState(quota, used + 1));
        if (closest) for (const [name, value] of Object.entries(rateLimitHeaders(closest))) reply.header(name, value);
        done();
      };
      const decision = this.options.limiter.take(key.id, key.rateLimit ?? undefined);
      if (decision instanceof Promise) decision.then(decided, done);
      else decided(decision);
    };
    const used = quota === null ? null : this.options.quotas.used(key.id);
    if (used instanceof Promise) used.then(limited, done);
    else limited(used);
  }

  /**
   * How long ago (ms) this instance last knew it had heard every key change: the age the
   * revocation bound is measured against. 0 where no change can be missed (the embedded database).
   */
  heardAgoMs(now = performance.now()): number {
    return Math.max(0, now - this.heardUntil);
  }

  invalidate(tokenHashHex: string): void {
    this.epoch++;
    this.cache.delete(tokenHashHex);
    this.unknown.delete(tokenHashHex);
  }

  /** Whether a cached key may be used without the database (see the class comment). */
  private trusted(entry: Verified, now = performance.now()): boolean {
    return now - Math.max(entry.verifiedAt, this.heardUntil) <= this.options.revocationBoundMs;
  }

  private lookup(hex: string, address: string): Promise<GateKey | null> | GateKey | null {
    const cached = this.cache.get(hex);
    if (cached === undefined) return this.unknown.get(hex) ? null : this.firstLookup(hex, address);
    const now = performance.now();
    if (cached.verifiedAt < this.verifyAgainBefore || !this.trusted(cached, now)) return this.verify(hex);
    if (now - cached.verifiedAt < refreshAfterMs) return cached.key;
    // Due for the backstop check; should the database not answer, the entry is still trusted.
    return this.verify(hex, cached);
  }

  /**
   * A token this instance has no answer for. The client network's budget of unknown keys pays for
   * the query before it is sent, so that many guesses sent at once cannot all reach the database,
   * and gets the token back when the key exists. A lookup already running for the token is joined
   * at no cost.
   */
  private firstLookup(hex: string, address: string): Promise<GateKey | null> {
    const running = this.inflight.get(hex);
    if (running) return running;
    const limiter = this.options.unknownKeyLimiter;
    const client = clientNetwork(address);
    const charged = (decision: RateDecision): Promise<GateKey | null> => {
      if (!decision.allowed) return Promise.reject(rateLimitedError('Too many requests with unknown keys from this address', decision));
      return this.verify(hex).then((key) => {
        if (key) limiter.refund(client);
        return key;
      });
    };
    const decision = limiter.take(client);
    return decision instanceof Promise ? decision.then(charged) : charged(decision);
  }

  /**
   * Looks the token up in the database. Without the database the request fails (503), unless
   * `fallback` is still cached and trusted by then.
   */
  private verify(hex: string, fallback?: Verified): Promise<GateKey | null> {
    const running = this.inflight.get(hex);
    if (running) return running;
    const epoch = this.epoch;
    const verifiedAt = performance.now();
    const lookup = this.options.keys
      .findForGate(hex)
      .then(
        (key) => {
          if (epoch === this.epoch) this.remember(hex, key, verifiedAt);
          return key;
        },
        (error: unknown) => {
          if (error instanceof DatabaseUnavailableError && fallback && this.cache.get(hex) === fallback && this.trusted(fallback)) {
            return fallback.key;
          }
          throw error;
        },
      )
      .finally(() => this.inflight.delete(hex));
    this.inflight.set(hex, lookup);
    return lookup;
  }

  private remember(hex: string, key: GateKey | null, verifiedAt: number): void {
    if (key) {
      this.cache.set(hex, { key, verifiedAt });
      return;
    }
    // A key cached until now is gone (deleted unheard): drop it, so its token is remembered and
    // charged like any unknown one instead of going to the database uncharged on every request.
    this.cache.delete(hex);
    if (this.options.negativeCacheMs > 0) this.unknown.set(hex, true);
  }
}

/** A monthly quota as the `RateLimit-*` headers tell it, after `used` requests this month. */
function quotaState(quota: number, used: number, now = Date.now()): BucketState {
  return { limit: quota, remaining: Math.max(0, quota - used), reset: Math.ceil((quotaMonth(now).resets.getTime() - now) / 1000) };
}

/** The limit nearer to refusing, which the headers tell (as the IETF draft lets a server choose). */
function closestLimit(bucket: BucketState | undefined, quota: BucketState | null): BucketState | null {
  if (!bucket) return quota;
  if (!quota) return bucket;
  return quota.remaining < bucket.remaining ? quota : bucket;
}

/** The 429 of a key whose quota is used up, naming the quota and when it resets. */
function quotaExhausted(quota: number, now = Date.now()): ApiError {
  const state = quotaState(quota, quota, now);
  const resets = quotaMonth(now).resets.toISOString().replace('.000Z', 'Z');
  return new ApiError(`Monthly quota of ${quota} requests for this key is used up; it resets at ${resets}`, 'rate-limited', {
    'retry-after': String(state.reset),
    ...rateLimitHeaders(state),
  });
}
