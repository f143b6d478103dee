/**
 * `npm run bench:coordinates`: registry search over a query mix (cold without and with the setup
 * cache of default transformations, then warm; cold with exports=true without and with the setup
 * exports file), the coordinates start-up, and transforming 50 points,
 * in-process and through HTTP, against PROJ's own `cs2cs` doing the same points in the same run.
 *
 * Search is compared with the straightforward alternative, a `LIKE` scan of proj.db's CRS names
 * for the same words (no ranking, no filters, CRSs only): the index must beat it by far.
 * cs2cs is measured two ways: one process per 50 points (what a script calling it pays) and one
 * process for many batches (its transformation speed alone, process start-up amortised).
 *
 * Serving during a cold search sweep: /health asked every 10 ms (open loop) while one client pages
 * through search results nothing has computed yet (`kind:* deprecated:*`, 50 a page, with
 * transformations and exports), on a server whose PROJ work runs on the coordinates pool, against
 * the same routes computing in-line on the serving thread (as before the pool), and an idle server.
 * Each server starts with an empty cache; the in-line sweep runs last, so if anything it is favoured
 * (proj.db in the page cache, a PROJ context that earlier sections used).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { crsInfo, queryRegistry } from '../src/coordinates/proj/proj.js';
import { loadRegistry } from '../src/coordinates/search/registry.js';
import { coordinatesRoutes, coordinatesSchemas, sharedRegistry } from '../src/coordinates/routes.js';
import { derivedCachePath, exportsCachePath, readDerivedCache, readExportsCache } from '../src/coordinates/derived-cache.js';
import { indexCachePath, readIndexCache } from '../src/coordinates/index-cache.js';
import { inlineDeriver, prepareRanking, search, SearchCache, searchWith } from '../src/coordinates/search/search.js';
import { inlineTransforms, parseCoordinates, PlanCache, transformPoints } from '../src/coordinates/transform.js';
import { healthRoutes } from '../src/platform/http/health.js';
import { createHttpApp, type SharedSchema } from '../src/platform/http/server.js';
import { healthLatencies, latencyFigures } from '../test/health-probe.js';
import { newAccount, startTestServer, testConfig } from '../test/helpers.js';
import { defaultConfig } from '../src/config.js';
import { createKey, load, median, percentile, saveResults, startInstance } from './instance.js';

const cases: { label: string; source: number; target: number }[] = [
  { label: 'WGS 84 -> CH1903+/LV95', source: 4326, target: 2056 },
  { label: 'WGS 84 -> UTM 32N', source: 4326, target: 32632 },
  { label: 'WGS 84 -> Web Mercator', source: 4326, target: 3857 },
  { label: 'OSGB 36 BNG -> WGS 84', source: 27700, target: 4326 },
];

/** 50 points spread over the middle of both systems' areas of use, as the URL's tuple text. */
function fiftyPoints(source: number, target: number): string {
  const a = crsInfo(source).bbox!;
  const b = crsInfo(target).bbox!;
  const [west, south, east, north] = [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3], 80)];
  const lonLat = Array.from({ length: 50 }, (_, i) => ({
    x: west + ((east - west) * (0.2 + (0.6 * i) / 49)),
    y: south + ((north - south) * (0.2 + (0.6 * ((i * 7) % 50)) / 49)),
    z: 0,
  }));
  const points = source === 4326 ? lonLat : transformPoints(new PlanCache(), lonLat, 4326, source, []).results;
  return points.map((p) => `${p.x.toFixed(7)},${p.y.toFixed(7)}`).join(';');
}

const northFirst = (code: number) => /^(north|south)$/.test(crsInfo(code).axes[0]?.direction ?? '');

function cs2csInput(source: number, tuples: string, copies: number): string {
  const lines = tuples.split(';').map((tuple) => {
    const [x, y] = tuple.split(',');
    return northFirst(source) ? `${y} ${x}` : `${x} ${y}`;
  });
  return Array.from({ length: copies }, () => lines.join('\n')).join('\n');
}

