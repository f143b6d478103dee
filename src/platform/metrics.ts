/**
 * The one metrics registry of an instance, in the Prometheus text format (prom-client), served at
 * `/metrics` (see metrics-route.ts). Areas record through the small methods below and never touch
 * prom-client; what is read rather than counted (queue depth, cache sizes, database pool, weather
 * runs) is asked of its owner at scrape time through a `watch*` callback. Labels take bounded
 * values only: route patterns, never URLs; reasons and names from fixed lists.
 */

import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { unavailableReasonOf } from './errors.js';

/** Why the key gate refused a request. */
export type KeyRefusal = 'missing' | 'unknown' | 'origin' | 'user-agent';

/** Which budget a rate-limited request ran out of. */
export type RateLimit = 'key' | 'quota' | 'unknown-keys' | 'management';

/** What a cache holds; `bytes` when the cache weighs its entries. */
export interface CacheSize {
  entries: number;
  bytes?: number;
}

/** Tasks of a worker pool now on a thread and waiting for one. */
export interface PoolLoad {
  running: number;
  waiting: number;
}

/** Connections of the database pool: open ones, the idle among them, and callers waiting for one. */
export interface DatabasePoolUse {
  open: number;
  idle: number;
  waiting: number;
  max: number;
}

/** One model's runs in the weather catalog. */
export interface WeatherRuns {
  model: string;
  runs: number;
  /** Reference time of its newest run. */
  latestRun: Date;
  /** When a run of it was last ingested. */
  lastIngest: Date;
}

