/**
 * What the coordinates area costs a starting server, measured in a fresh process (run by
 * bench/coordinates.ts): the PROJ engine (WebAssembly instance, proj.db, integrity check), the
 * registry index (read from the setup cache of the data directory given as the argument, or built
 * from proj.db with `--build`), the ranking tables search builds on it, and the setup cache of
 * default transformations. Times are from the process's start, so Node's own start and module
 * loading count too. Prints one JSON line.
 */
import { derivedCachePath, readDerivedCache } from '../src/coordinates/derived-cache.js';
import { indexCachePath, readIndexCache } from '../src/coordinates/index-cache.js';
import { projInfo } from '../src/coordinates/proj/proj.js';
import { loadRegistry } from '../src/coordinates/search/registry.js';
import { prepareRanking } from '../src/coordinates/search/search.js';

const engineReadyMs = performance.now();
projInfo();
const [dataDir, mode] = process.argv.slice(2) as [string, string | undefined];
const indexStart = performance.now();
const saved = mode === '--build' ? null : readIndexCache(indexCachePath(dataDir));
if (saved && 'problem' in saved) throw new Error(`index cache: ${saved.problem}`);
const registry = saved ? saved.registry : loadRegistry();
const indexMs = performance.now() - indexStart;
const rankingStart = performance.now();
prepareRanking(registry);
const rankingMs = performance.now() - rankingStart;
const cacheStart = performance.now();
const cache = readDerivedCache(derivedCachePath(dataDir));
if ('problem' in cache) throw new Error(`default transformations cache: ${cache.problem}`);
const cacheMs = performance.now() - cacheStart;
const round = (ms: number) => Number(ms.toFixed(0));
console.log(
  JSON.stringify({
    index: saved ? 'cache' : 'proj.db',
    engineReadyMs: round(engineReadyMs),
    indexLoadMs: round(indexMs),
    rankingTablesMs: round(rankingMs),
    defaultsLoadMs: round(cacheMs),
    totalMs: round(performance.now()),
  }),
);