function timeMs(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function inProcess(source: number, target: number, tuples: string) {
  const cache = new PlanCache();
  const run = () => transformPoints(cache, parseCoordinates(tuples), source, target, []);
  const firstMs = timeMs(run);
  for (let i = 0; i < 200; i++) run();
  const times = Array.from({ length: 2000 }, () => timeMs(run));
  return { firstMs, p50Ms: percentile(times, 50), p95Ms: percentile(times, 95) };
}

function cs2cs(source: number, target: number, tuples: string) {
  const args = ['-f', '%.10f', `EPSG:${source}`, `EPSG:${target}`];
  const once = cs2csInput(source, tuples, 1);
  const perProcess = median(Array.from({ length: 15 }, () => timeMs(() => execFileSync('cs2cs', args, { input: once }))));
  const batches = 2000;
  const many = cs2csInput(source, tuples, batches);
  const amortised = median(Array.from({ length: 3 }, () => timeMs(() => execFileSync('cs2cs', args, { input: many, maxBuffer: 256 * 1024 * 1024 })))) / batches;
  return { perProcessMs: perProcess, amortisedMs: amortised };
}

const queries = [
  'wgs 84', 'swit', 'United Kingdom', 'mercator deprecated:1', 'code:4326', 'finland deprecated:* kind:*', 'utm zone 32',
  'etrs89', 'lambert', 'nad83 texas', 'pulkovo', 'kind:DATUM', 'kind:ELLIPSOID bessel', 'japan', 'gda2020', 'rd new',
  'lv95', 'web mercator', 'kind:COORDOP-COPTRAN ch1903', 'brazil sirgas', 'new zealand', '3857', 'trans:1676', 'ostn',
  'swiss grid', 'germany', 'dhdn', 'nzgd49', 'ntf paris lambert', 'state plane new york', 'navd88', 'polar stereographic',
  'québec lambert', 'mercatr', 'switzerlnd', 'utm 33n', 'itrf2014', 'nad83 csrs', 'sweref', 'cgcs2000', 'kind:CRS-COMPOUNDCRS rd',
  'mexico', 'india', 'south africa', 'korea', 'israel', 'pulkovo 1942 gauss-kruger', 'ed50 utm', 'amersfoort', 'nad27 ohio',
];

/** The setup caches (`meridian coordinates build-cache`, or built by the server in the background). */
const dataDir = process.env.MERIDIAN_DATA_DIR ?? 'data';
const cacheFile = derivedCachePath(dataDir);
const startupScript = fileURLToPath(new URL('./coordinates-startup.js', import.meta.url));

/** A fresh process starting what the coordinates area needs (engine, index, ranking tables, defaults): medians of 5, index from its cache and from proj.db. */
function startup() {
  return ['', '--build'].map((mode) => {
    const runs = Array.from({ length: 5 }, () =>
      JSON.parse(execFileSync(process.execPath, [startupScript, dataDir, ...(mode ? [mode] : [])], { encoding: 'utf8' })) as Record<string, number | string>,
    );
    return Object.fromEntries(Object.keys(runs[0]!).map((field) => [field, field === 'index' ? runs[0]![field] : median(runs.map((run) => run[field] as number))]));
  });
}

async function searchLatency() {
  const cached = readDerivedCache(cacheFile);
  if ('problem' in cached) throw new Error(`${cacheFile}: ${cached.problem}; run \`meridian coordinates build-cache\` first`);
  const start = performance.now();
  const registry = loadRegistry();
  const loadMs = performance.now() - start;
  prepareRanking(registry);
  const options = (query: string) => ({ query, limit: 10, offset: 0, transformations: false, exports: false });
  const run = (query: string) => search(registry, options(query));
  // Cold without the cache: every CRS of a page new, PROJ's operation search in-line.
  const cold = queries.map((query) => timeMs(() => run(query)));
  // Cold with the cache: a registry whose search computed nothing yet (read from the index cache,
  // as a server starts), given the setup file's defaults; 5 rounds, each on a fresh registry and
  // cache, so that the p95 is not the third-slowest of 50 calls on a shared machine.
  const freshRegistry = () => {
    const read = readIndexCache(indexCachePath(dataDir));
    if ('problem' in read) throw new Error(`index cache: ${read.problem}; run \`meridian coordinates build-cache\` first`);
    prepareRanking(read.registry);
    return read.registry;
  };
  /** Each query's first call on a fresh registry and a new cache, in milliseconds. */
  const firstCalls = async (cache: SearchCache, ask: typeof options): Promise<number[]> => {
    const fresh = freshRegistry();
    const times: number[] = [];
    for (const query of queries) {
      const started = performance.now();
      await searchWith(fresh, cache, inlineDeriver, ask(query));
      times.push(performance.now() - started);
    }
    return times;
  };
  const coldCached: number[] = [];
  for (let round = 0; round < 5; round++) coldCached.push(...(await firstCalls(new SearchCache(cached.defaults), options)));
  // exports=true on cold pages: computed in-line (no exports file), and from the setup exports file.
  const withExports = (query: string) => ({ ...options(query), exports: true });
  const coldExports = await firstCalls(new SearchCache(cached.defaults), withExports);
  const exportsStart = performance.now();
  const exportsRead = readExportsCache(exportsCachePath(dataDir));
  const exportsLoadMs = performance.now() - exportsStart;
  if ('problem' in exportsRead) throw new Error(`exports cache: ${exportsRead.problem}; run \`meridian coordinates build-cache\` first`);
  const coldCachedExports = await firstCalls(new SearchCache(cached.defaults, () => exportsRead.exports), withExports);
  for (let i = 0; i < 20; i++) queries.forEach(run);
  const warm = queries.flatMap((query) => Array.from({ length: 50 }, () => timeMs(() => run(query))));
  const like = (query: string) => {
    const words = query.split(/[\s:]+/).filter((w) => w.length > 0);
    const where = words.map(() => 'name LIKE ?').join(' AND ');
    return queryRegistry(`SELECT auth_name, code, name FROM crs_view WHERE ${where} LIMIT 10`, words.map((w) => `%${w}%`));
  };
  const scan = queries.flatMap((query) => Array.from({ length: 5 }, () => timeMs(() => like(query))));
  return {
    indexLoadMs: Number(loadMs.toFixed(0)),
    coldP50Ms: Number(percentile(cold, 50).toFixed(3)),
    coldP95Ms: Number(percentile(cold, 95).toFixed(3)),
    coldCachedP50Ms: Number(percentile(coldCached, 50).toFixed(3)),
    coldCachedP95Ms: Number(percentile(coldCached, 95).toFixed(3)),
    coldExportsP50Ms: Number(percentile(coldExports, 50).toFixed(3)),
    coldExportsP95Ms: Number(percentile(coldExports, 95).toFixed(3)),
    exportsFileLoadMs: Number(exportsLoadMs.toFixed(0)),
    coldCachedExportsP50Ms: Number(percentile(coldCachedExports, 50).toFixed(3)),
    coldCachedExportsP95Ms: Number(percentile(coldCachedExports, 95).toFixed(3)),
    warmP50Ms: Number(percentile(warm, 50).toFixed(4)),
    warmP95Ms: Number(percentile(warm, 95).toFixed(4)),
    likeScanP50Ms: Number(percentile(scan, 50).toFixed(3)),
    warmVsLikeScan: Number((percentile(warm, 50) / percentile(scan, 50)).toFixed(4)),
  };
}

/** One client paging through cold results, one page after another; resolves to the pages fetched. */
async function coldSweep(base: string, key: string): Promise<number> {
  const query = encodeURIComponent('kind:* deprecated:*');
  let pages = 0;
  for (let offset = 2600; offset < 4600; offset += 50) {
    const response = await fetch(`${base}/coordinates/search/${query}.json?limit=50&offset=${offset}&transformations=true&exports=true&key=${key}`);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`offset ${offset}: ${response.status}`);
    pages++;
  }
  return pages;
}

