/**
 * `npm run bench:static`, load: what an operator's server gives under load, against MapLibre GL JS
 * in the same run. A `meridian serve` process with one render thread per core, asked through HTTP
 * for the `world` map and the `west-oakland` streets map (the quick start's), at 512x512 and
 * 1024x768@2x PNG.
 *
 * Every image is a new view of a loaded area: a base view moved by up to PAN_PX CSS pixels either
 * way and zoomed by up to ZOOM_JITTER either way (the tile zoom stays the base's), each URL asked
 * for once in the whole run. The server keeps no image of a centre request (only the catalog's
 * thumbnails, asked for by bounds, are kept: `x-cache`), so every answer is a render; the bench
 * counts any `x-cache: hit` and fails on a repeated URL. Warm: before measuring, the area's edges
 * (EDGES) are asked for by as many clients at once as there are render threads, then a second of
 * views, round after round until a round reads no tile (the render threads' tile-cache misses, read
 * from `/metrics`); every measured run reports its tile reads too (0 expected). MapLibre's page is
 * shown the same edges until it fetches no tile.
 *
 * Per map and size, the sides taking turns:
 *  - ours, closed loop: 1, 2 and 4 clients (MERIDIAN_BENCH_LOAD_CLIENTS), each asking as soon as
 *    its previous image arrived, for MERIDIAN_BENCH_LOAD_SECONDS (20) each: images per second (per
 *    core: divided by the render threads, one per core), p50 / p95 / p99 from sending to the last
 *    byte, and the server process's CPU seconds per thousand images (/proc/<pid>/stat, all threads);
 *  - MapLibre, after each of those, for half as long: new views of its loaded page back to back
 *    (jumpTo → idle → toBlob PNG, bench/maplibre-peer.ts `sequence`): images per second, and the
 *    CPU seconds per thousand images of every Chromium process;
 *  - ours, open loop, at 50% and 80% of the capacity, requests sent at Poisson arrivals whatever
 *    the answers, and at 80% once more with evenly spaced arrivals: p50 and p99 counted from each
 *    request's scheduled time, and every error and 503. The capacity is measured just before each
 *    of these runs (4 clients, closed loop, half a run), since the share of the cores that the other
 *    work on a shared machine leaves the server changes within a minute; the run takes its share of
 *    the lower of that and the closed loop's capacity. Beside each, the p99/p50 that queueing alone
 *    would give at the same rate and arrivals, with two render threads and image times drawn from
 *    the one-client run (queueing.ts): the part of the tail the images' own spread and the arrivals
 *    make, whatever the server does.
 *  - for every run of ours, where the slowest 1% of the answers and those at the median spent their
 *    time, from the server's `Server-Timing` (waiting for a render thread, on it, the rest of the
 *    server) and the client's clock (outside the server).
 *
 * Per core: ours is the capacity divided by the render threads; MapLibre's the images per second of
 * its one page (a MapLibre-based server runs one map per core). Both sides' CPU per image is the
 * other figure, and the one that a shared machine (other work taking the cores) moves least.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { project, unproject } from '../src/platform/web-mercator.js';
import { chromiumCpuSeconds, processCpuSeconds, threadTimes, threadUse } from './cpu.js';
import { queueingTail } from './queueing.js';
import { createKey, keepAliveAgent, percentile, saveResults, startInstance, type Instance } from './instance.js';
import type { PeerPage, PeerSize, PeerView } from './maplibre-peer.js';
import { startPeerMaps } from './peer-maps.js';
import { streetMaps, worldMaps } from './world.js';

/**
 * The load generator's heap floor, MiB. On its default heap (about 10 MB live) this process ran a
 * mark-compact every second under load (42 in a 45 s run of the tail harness, 3 with the floor):
 * each paused the sending and reading of requests, counted in their times, and marked beside the
 * server on the same cores (docs/benchmarks.md, "Label rasters kept"). V8 reads the flag when it
 * makes a heap, so the bench starts itself again with it.
 */
