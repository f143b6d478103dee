/**
 * What the coordinates area costs a starting server, measured in a fresh process (run by
 * bench/coordinates.ts): the PROJ engine (WebAssembly instance, proj.db, integrity check), the
 * registry index, the ranking tables search builds on it, and the setup cache of default
 * transformations (given its file as the argument; none when absent). Times are from the process's
 * start, so Node's own start and module loading count too. Prints one JSON line.
 */
import { readDerivedCache } from '../src/coordinates/derived-cache.js';
import { projInfo } from '../src/coordinates/proj.js';
import { loadRegistry } from '../src/coordinates/registry.js';
import { prepareRanking } from '../src/coordinates/search.js';

const engineReadyMs = performance.now();
projInfo();
const indexStart = performance.now();
const registry = loadRegistry();
const indexMs = performance.now() - indexStart;
const rankingStart = performance.now();
prepareRanking(registry);
const rankingMs = performance.now() - rankingStart;
const cacheStart = performance.now();
const file = process.argv[2];
const cache = file ? readDerivedCache(file) : { problem: 'no file given' };
const cacheMs = performance.now() - cacheStart;
const round = (ms: number) => Number(ms.toFixed(0));
console.log(
  JSON.stringify({
    engineReadyMs: round(engineReadyMs),
    indexLoadMs: round(indexMs),
    rankingTablesMs: round(rankingMs),
    cacheLoadMs: round(cacheMs),
    cachedCrs: 'defaults' in cache ? cache.defaults.size : 0,
    totalMs: round(performance.now()),
  }),
);