async function servingDuringColdSearches() {
  const { meridian, server, close } = await startTestServer(testConfig());
  // The same routes and gate, computing PROJ data on the serving thread (each server has its own cache).
  const inline = await createHttpApp({ logLevel: 'silent', trustProxy: false, title: 'in-line', sharedSchemas: coordinatesSchemas as unknown as SharedSchema[], http: defaultConfig.http });
  try {
    await inline.register(healthRoutes, { db: meridian.db, details: {}, readyTimeoutMs: meridian.config.database.readyTimeoutMs, starting: () => null });
    await inline.register(coordinatesRoutes, { gate: server.gate, registry: sharedRegistry(), deriver: inlineDeriver, transforms: inlineTransforms() });
    const { public: base } = await server.listen();
    const inlineBase = await inline.listen({ port: 0, host: '127.0.0.1' });
    const { accountId } = await newAccount(meridian);
    const key = (await meridian.keys.create(accountId, {})).token;
    const runs: [string, string, () => Promise<number>][] = [
      ['idle server (3 s)', base, () => new Promise((resolve) => setTimeout(() => resolve(0), 3000))],
      ['cold search sweep, PROJ on the coordinates pool', base, () => coldSweep(base, key)],
      ['cold search sweep, PROJ on the serving thread', inlineBase, () => coldSweep(inlineBase, key)],
    ];
    const results = [];
    for (const [name, probed, work] of runs) {
      const started = performance.now();
      const sweep = work();
      const latencies = await healthLatencies(probed, sweep);
      const seconds = (performance.now() - started) / 1000;
      const pages = await sweep;
      results.push({
        while: name,
        seconds: Number(seconds.toFixed(1)),
        pagesPerSecond: Number((pages / seconds).toFixed(1)),
        ...latencyFigures(latencies),
      });
    }
    return results;
  } finally {
    await inline.close();
    await close();
  }
}