const CLIENT_OLD_SPACE_MB = 256;
if (!process.execArgv.some((arg) => arg.startsWith('--initial-old-space-size'))) {
  const run = spawnSync(process.execPath, [`--initial-old-space-size=${CLIENT_OLD_SPACE_MB}`, ...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

const seconds = Number(process.env.MERIDIAN_BENCH_LOAD_SECONDS ?? 20);
const clientCounts = (process.env.MERIDIAN_BENCH_LOAD_CLIENTS ?? '1,2,4').split(',').map(Number);
/** Runs only the images whose name (`west-oakland 512x512`) holds this, for a quick look. */
const only = process.env.MERIDIAN_BENCH_LOAD_ONLY ?? '';
const cores = availableParallelism();
const METRICS_TOKEN = 'meridian-bench-load-metrics';
/** How far a view moves from its base, in CSS pixels either way, and how far it zooms either way. */
const PAN_PX = 96;
const ZOOM_JITTER = 0.25;
/** The open-loop runs: fraction of the capacity and how requests arrive. */
const OPEN_RUNS = [
  { share: 0.5, arrivals: 'poisson' },
  { share: 0.8, arrivals: 'poisson' },
  { share: 0.8, arrivals: 'uniform' },
] as const;

const sizes: (PeerSize & { name: string })[] = [
  { name: '512x512', width: 512, height: 512, pixelRatio: 1 },
  { name: '1024x768@2x', width: 1024, height: 768, pixelRatio: 2 },
];

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}

/** New views around a base, none given twice. */
class Views {
  private readonly next: () => number;
  private readonly given = new Set<string>();

  constructor(
    private readonly base: PeerView,
    seed: number,
  ) {
    this.next = random(seed);
  }

  /** A view anywhere in the area, or by `at` (pixels and zoom from the base; moved by under a pixel so that it is new). */
  view(at?: { dx: number; dy: number; dz: number }): PeerView {
    for (;;) {
      const world = 512 * 2 ** this.base.zoom;
      const [x, y] = project(this.base.center[0], this.base.center[1], world);
      const [dx, dy, dz] = at ? [at.dx + this.next() - 0.5, at.dy + this.next() - 0.5, at.dz] : [(this.next() * 2 - 1) * PAN_PX, (this.next() * 2 - 1) * PAN_PX, (this.next() * 2 - 1) * ZOOM_JITTER];
      const [lon, lat] = unproject(x + dx, y + dy, world);
      const view: PeerView = { center: [Number(lon.toFixed(6)), Number(lat.toFixed(6))], zoom: Number((this.base.zoom + dz).toFixed(3)) };
      const name = `${view.center[0]},${view.center[1]},${view.zoom}`;
      if (this.given.has(name)) continue;
      this.given.add(name);
      return view;
    }
  }
}

/**
 * The views at the edges of the area: its corners at the lowest zoom (drawn from the tiles of the
 * zoom below the base's, vector tiles being taken at the zoom's floor, as MapLibre does) and at the
 * base's zoom (the widest drawn from the base's tiles). Every view of the area reads a subset.
 */
const EDGES = [-ZOOM_JITTER, 0].flatMap((dz) => [-PAN_PX, PAN_PX].flatMap((dx) => [-PAN_PX, PAN_PX].map((dy) => ({ dx, dy, dz }))));

interface Answer {
  /** HTTP status, or 0 when the connection failed. */
  status: number;
  ms: number;
  bytes: number;
  hit: boolean;
  /** The server's own account (`Server-Timing`), ms: waiting for a render thread, on it, and in the server in all. */
  server?: { queue: number; render: number; total: number };
}

/** `queue;dur=0.02;desc="…", render;dur=14.31, total;dur=14.92` → its three figures; undefined when one is missing. */
function serverTiming(header: string | undefined): Answer['server'] {
  const dur = (name: string) => Number(new RegExp(`(?:^|, )${name};dur=([\\d.]+)`).exec(header ?? '')?.[1] ?? Number.NaN);
  const timing = { queue: dur('queue'), render: dur('render'), total: dur('total') };
  return Object.values(timing).every(Number.isFinite) ? timing : undefined;
}

/** One GET, its time counted from `since` (a request's scheduled time in the open loop). */
function get(url: string, agent: http.Agent, since = performance.now()): Promise<Answer> {
  return new Promise((resolve) => {
    http
      .get(url, { agent }, (response) => {
        let bytes = 0;
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('error', () => resolve({ status: 0, ms: performance.now() - since, bytes, hit: false }));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, ms: performance.now() - since, bytes, hit: response.headers['x-cache'] === 'hit', server: serverTiming(response.headers['server-timing'] as string | undefined) }),
        );
      })
      .on('error', () => resolve({ status: 0, ms: performance.now() - since, bytes: 0, hit: false }));
  });
}

