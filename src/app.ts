import path from 'node:path';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import type { DestinationStream } from 'pino';
import { backgroundPool, CoordinatesPool } from './coordinates/pool.js';
import { coordinatesRoutes, coordinatesSchemas, epsgVersion, sharedRegistry } from './coordinates/routes.js';
import { projInfo } from './coordinates/proj/proj.js';
import { coordinatesCaches } from './coordinates/background-cache.js';
import { coordinatesCacheDirectoryOf } from './coordinates/config.js';
import { Geocoder } from './geocoding/geocoder.js';
import { geocodingRoutes, geocodingSchemas } from './geocoding/routes.js';
import { EXTRACT_INDEX_FILE } from './geocoding/extracts/index-file.js';
import type { AdminRequest } from './admin.js';
import { IconLoader } from './maps/static/icons.js';
import { interactiveMapRoutes } from './maps/serve/interactive-routes.js';
import { mapListRoutes } from './maps/list-routes.js';
import { RenderPool } from './maps/render-pool.js';
import { MapRegistry, type MapChange } from './maps/registry.js';
import { reloadMaps, watchMaps } from './maps/map-reload.js';
import { staticMapRoutes } from './maps/static/routes.js';
import { rasterRoutes } from './maps/raster/raster-routes.js';
import { RasterTiles } from './maps/raster/raster-tiles.js';
import { openTileStore } from './maps/raster/open-tile-store.js';
import { wmtsRoutes } from './maps/raster/wmts-routes.js';
import { accountUsageSchema, apiKeyPageSchema, apiKeySchema, keyManagementRoutes } from './keys/routes.js';
import { apiKeySettingsSchema } from './keys/settings.js';
import type { Config } from './config.js';
import type { Meridian } from './meridian.js';
import { logStreamFor } from './platform/log-format.js';
import { controlSocketPath, startControlServer } from './platform/control.js';
import { healthRoutes } from './platform/http/health.js';
import { Metrics } from './platform/metrics.js';
import { metricsRoute } from './platform/http/metrics-route.js';
import { pingRoute } from './keys/ping.js';
import { KeyGate } from './keys/gate.js';
import { QuotaMeter } from './keys/quota.js';
import { consoleBuilt, consoleRoutes } from './platform/http/console.js';
import { landingRoute } from './platform/http/landing.js';
import { apiReferencePageRoutes } from './platform/http/api-reference-page.js';
import { viewerRoutes } from './maps/serve/viewer-routes.js';
import { progressToLog } from './platform/progress.js';
import { weatherRoutes } from './weather/read/routes.js';
import { CatalogMemory } from './weather/read/catalog-memory.js';
import { weatherMoment } from './weather/read/moment.js';
import { scheduleFetches } from './weather/providers/schedule.js';
import { recordServedFolder } from './weather/folder.js';
import { MemoryRateLimiter, NoRateLimiter, RedisRateLimiter, type RateLimiter, type RateLimitSettings } from './platform/rate-limit.js';
import { closeGracefully, createHttpApp, type SharedSchema } from './platform/http/server.js';
import type { Database } from './platform/storage/database.js';


const sharedSchemas = [apiKeySettingsSchema, apiKeySchema, apiKeyPageSchema, accountUsageSchema, ...coordinatesSchemas, ...geocodingSchemas] as unknown as SharedSchema[];

export interface ServerOptions {
  logStream?: DestinationStream | undefined;
}

export interface Server {
  /** Serves the public areas, and key management unless it has a listener of its own. */
  public: FastifyInstance;
  /** Serves key management: the same instance as `public` unless `admin.port` is set. */
  admin: FastifyInstance;
  gate: KeyGate;
  metrics: Metrics;
  /** The world place index and its searches (`geocoder.ready` settles once the index is there). */
  geocoder: Geocoder;
  /** Listens on the configured addresses; resolves to their URLs. */
  listen(): Promise<{ public: string; admin: string }>;
  /** Reads the map definitions again and serves what changed (`serve` calls it on SIGHUP). */
  reloadMaps(cause: string): Promise<MapChange[]>;
  close(): Promise<void>;
}

/**
 * Token buckets of `settings`, in memory or (with `redisUrl`) shared by instances under `prefix`.
 * `perKey`: keys may bring limits of their own, so buckets are kept even when `settings` limit nothing.
 */