const latencyBuckets = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const renderBuckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class Metrics {
  readonly registry = new Registry();
  private readonly caches = new Map<string, () => CacheSize>();
  private readonly pools = new Map<string, () => PoolLoad>();
  private database: (() => DatabasePoolUse | null) | null = null;
  private keyChangesHeard: (() => number) | null = null;
  private weather: (() => Promise<WeatherRuns[]>) | null = null;
  /** The weather runs of the scrape under way. */
  private scrapedWeather: Promise<WeatherRuns[]> | null = null;

  private readonly requests = new Counter({
    name: 'meridian_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status, and for a 503 its reason (timeout, queue, database, budget, starting)',
    labelNames: ['method', 'route', 'status', 'reason'] as const,
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'meridian_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: latencyBuckets,
    registers: [this.registry],
  });
  private readonly renderSeconds = new Histogram({
    name: 'meridian_render_duration_seconds',
    help: 'Time a render-pool task took on its thread, by kind (render: static image, metatile: raster tiles, glyphs) and map (empty for glyphs)',
    labelNames: ['kind', 'map'] as const,
    buckets: renderBuckets,
    registers: [this.registry],
  });
  private readonly tileSeconds = new Histogram({
    name: 'meridian_raster_tile_duration_seconds',
    help: 'Time to get a raster tile, by where it came from (memory, store, render)',
    labelNames: ['origin'] as const,
    buckets: latencyBuckets,
    registers: [this.registry],
  });
  private readonly cacheLookups = new Counter({
    name: 'meridian_cache_lookups_total',
    help: 'Cache lookups, by cache and result (hit or miss)',
    labelNames: ['cache', 'result'] as const,
    registers: [this.registry],
  });
  private readonly keyRefusals = new Counter({
    name: 'meridian_key_refusals_total',
    help: 'Requests the key gate refused (403), by reason',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly rateLimits = new Counter({
    name: 'meridian_rate_limited_total',
    help: 'Requests refused for a spent rate-limit budget (429), by budget',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  });

  constructor() {
    const metrics = this;
    new Gauge({
      name: 'meridian_cache_entries',
      help: 'Entries a cache holds',
      labelNames: ['cache'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [cache, size] of metrics.caches) this.set({ cache }, size().entries);
      },
    });
    new Gauge({
      name: 'meridian_cache_bytes',
      help: 'Bytes the entries of a cache weigh (caches that weigh them)',
      labelNames: ['cache'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [cache, size] of metrics.caches) {
          const { bytes } = size();
          if (bytes !== undefined) this.set({ cache }, bytes);
        }
      },
    });
    new Gauge({
      name: 'meridian_worker_pool_tasks',
      help: 'Tasks of a worker pool, running on a thread or waiting in its queue',
      labelNames: ['pool', 'state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [pool, load] of metrics.pools) {
          const { running, waiting } = load();
          this.set({ pool, state: 'running' }, running);
          this.set({ pool, state: 'waiting' }, waiting);
        }
      },
    });
    new Gauge({
      name: 'meridian_database_pool_connections',
      help: 'PostgreSQL pool connections: open, idle, the most allowed, and callers waiting for one (absent on PGlite)',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        const use = metrics.database?.();
        if (!use) return;
        for (const state of ['open', 'idle', 'waiting', 'max'] as const) this.set({ state }, use[state]);
      },
    });
    new Gauge({
      name: 'meridian_key_changes_heard_age_seconds',
      help: 'Seconds since this instance last knew it had heard every key change (its notification connection answered); past the revocation bound, cached keys need the database (0 on PGlite)',
      registers: [this.registry],
      collect() {
        const age = metrics.keyChangesHeard?.();
        if (age !== undefined) this.set(age);
      },
    });
    // The three weather gauges are read concurrently at a scrape; they share one catalog query.
    const weatherGauge = (name: string, help: string, value: (model: WeatherRuns, now: number) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['model'] as const,
        registers: [this.registry],
        async collect() {
          this.reset();
          const now = Date.now();
          for (const model of await metrics.weatherRuns()) this.set({ model: model.model }, value(model, now));
        },
      });
    weatherGauge('meridian_weather_runs', 'Runs of a model in the weather catalog', (model) => model.runs);
    weatherGauge('meridian_weather_latest_run_age_seconds', "Seconds since the reference time of a model's newest run in the catalog", (model, now) => (now - model.latestRun.getTime()) / 1000);
    weatherGauge('meridian_weather_last_ingest_age_seconds', 'Seconds since a run of a model was last ingested', (model, now) => (now - model.lastIngest.getTime()) / 1000);
  }

  /** The catalog's runs for this scrape: one query, shared by the gauges that read them. */
  private weatherRuns(): Promise<WeatherRuns[]> {
    // A scrape during a database outage still answers, without the weather gauges.
    this.scrapedWeather ??= this.weather ? this.weather().catch(() => []) : Promise.resolve([]);
    return this.scrapedWeather;
  }

  /** Node's process metrics: CPU, memory, heap, garbage collection, event-loop lag (one instance per process serves them). */
  collectProcessMetrics(): void {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts every response of `app` and its time, by route pattern (`unmatched` for no route). */
  instrument(app: FastifyInstance): void {
    app.addHook('onResponse', (request, reply, done) => {
      const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
      const reason = reply.statusCode === 503 ? unavailableReasonOf(request) : undefined;
      this.requests.inc(reason ? { ...labels, reason } : labels);
      this.requestSeconds.observe(labels, reply.elapsedTime / 1000);
      done();
    });
  }

  /** `map`: a configured map's id (so the label's values are bounded by the maps), or '' for work of no map. */
  renderTime(kind: string, map: string, seconds: number): void {
    this.renderSeconds.observe({ kind, map }, seconds);
  }

  rasterTileTime(origin: string, seconds: number): void {
    this.tileSeconds.observe({ origin }, seconds);
  }

  /** One lookup, or `count` of them (counts reported by other threads). */
  cacheLookup(cache: string, hit: boolean, count = 1): void {
    this.cacheLookups.inc({ cache, result: hit ? 'hit' : 'miss' }, count);
  }

  keyRefused(reason: KeyRefusal): void {
    this.keyRefusals.inc({ reason });
  }

  rateLimited(limit: RateLimit): void {
    this.rateLimits.inc({ limit });
  }

  watchCache(cache: string, size: () => CacheSize): void {
    this.caches.set(cache, size);
  }

  watchWorkerPool(pool: string, load: () => PoolLoad): void {
    this.pools.set(pool, load);
  }

  watchDatabase(use: () => DatabasePoolUse | null): void {
    this.database = use;
  }

  /** `age`: seconds since every key change was last known to be heard. */
  watchKeyChanges(age: () => number): void {
    this.keyChangesHeard = age;
  }

  watchWeather(runs: () => Promise<WeatherRuns[]>): void {
    this.weather = runs;
  }

  /** The scrape: every metric in the Prometheus text format. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    this.scrapedWeather = null;
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