/** What one run of ours gave. */
interface Run {
  images: number;
  seconds: number;
  imagesPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  unavailable: number;
  cacheHits: number;
  tileMisses: number;
  cpuSeconds: number;
  cpuPerThousand: number;
  /** CPU milliseconds per image by kind of thread, and milliseconds per image those threads waited for a core. */
  threads: { name: string; cpu: number; waited: number }[];
  meanKB: number;
  /**
   * Where the slowest 1% of the answers spent their time, mean ms (the server's `Server-Timing`):
   * waiting for a render thread, on it, the rest of their time in the server, and outside it (the
   * network and the client); and the same for the answers at the median, to set beside them.
   */
  tail: Spent;
  median: Spent;
}

interface Spent {
  queue: number;
  render: number;
  server: number;
  outside: number;
}

type Timed = Answer & { server: NonNullable<Answer['server']> };

/** The mean of where `answers`' time went. */
function spent(answers: Answer[]): Spent {
  const timed = answers.filter((answer): answer is Timed => answer.server !== undefined);
  const mean = (of: (answer: Timed) => number) => timed.reduce((sum, answer) => sum + of(answer), 0) / Math.max(1, timed.length);
  return {
    queue: mean((answer) => answer.server.queue),
    render: mean((answer) => answer.server.render),
    server: mean((answer) => answer.server.total - answer.server.queue - answer.server.render),
    outside: mean((answer) => answer.ms - answer.server.total),
  };
}

/** `node` threads started this long after the process are its pools' worker threads (V8's and libuv's start with it). */
const HELPERS_START_S = 0.5;

/**
 * The server's threads by what they do: the serving thread (the process's first), the worker
 * threads (`node` threads started once the server was up: the render pool starts its threads when
 * the server listens, the other pools on demand; under this load, the render threads), V8's helpers
 * and libuv's pool (the other `node` threads, there from the start: garbage collection, compilation,
 * file reads), libvips (sharp's encoding), and the rest by name.
 */
function threadKind(pid: number): (tid: number, name: string, started: number) => string {
  const processStarted = threadTimes(pid).get(pid)!.started;
  return (tid, name, started) => {
    if (tid === pid) return 'serving';
    if (name === 'node') return started - processStarted < HELPERS_START_S ? 'V8 and libuv helpers' : 'render threads';
    if (name.startsWith('libvips')) return 'libvips (encoding)';
    return name;
  };
}

class Server {
  private readonly kind: (tid: number, name: string, started: number) => string;

  constructor(
    readonly instance: Instance,
    readonly key: string,
  ) {
    this.kind = threadKind(instance.pid);
  }

  url(map: string, size: PeerSize, view: PeerView): string {
    const scale = size.pixelRatio === 2 ? '@2x' : '';
    return `${this.instance.base}/api/maps/${map}/static/${view.center[0]},${view.center[1]},${view.zoom}/${size.width}x${size.height}${scale}.png?key=${this.key}`;
  }