function createRateLimiter(settings: RateLimitSettings, prefix: string, config: Config, db: Database, log: FastifyBaseLogger, perKey = false): RateLimiter {
  const { requestsPerSecond, burst } = settings;
  if (requestsPerSecond === 0 && !perKey) return new NoRateLimiter();
  if (!config.redisUrl) return new MemoryRateLimiter({ requestsPerSecond, burst });
  let lastWarning = 0;
  return new RedisRateLimiter(config.redisUrl, `${config.redisKeyPrefix ?? `meridian:${db.schema}:`}${prefix}:`, { requestsPerSecond, burst }, (error) => {
    // Redis errors repeat while it is away; one line a minute says enough.
    if (Date.now() - lastWarning < 60_000) return;
    lastWarning = Date.now();
    log.warn({ err: error }, 'rate limiter cannot reach Redis; requests are not limited meanwhile');
  });
}

/** Builds the HTTP listeners of one instance over an open Meridian. */
export async function createServer(meridian: Meridian, options: ServerOptions = {}): Promise<Server> {
  const { config, db } = meridian;
  const metrics = new Metrics();
  metrics.collectProcessMetrics();
  metrics.watchDatabase(() => db.poolUse());
  metrics.watchWeather(() => meridian.weather.runs());
  const appOptions = { logLevel: config.logLevel, trustProxy: config.trustProxy, logStream: options.logStream ?? logStreamFor(config.logFormat), sharedSchemas, metrics, http: config.http };
  const publicApp = await createHttpApp({ ...appOptions, title: 'Meridian API' });
  const separateAdmin = config.admin.port !== null;
  const adminApp = separateAdmin ? await createHttpApp({ ...appOptions, title: 'Meridian key management API' }) : publicApp;

  const limiter = createRateLimiter(config.rateLimit, 'rate', config, db, publicApp.log, true);
  const managementLimiter = createRateLimiter(config.management, 'management', config, db, publicApp.log);
  const unknownKeyLimiter = createRateLimiter(config.unknownKeys, 'unknown-keys', config, db, publicApp.log);
  await Promise.all([limiter.ready(), managementLimiter.ready(), unknownKeyLimiter.ready()]);
  const gate = new KeyGate({
    db,
    keys: meridian.keys,
    limiter,
    unknownKeyLimiter,
    usage: meridian.usage,
    quotas: new QuotaMeter(db, meridian.usage, config.usage.flushIntervalMs, config.gate.cacheSize),
    cacheSize: config.gate.cacheSize,
    negativeCacheMs: config.gate.negativeCacheMs,
    negativeCacheSize: config.gate.negativeCacheSize,
    // Healthy heartbeats confirm every heartbeatMs; a shorter bound would leave the cache unused.
    revocationBoundMs: Math.max(config.database.revocationBoundMs, 2 * config.database.heartbeatMs),
    metrics,
  });
  // One line when the database stops answering and one when it answers again, not one per request.
  const stopWatchingDatabase = db.onAvailabilityChange((change) => {
    if (change.available) publicApp.log.info({ downMs: Math.round(change.downMs) }, 'database reachable again');
    else publicApp.log.error({ err: change.error }, 'database unreachable: requests that need it answer 503 until it answers again');
  });
  metrics.watchKeyChanges(() => gate.heardAgoMs() / 1000);
  await gate.start();
  meridian.usage.start();

  const engine = projInfo();
  publicApp.log.info({ proj: engine.projVersion, epsg: engine.epsgVersion, registry: engine.databasePath }, 'coordinates engine ready');
  const coordinates = new CoordinatesPool(config.coordinates);
  metrics.watchWorkerPool('coordinates', () => coordinates.load());
  const coordinatesCacheDir = coordinatesCacheDirectoryOf(config);
  const registry = sharedRegistry({ cacheDir: coordinatesCacheDir, log: publicApp.log });
  const background = backgroundPool(coordinates, config.coordinates);
  const caches = coordinatesCaches(coordinatesCacheDir, registry, background, config.coordinates, publicApp.log);
  const geocoder = new Geocoder(config.dataDir, config.geocoding, publicApp.log);
  await geocoder.started;
  const details = {
    epsg: { value: epsgVersion(), description: 'the EPSG dataset version coordinates answer from (as `X-EPSG-Version`)' },
    coordinates_cache: {
      value: caches.status,
      description: 'the coordinates cache of default transformations and exports: `current`, `building: N of M CRSs` (built in the background, saved when complete), `built`, `off` (`coordinates.buildCache` false and none saved) or `failed: …`',
    },
    geocoding_index: {
      value: () => geocoder.status,
      description: 'the world place index geocoding searches: `loaded` (from its file), `building` (on a worker thread; geocoding answers 503 meanwhile), `built`, `off` (`geocoding.buildIndex` false and none saved) or `failed: …`',
    },
    render_threads: {
      value: () => pool.status(),
      description: 'render threads warm (every map opened and drawn once) of `maps.workers`: `2 of 2 warm`; `/ready` answers 503 (`starting`) until each has been warm once, not when one stopped at the time limit is replaced later',
    },
  };
  const readyTimeoutMs = config.database.readyTimeoutMs;
  const starting = () => pool.starting();
  await publicApp.register(healthRoutes, { db, details, readyTimeoutMs, starting });
  await publicApp.register(pingRoute, { gate });
  await publicApp.register(coordinatesRoutes, { gate, registry, deriver: coordinates, transforms: coordinates, defaults: caches.defaults, exports: caches.exports });
  await publicApp.register(geocodingRoutes, { gate, geocoder });
  const weatherMemory = new CatalogMemory(meridian.weather, meridian.weatherDirectory, (unreadable) =>
    publicApp.log.error(
      { directory: meridian.weatherDirectory, runs: unreadable },
      'weather keyframes in the catalog cannot be read from this instance\'s weather folder: they are not listed (is weather.dir the folder the run was written to?)',
    ),
  );
  await recordServedFolder(db, meridian.weatherDirectory);
  await publicApp.register(weatherRoutes, { gate, catalog: meridian.weather, memory: weatherMemory, directory: meridian.weatherDirectory });
  const maps = await MapRegistry.open(config, { log: publicApp.log });
  // The geocoding indexes `maps import` published beside the maps follow them.
  const extractIndexes = () => maps.ids().map((id) => path.join(maps.get(id)!.folder, EXTRACT_INDEX_FILE));
  await geocoder.useExtracts(extractIndexes());
  maps.onReload(() => geocoder.useExtracts(extractIndexes()));
  const stopWatchingMaps = config.maps.watch ? watchMaps(maps, MapRegistry.folderOf(config), publicApp.log) : () => {};
  const pool = new RenderPool(config, metrics);
  await publicApp.register(staticMapRoutes, {
    gate,
    registry: maps,
    pool,
    icons: new IconLoader(config.maps.icons, metrics),
    maxAgeSeconds: config.maps.maxAgeSeconds,
    weather: (variable, time) => weatherMoment(weatherMemory, meridian.weatherDirectory, variable, time),
  });
  const glyphs = (fontstack: string[], start: number) => pool.glyphs(fontstack, start);
  await publicApp.register(interactiveMapRoutes, { gate, registry: maps, glyphs, maxAgeSeconds: config.maps.maxAgeSeconds, publicUrl: config.publicUrl });
  await publicApp.register(mapListRoutes, { gate, registry: maps, publicUrl: config.publicUrl });
  const rasterTiles = new RasterTiles(pool, config.maps.rasterCacheMB * 1024 * 1024, openTileStore(config.maps, config.dataDir, db), publicApp.log, metrics);
  await publicApp.register(rasterRoutes, { gate, registry: maps, tiles: rasterTiles, maxAgeSeconds: config.maps.maxAgeSeconds, publicUrl: config.publicUrl });
  await publicApp.register(wmtsRoutes, { gate, registry: maps, tiles: rasterTiles, maxAgeSeconds: config.maps.maxAgeSeconds, publicUrl: config.publicUrl });
  // The console is served where key management is (it signs in with it); with admin.port, its
  // page calls the public listener, whose address it learns from /console/settings.json.
  let publicListenerUrl: string | null = null;
  const publicApiOrigin = (request: FastifyRequest): string | null => {
    if (config.publicUrl !== null) return config.publicUrl.replace(/\/+$/, '');
    if (publicListenerUrl === null) return null;
    // The public listener's port under the name the admin listener was reached by.
    const listener = new URL(publicListenerUrl);
    return `${listener.protocol}//${request.hostname}:${listener.port}`;
  };
  await publicApp.register(consoleRoutes, { page: separateAdmin ? 'admin' : 'here' });
  if (separateAdmin) await adminApp.register(consoleRoutes, { page: 'here', apiOrigin: publicApiOrigin });
  await publicApp.register(landingRoute);
  await publicApp.register(viewerRoutes);
  await publicApp.register(apiReferencePageRoutes);
  await adminApp.register(keyManagementRoutes, {
    accounts: meridian.accounts,
    keys: meridian.keys,
    limiter: managementLimiter,
    maxKeysPerAccount: config.management.maxKeysPerAccount,
    usage: meridian.usage,
    keyRateLimit: config.rateLimit,
  });
  if (separateAdmin) await adminApp.register(healthRoutes, { db, details, readyTimeoutMs, starting });
  // Metrics are for the operator: on the admin listener, or on the public one only behind a token.
  const metricsServed = separateAdmin || config.metrics.token !== null;
  if (metricsServed) await adminApp.register(metricsRoute, { metrics, token: config.metrics.token });
  await publicApp.ready();
  await adminApp.ready();

  let stopControl: (() => Promise<void>) | undefined;
  let stopFetching = () => {};
  return {
    public: publicApp,
    admin: adminApp,
    gate,
    metrics,
    geocoder,
    async listen() {
      const publicUrl = await publicApp.listen({ port: config.port, host: config.host });
      publicListenerUrl = publicUrl;
      const adminUrl = separateAdmin
        ? await adminApp.listen({ port: config.admin.port!, host: config.admin.host })
        : publicUrl;
      // The render threads warm up once the listeners are open, so that they do not slow the start:
      // `/ready` answers 503 (`starting`) until they are warm, `/health` 200 from now on.
      pool.start();
      stopFetching = scheduleFetches(meridian, publicApp.log);
      // One line that says what this instance serves, for whoever reads the log after a start.
      const origin = config.publicUrl?.replace(/\/$/, '') ?? publicUrl;
      publicApp.log.info(
        {
          // The console is where key management is: the admin listener's when it has its own.
          console: !consoleBuilt() ? 'not built (npm run build)' : separateAdmin ? `${adminUrl}/console/` : `${origin}/console/`,
          catalog: consoleBuilt() ? `${origin}/` : 'not built (npm run build)',
          admin: separateAdmin ? adminUrl : 'on the public listener',
          metrics: !metricsServed ? 'off' : separateAdmin ? `${adminUrl}/metrics` : `${origin}/metrics (bearer token)`,
          maps: maps.ids(),
          weatherRuns: await meridian.weather.runs().then(
            (runs) => runs.map((run) => ({ model: run.model, runs: run.runs, latest: run.latestRun.toISOString() })),
            // Serving goes on without the database; the outage is logged by the availability watch.
            () => 'unknown: the database does not answer',
          ),
          epsg: epsgVersion(),
          database: db.kind,
        },
        'Meridian is serving',
      );
      if (db.kind === 'pglite') {
        // A command's fetch or ingest run by this server shows its progress in the server's log.
        stopControl = await startControlServer(controlSocketPath(config.dataDir), (request) =>
          meridian.admin(request as AdminRequest, progressToLog(publicApp.log, { command: (request as { op?: unknown }).op })),
        );
      }
      return { public: publicUrl, admin: adminUrl };
    },
    reloadMaps: (cause: string) => reloadMaps(maps, publicApp.log, cause),
    async close() {
      stopWatchingMaps();
      stopFetching();
      await stopControl?.();
      await Promise.all([closeGracefully(publicApp), separateAdmin ? closeGracefully(adminApp) : undefined]);
      await gate.stop();
      stopWatchingDatabase();
      await Promise.all([limiter.close(), managementLimiter.close(), unknownKeyLimiter.close()]);
      await pool.close();
      const stopping = caches.stop();
      await coordinates.close();
      await background.close();
      await stopping;
      await geocoder.close();
      await maps.close();
    },
  };
}