async function main() {
  const searchFigures = await searchLatency();
  console.log(
    `Search over ${queries.length} queries, in-process (cold: first call, PROJ fields computed in-line; cold cached: first call with the setup cache, 5 rounds; exports: the same with exports=true)`,
  );
  console.table([searchFigures]);
  const startFigures = startup();
  console.log('Coordinates start-up in a fresh process (median of 5; ms from the process start)');
  console.table(startFigures);

  const transform = [];
  for (const { label, source, target } of cases) {
    const tuples = fiftyPoints(source, target);
    const ours = inProcess(source, target, tuples);
    const peer = cs2cs(source, target, tuples);
    transform.push({
      case: label,
      meridianP50Ms: Number(ours.p50Ms.toFixed(4)),
      meridianP95Ms: Number(ours.p95Ms.toFixed(4)),
      meridianFirstMs: Number(ours.firstMs.toFixed(2)),
      cs2csPerProcessMs: Number(peer.perProcessMs.toFixed(2)),
      cs2csAmortisedMs: Number(peer.amortisedMs.toFixed(4)),
      vsCs2csAmortised: Number((ours.p50Ms / peer.amortisedMs).toFixed(2)),
      vsCs2csProcess: Number((ours.p50Ms / peer.perProcessMs).toFixed(4)),
    });
  }
  console.log('50-point transform in-process (parse + transform), against cs2cs on the same points');
  console.table(transform);

  const instance = await startInstance();
  let http;
  try {
    const key = await createKey(instance);
    const tuples = fiftyPoints(4326, 2056);
    const result = await load({ url: `${instance.base}/coordinates/transform/${tuples}.json?t_srs=2056&key=${key}`, connections: 20 });
    http = {
      case: 'WGS 84 -> CH1903+/LV95, 50 points a request, 20 connections',
      requestsPerSecond: Math.round(result.requests.average),
      pointsPerSecond: Math.round(result.requests.average * 50),
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
    };
  } finally {
    await instance.stop();
  }
  console.log('Through HTTP (gate, parsing, JSON), one server process');
  console.table([http]);

  const serving = await servingDuringColdSearches();
  console.log('/health every 10 ms while one client pages through 40 cold search pages (pool: what a server does; serving thread: before the pool)');
  console.table(serving);
  saveResults('coordinates', { search: searchFigures, startup: startFigures, transform, http, serving });
}

await main();