  /** Tile reads the render threads' caches missed so far (they report after each task). */
  async tileMisses(): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await fetch(`${this.instance.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const match = /meridian_cache_lookups_total\{cache="render-tiles",result="miss"\} (\d+)/.exec(await response.text());
    return match ? Number(match[1]) : 0;
  }

  /** Measures `work`, which gives the answers it had: times, errors, CPU and tile reads. */
  async measure(work: () => Promise<Answer[]>): Promise<Run> {
    const misses = await this.tileMisses();
    const cpu = processCpuSeconds(this.instance.pid);
    const threads = threadTimes(this.instance.pid);
    const started = performance.now();
    const answers = await work();
    const elapsed = (performance.now() - started) / 1000;
    const cpuSeconds = processCpuSeconds(this.instance.pid) - cpu;
    const ok = answers.filter((answer) => answer.status === 200);
    const times = ok.map((answer) => answer.ms);
    const perImage = (seconds: number) => (seconds * 1000) / Math.max(1, ok.length);
    return {
      threads: threadUse(threads, threadTimes(this.instance.pid), this.kind).map(({ name, cpu, waited }) => ({ name, cpu: perImage(cpu), waited: perImage(waited) })),
      images: ok.length,
      seconds: elapsed,
      imagesPerSecond: ok.length / elapsed,
      p50: percentile(times, 50),
      p95: percentile(times, 95),
      p99: percentile(times, 99),
      errors: answers.filter((answer) => answer.status !== 200 && answer.status !== 503).length,
      unavailable: answers.filter((answer) => answer.status === 503).length,
      cacheHits: answers.filter((answer) => answer.hit).length,
      tileMisses: (await this.tileMisses()) - misses,
      cpuSeconds,
      cpuPerThousand: (cpuSeconds / Math.max(1, ok.length)) * 1000,
      meanKB: ok.reduce((sum, answer) => sum + answer.bytes, 0) / Math.max(1, ok.length) / 1024,
      ...(() => {
        const byTime = [...ok].sort((a, b) => a.ms - b.ms);
        const share = Math.max(1, Math.floor(byTime.length / 100));
        const middle = Math.max(0, Math.floor(byTime.length / 2) - Math.floor(share / 2));
        return { tail: spent(byTime.slice(-share)), median: spent(byTime.slice(middle, middle + share)) };
      })(),
    };
  }
}

/** `clients` clients, each asking for the next view as soon as its previous image arrived, for `ms`. */
function closedLoop(next: () => string, clients: number, ms: number): Promise<Answer[]> {
  const end = performance.now() + ms;
  const answers: Answer[] = [];
  return Promise.all(
    Array.from({ length: clients }, async () => {
      const agent = keepAliveAgent();
      while (performance.now() < end) answers.push(await get(next(), agent));
      agent.destroy();
    }),
  ).then(() => answers);
}

/**
 * Requests sent at `rate` a second for `ms`, whatever the answers: Poisson arrivals (exponential
 * gaps) or evenly spaced. Each one's time counts from when it was due, so a late send is not hidden.
 */
async function openLoop(next: () => string, rate: number, ms: number, arrivals: 'poisson' | 'uniform', seed: number): Promise<Answer[]> {
  const agent = new http.Agent({ keepAlive: true });
  const gap = random(seed);
  const start = performance.now();
  const pending: Promise<Answer>[] = [];
  for (let at = 0; ; ) {
    at += arrivals === 'poisson' ? (-Math.log(1 - gap()) / rate) * 1000 : 1000 / rate;
    if (at >= ms) break;
    const wait = start + at - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(get(next(), agent, start + at));
  }
  const answers = await Promise.all(pending);
  agent.destroy();
  return answers;
}

/** What MapLibre gave over its turns. */
interface Theirs {
  images: number;
  seconds: number;
  imagesPerSecond: number;
  p50: number;
  p95: number;
  cpuSeconds: number;
  cpuPerThousand: number;
  /** Chromium's CPU seconds per second: how many cores it kept busy. */
  cores: number;
  fetched: number;
  meanKB: number;
}

interface Result {
  image: string;
  closed: (Run & { clients: number; perCore: number })[];
  /** The highest closed-loop rate. */
  capacity: number;
  /**
   * Each open-loop run: the capacity it was a share of (the lower of the probe just before it and
   * the closed loop's), the probe, the rate it asked at, and the p99/p50 that queueing alone gives
   * at that rate and arrivals with one client's image times (queueing.ts).
   */
  open: (Run & { share: number; arrivals: string; capacity: number; probe: number; rate: number; queueing: number | undefined })[];
  maplibre: Theirs;
  /** Ours against MapLibre per core: images per second (wall), and CPU per image. */
  ratio: { wall: number; cpu: number };
}

async function measureImage(server: Server, peerPage: PeerPage, map: string, size: PeerSize & { name: string }, base: PeerView, seed: number): Promise<Result> {
  const image = `${map} ${size.name}`;
  const keepAliveAgents = Array.from({ length: cores }, () => keepAliveAgent());
  const ours = new Views(base, seed);
  const theirs = new Views(base, seed + 1);
  const next = () => server.url(map, size, ours.view());
  const asked = new Set<string>();
  const once = () => {
    const url = next();
    if (asked.has(url)) throw new Error(`${url} asked for twice`);
    asked.add(url);
    return url;
  };

  // Warm: every render thread and MapLibre's page hold the area's tiles. Each edge is asked for by
  // as many clients at once as there are threads, so that each thread draws it, until a round reads no tile.
  for (let round = 1; ; round++) {
    const warm = await server.measure(async () => {
      const answers: Answer[] = [];
      for (const edge of EDGES) {
        answers.push(...(await Promise.all(Array.from({ length: cores }, (_, i) => get(server.url(map, size, ours.view(edge)), keepAliveAgents[i]!)))));
      }
      answers.push(...(await closedLoop(once, cores, 1000)));
      return answers;
    });
    if (warm.errors + warm.unavailable > 0) throw new Error(`${image}: ${warm.errors} errors and ${warm.unavailable} 503s while warming`);
    if (warm.tileMisses === 0 && round > 1) break;
    if (round === 10) throw new Error(`${image}: still reading tiles after ${round} warm rounds`);
  }
  for (let round = 1; ; round++) {
    const warm = await peerPage.sequence([...EDGES.map((edge) => theirs.view(edge)), ...Array.from({ length: 10 }, () => theirs.view())], 'png', 120_000);
    if (warm.fetched === 0 && round > 1) break;
    if (round === 5) throw new Error(`${image}: MapLibre still fetching tiles after ${round} warm rounds`);
  }

  for (const agent of keepAliveAgents) agent.destroy();

  const closed: Result['closed'] = [];
  const theirTimes: number[] = [];
  const theirTurns = { images: 0, ms: 0, cpu: 0, fetched: 0, bytes: 0 };
  /** One client's times: each image's cost with no queue, which the queueing model draws from. */
  let alone: number[] = [];
  for (const clients of clientCounts) {
    const run = await server.measure(async () => {
      const answers = await closedLoop(once, clients, seconds * 1000);
      if (clients === 1) alone = answers.filter((answer) => answer.status === 200).map((answer) => answer.ms);
      return answers;
    });
    closed.push({ clients, ...run, perCore: run.imagesPerSecond / cores });
    console.log(`  ${image}: ours, ${clients} client(s): ${run.imagesPerSecond.toFixed(1)} images/s, p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms, ${run.cpuPerThousand.toFixed(1)} CPU s per 1000`);
    console.log(`    where the time went, ms (Server-Timing): slowest 1% ${spentText(run.tail)}; median ${spentText(run.median)}`);
    console.log(`    per image, CPU ms (waiting for a core, ms): ${breakdown(run)}`);

    const cpu = chromiumCpuSeconds();
    const turn = await peerPage.sequence(Array.from({ length: Math.ceil(seconds * 200) }, () => theirs.view()), 'png', (seconds * 1000) / 2);
    theirTurns.cpu += chromiumCpuSeconds() - cpu;
    theirTurns.images += turn.times.length;
    theirTurns.ms += turn.ms;
    theirTurns.fetched += turn.fetched;
    theirTurns.bytes += turn.bytes;
    theirTimes.push(...turn.times);
    console.log(`  ${image}: MapLibre: ${((turn.times.length / turn.ms) * 1000).toFixed(1)} images/s`);
  }
  const capacity = Math.max(...closed.map((run) => run.imagesPerSecond));

  // The share of the machine the server gets moves with the other work on it within a minute: each
  // open-loop rate is a share of the capacity measured just before it, by the most clients, for half
  // a run, or of the closed loop's if that was lower: half a run can catch a quiet moment (63.5
  // images/s against 55.1 minutes before, in one run), and a rate above capacity only measures a queue.
  const open: Result['open'] = [];
  for (const [i, { share, arrivals }] of OPEN_RUNS.entries()) {
    const probe = await server.measure(() => closedLoop(once, Math.max(...clientCounts), (seconds * 1000) / 2));
    const runCapacity = Math.min(probe.imagesPerSecond, capacity);
    const rate = runCapacity * share;
    const run = await server.measure(() => openLoop(once, rate, seconds * 1000, arrivals, seed + 10 + i));
    const model = alone.length > 0 ? queueingTail(alone, cores, rate, arrivals, seed + 20 + i) : undefined;
    const queueing = model ? model.p99 / model.p50 : undefined;
    open.push({ share, arrivals, capacity: runCapacity, probe: probe.imagesPerSecond, rate, queueing, ...run });
    console.log(`  ${image}: ours, open loop at ${(share * 100).toFixed(0)}% of ${runCapacity.toFixed(1)}/s (probe ${probe.imagesPerSecond.toFixed(1)}/s; ${rate.toFixed(1)}/s, ${arrivals}): p50 ${run.p50.toFixed(1)} ms, p99 ${run.p99.toFixed(1)} ms (queueing alone: p99/p50 ${queueing?.toFixed(2) ?? '-'}), ${run.errors} errors, ${run.unavailable} 503s, server busy ${(run.cpuSeconds / run.seconds).toFixed(2)} cores`);
    console.log(`    where the time went, ms (Server-Timing): slowest 1% ${spentText(run.tail)}; median ${spentText(run.median)}`);
  }

  const theirSeconds = theirTurns.ms / 1000;
  const maplibre: Theirs = {
    images: theirTurns.images,
    seconds: theirSeconds,
    imagesPerSecond: theirTurns.images / theirSeconds,
    p50: percentile(theirTimes, 50),
    p95: percentile(theirTimes, 95),
    cpuSeconds: theirTurns.cpu,
    cpuPerThousand: (theirTurns.cpu / Math.max(1, theirTurns.images)) * 1000,
    cores: theirTurns.cpu / theirSeconds,
    fetched: theirTurns.fetched,
    meanKB: theirTurns.bytes / Math.max(1, theirTurns.images) / 1024,
  };
  const peak = closed.reduce((best, run) => (run.imagesPerSecond > best.imagesPerSecond ? run : best));
  return {
    image,
    closed,
    capacity,
    open,
    maplibre,
    ratio: { wall: capacity / cores / maplibre.imagesPerSecond, cpu: maplibre.cpuPerThousand / peak.cpuPerThousand },
  };
}

/** The issue's targets, each with whether this run met it. */
function targets(results: Result[], streets: string): { target: string; figure: string; holds: boolean }[] {
  const rows: { target: string; figure: string; holds: boolean }[] = [];
  for (const [size, times] of [['512x512', 3], ['1024x768@2x', 4]] as const) {
    const result = results.find((r) => r.image === `${streets} ${size}`);
    if (!result) continue;
    rows.push({ target: `streets ${size} PNG: ≥ ${times}x MapLibre's images/s per core (wall)`, figure: `${result.ratio.wall.toFixed(2)}x`, holds: result.ratio.wall >= times });
    rows.push({ target: `streets ${size} PNG: ≥ ${times}x MapLibre's images per CPU second`, figure: `${result.ratio.cpu.toFixed(2)}x`, holds: result.ratio.cpu >= times });
  }
  for (const result of results) {
    const at80 = result.open.find((run) => run.share === 0.8 && run.arrivals === 'poisson')!;
    const even80 = result.open.find((run) => run.share === 0.8 && run.arrivals === 'uniform')!;
    // A p50 far above one client's says the server was past its capacity (the machine's other work took it): the ratio then says little.
    const alone = `one client's p50 ${result.closed[0]!.p50.toFixed(0)} ms`;
    const floor = (run: Result['open'][number]) => `queueing alone ${run.queueing?.toFixed(2) ?? '-'}x`;
    rows.push({ target: `${result.image}: at 80% (Poisson) p99 ≤ 2.5x p50`, figure: `${(at80.p99 / at80.p50).toFixed(2)}x (p50 ${at80.p50.toFixed(0)}, p99 ${at80.p99.toFixed(0)} ms; ${alone}; ${floor(at80)})`, holds: at80.p99 <= 2.5 * at80.p50 });
    rows.push({ target: `${result.image}: at 80% (even) p99 ≤ 2.5x p50`, figure: `${(even80.p99 / even80.p50).toFixed(2)}x (p50 ${even80.p50.toFixed(0)}, p99 ${even80.p99.toFixed(0)} ms; ${alone}; ${floor(even80)})`, holds: even80.p99 <= 2.5 * even80.p50 });
    const failures = result.open.reduce((sum, run) => sum + run.errors + run.unavailable, 0);
    rows.push({ target: `${result.image}: no error, no 503 at 50% and 80%`, figure: `${failures}`, holds: failures === 0 });
  }
  return rows;
}

/** A run's CPU per image by kind of thread, and their wait for a core. */
const breakdown = (run: Run) =>
  run.threads
    .filter((thread) => thread.cpu >= 0.05)
    .map((thread) => `${thread.name} ${thread.cpu.toFixed(1)} (${thread.waited.toFixed(1)})`)
    .join(', ');

const spentText = (time: Spent) => `queue ${time.queue.toFixed(1)}, render ${time.render.toFixed(1)}, rest of the server ${time.server.toFixed(1)}, outside ${time.outside.toFixed(1)}`;
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const f1 = (value: number) => value.toFixed(1);

const maps = await worldMaps();
const streets = await streetMaps(maps.dir);
const subjects: { map: string; base: PeerView }[] = [
  { map: 'world', base: { center: [10, 50], zoom: 4 } },
  { map: streets.id, base: { center: [-122.3004, 37.8076], zoom: 16 } },
];
const instance = await startInstance({ MERIDIAN_MAPS_DIR: maps.dir, MERIDIAN_MAPS_WORKERS: String(cores), MERIDIAN_METRICS_TOKEN: METRICS_TOKEN });
const peerMaps = await startPeerMaps(maps.dir, streets);
try {
  const server = new Server(instance, await createKey(instance));
  const started = { date: new Date().toISOString(), uptime: uptime(), load: loadavg() };
  console.log(`load phase: ${cores} render threads (one per core), ${seconds} s a run; ${started.date}; ${started.uptime}`);
  const results: Result[] = [];
  let seed = 1;
  for (const { map, base } of subjects) {
    for (const size of sizes) {
      if (!`${map} ${size.name}`.includes(only)) continue;
      const page = await peerMaps.peer.open(peerMaps.styles[map], size, base);
      try {
        results.push(await measureImage(server, page, map, size, base, (seed += 100)));
      } finally {
        await page.close();
      }
    }
  }
  const ended = { date: new Date().toISOString(), uptime: uptime(), load: loadavg() };

  console.log(`\nload phase, ${started.date} to ${ended.date}; load average ${started.load.map(f1).join(' ')} at its start, ${ended.load.map(f1).join(' ')} at its end`);
  console.log(`closed loop (ours, ${cores} render threads): images/s (per core), p50 / p95 / p99 ms, server CPU s per 1000 images, cores the server kept busy; tile reads and cache hits should be 0`);
  for (const result of results) {
    for (const run of result.closed) {
      console.log(`${result.image.padEnd(26)} ${run.clients} client(s) | ${f1(run.imagesPerSecond).padStart(6)} (${f1(run.perCore).padStart(5)}) | ${f1(run.p50).padStart(6)} ${f1(run.p95).padStart(6)} ${f1(run.p99).padStart(6)} | ${f1(run.cpuPerThousand).padStart(6)} | ${(run.cpuSeconds / run.seconds).toFixed(2)} | errors ${run.errors}, 503 ${run.unavailable}, tile reads ${run.tileMisses}, hits ${run.cacheHits}`);
    }
  }
  console.log('where a warm image spends the server\'s CPU at capacity: CPU ms per image by thread (ms per image those threads waited for a core)');
  for (const result of results) {
    const peak = result.closed.reduce((best, run) => (run.imagesPerSecond > best.imagesPerSecond ? run : best));
    console.log(`${result.image.padEnd(26)} ${peak.clients} client(s) | ${breakdown(peak)}`);
  }
  console.log('open loop (ours): capacity (the lower of the probe just before and the closed loop\'s), rate asked, rate answered, p50 / p99 ms (from each request\'s due time), p99/p50 measured and from queueing alone, cores the server kept busy, errors, 503s');
  for (const result of results) {
    for (const run of result.open) {
      console.log(`${result.image.padEnd(26)} ${String(run.share * 100).padStart(3)}% ${run.arrivals.padEnd(7)} | ${f1(run.capacity).padStart(6)} ${f1(run.rate).padStart(6)} ${f1(run.imagesPerSecond).padStart(6)} | ${f1(run.p50).padStart(6)} ${f1(run.p99).padStart(6)} | ${(run.p99 / run.p50).toFixed(2)} ${run.queueing?.toFixed(2) ?? '-'} | ${(run.cpuSeconds / run.seconds).toFixed(2)} | errors ${run.errors}, 503 ${run.unavailable}, tile reads ${run.tileMisses}`);
    }
  }
  console.log('against MapLibre (one page, new views back to back): images/s, p50 ms, CPU s per 1000 images, cores busy | ours: capacity per core, CPU s per 1000 at capacity | ratio per core: wall, CPU');
  for (const result of results) {
    const peak = result.closed.reduce((best, run) => (run.imagesPerSecond > best.imagesPerSecond ? run : best));
    const { maplibre } = result;
    console.log(
      `${result.image.padEnd(26)} | ${f1(maplibre.imagesPerSecond).padStart(6)} ${f1(maplibre.p50).padStart(6)} ${f1(maplibre.cpuPerThousand).padStart(7)} ${maplibre.cores.toFixed(2)} | ${f1(result.capacity / cores).padStart(6)} ${f1(peak.cpuPerThousand).padStart(6)} | ${result.ratio.wall.toFixed(2)}x ${result.ratio.cpu.toFixed(2)}x${maplibre.fetched > 0 ? ` (MapLibre fetched ${maplibre.fetched} tiles)` : ''}`,
    );
  }
  const table = targets(results, streets.id);
  console.log('targets (issue 34)');
  for (const row of table) console.log(`${row.holds ? 'holds  ' : 'MISSED '} ${row.target}: ${row.figure}`);
  saveResults('static-load', { loadSeconds: seconds, cores, panPx: PAN_PX, zoomJitter: ZOOM_JITTER, subjects, started, ended, results, targets: table });
} finally {
  await peerMaps.close();
  await instance.stop();
  if (maps.temporary) rmSync(maps.dir, { recursive: true, force: true });
}
