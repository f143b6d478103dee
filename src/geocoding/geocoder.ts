/**
 * The geocoder of one instance: the world place index, read from its cache file at start-up or,
 * when there is none (the first start on a data directory, or data that changed), built on a
 * worker thread while the server serves everything else (unless `geocoding.buildIndex` is false:
 * then `meridian geocoding build-index` builds it); geocoding requests answer 503 with
 * `Retry-After` until it is there. Searches run on the serving thread: a warm forward search takes
 * well under a millisecond to a few (see the guide's measurements), less than handing it to a thread.
 *
 * With it, the index of every extract imported as a map (`maps import` writes `geocoding.v8` beside
 * the maps, extracts/index-file.ts): the composition hands over the files of the maps loaded
 * (`useExtracts`) at start-up and after every maps reload, and searches cover the world and them,
 * ranked together.
 */

import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../platform/errors.js';
import { WorkerPool } from '../platform/worker-pool.js';
import type { GeocodingConfig } from './config.js';
import { readExtractIndex } from './extracts/index-file.js';
import { extractFeatureOf } from './extracts/features.js';
import { rankExtract } from './extracts/forward.js';
import type { ExtractIndex } from './extracts/extract-index.js';
import { reverseExtracts } from './extracts/reverse.js';
import { attributionOf, featureOf, GEONAMES, NATURAL_EARTH, OPENSTREETMAP, type FeatureCollection, type GeocodingFeature } from './features.js';
import { rank } from './forward.js';
import { readIndexCache, worldIndexPath } from './index-cache.js';
import type { BuildTask } from './index-worker.js';
import { parseOptions, parsePosition, queryWords, type GeocodingQuery, type SearchOptions } from './parameters.js';
import type { PlaceIndex } from './place-index.js';
import { reverse } from './reverse.js';

/** A build that takes longer than this (minutes on a machine busy with other work) is given up and logged. */
const BUILD_TIMEOUT_MS = 600_000;
export const INDEX_BUILDING = 'The geocoding index is being built (seconds after the first start on a data directory); try again after Retry-After';
export const INDEX_OFF = 'The geocoding index is not built: run `meridian geocoding build-index` (geocoding.buildIndex is false)';
export const INDEX_FAILED = 'The geocoding index could not be built: see the server log';

/** What `/ready` says of the index. */
export type IndexStatus = 'loaded' | 'building' | 'built' | 'off' | `failed: ${string}`;

export class Geocoder {
  private index: PlaceIndex | null = null;
  private knownCountries = new Set<string>();
  private readonly pool = new WorkerPool<BuildTask, { ms: number; bytes: number }>({
    filename: new URL('./index-worker.js', import.meta.url),
    threads: 1,
    queue: 0,
    timeoutMs: BUILD_TIMEOUT_MS,
    tasks: 'geocoding index builds',
  });
  private readonly file: string;
  /** The extracts' indexes by file. */
  private extracts = new Map<string, ExtractIndex>();
  private extractsLoading: Promise<void> = Promise.resolve();
  private closed = false;
  private state: IndexStatus = 'building';
  /** Settles when the cache file has been read, or found missing or stale. */
  readonly started: Promise<void>;
  /** Settles when the index is there (or its build failed: logged, and requests answer 503). */
  readonly ready: Promise<void>;

  constructor(dataDir: string, config: GeocodingConfig, private readonly log: FastifyBaseLogger) {
    this.file = worldIndexPath(dataDir);
    const read = this.read(config.buildIndex);
    this.started = read.then(() => {});
    this.ready = read.then((found) => {
      if (found) return;
      if (config.buildIndex) return this.build();
      this.state = 'off';
    });
  }

  /** `loaded` from its file, `building`, `built` by this server, `off` (not built, not to be) or `failed: …`. */
  get status(): IndexStatus {
    return this.state;
  }

  private async read(build: boolean): Promise<boolean> {
    const started = performance.now();
    const read = await readIndexCache(this.file);
    if ('problem' in read) {
      if (build) this.log.info({ file: this.file, problem: read.problem }, 'geocoding index: building it on a worker thread');
      else this.log.warn({ file: this.file, problem: read.problem }, 'geocoding index missing and geocoding.buildIndex is false: geocoding answers 503 until `meridian geocoding build-index` builds it');
      return false;
    }
    this.use(read.index);
    this.state = 'loaded';
    this.log.info({ file: this.file, places: read.index.kind.length, ms: Math.round(performance.now() - started) }, 'geocoding index loaded from its cache');
    return true;
  }

  private async build(): Promise<void> {
    try {
      const built = await this.pool.run({ file: this.file }, 'The geocoding index was not built');
      if (this.closed) return;
      const started = performance.now();
      const read = await readIndexCache(this.file);
      if ('problem' in read) throw new Error(`the index just built cannot be read: ${read.problem}`);
      this.use(read.index);
      this.state = 'built';
      this.log.info({ file: this.file, places: read.index.kind.length, buildMs: built.ms, bytes: built.bytes, readMs: Math.round(performance.now() - started) }, 'geocoding index built');
    } catch (error) {
      this.state = `failed: ${(error as Error).message}`;
      if (!this.closed) this.log.error({ err: error }, 'geocoding index could not be built: geocoding answers 503');
    }
  }

  private use(index: PlaceIndex): void {
    this.index = index;
    this.knownCountries = new Set(index.countries.map((country) => country.code));
  }

  private current(): PlaceIndex {
    if (!this.index) {
      const message = this.state === 'off' ? INDEX_OFF : this.state === 'building' ? INDEX_BUILDING : INDEX_FAILED;
      // Only a build in progress is a 503 reason of its own (`starting`); an index that is off or failed is logged once, at start.
      throw new ApiError(message, 'unavailable', { 'retry-after': this.state === 'building' ? '5' : '60' }, this.state === 'building' ? 'starting' : undefined);
    }
    return this.index;
  }

  /**
   * Searches the indexes in these files from now on (the folders of the maps loaded: a map added
   * from an archive has none, and adds nothing). A file that cannot be read is logged and left out.
   */
  useExtracts(files: readonly string[]): Promise<void> {
    this.extractsLoading = this.extractsLoading.then(async () => {
      const next = new Map<string, ExtractIndex>();
      for (const file of new Set(files)) {
        const known = this.extracts.get(file);
        if (known) {
          next.set(file, known);
          continue;
        }
        const read = await readExtractIndex(file);
        if ('index' in read) next.set(file, read.index);
        else if (read.problem !== 'no file') this.log.error({ file, problem: read.problem }, 'geocoding index of an imported map cannot be read: its streets and addresses are not searched');
      }
      const changed = next.size !== this.extracts.size || [...next.keys()].some((file) => !this.extracts.has(file));
      this.extracts = next;
      if (changed) this.log.info({ maps: [...next.values()].map((index) => index.map).sort(), entries: [...next.values()].reduce((sum, index) => sum + index.kind.length, 0) }, 'geocoding: imported maps searched');
    });
    return this.extractsLoading;
  }

  /** The map ids whose extracts are searched. */
  extractMaps(): string[] {
    return [...this.extracts.values()].map((index) => index.map).sort();
  }

  /** Forward (`text` is a name) or reverse (`text` is `longitude,latitude`) geocoding. */
  search(text: string, query: GeocodingQuery, acceptLanguage: string | undefined): FeatureCollection {
    const position = parsePosition(text);
    const words = position ? null : queryWords(text);
    const index = this.current();
    const options = parseOptions(query, acceptLanguage, (code) => this.knownCountries.has(code));
    return position ? this.reverse(index, position[0], position[1], options) : this.forward(index, words!, options);
  }

  /** The world's places and the extracts' entries, ranked in one list by their scores. */
  private forward(index: PlaceIndex, words: readonly string[], options: SearchOptions): FeatureCollection {
    const world = rank(index, words, options).map((r) => ({ score: r.score, entry: r.entry, feature: () => featureOf(index, r.entry, r.relevance, options.languages, index.nameText[r.name]) }));
    const extracts = [...this.extracts.values()]
      .flatMap((extract) => rankExtract(extract, words, options))
      .map((r) => ({ score: r.score, entry: -1, feature: () => extractFeatureOf(r.index, r.entry, r.relevance, options.languages, index, r.index.nameText[r.name]) }));
    const chosen = [...world, ...extracts].sort((a, b) => b.score - a.score).slice(0, options.limit);
    const places = chosen.filter((c) => c.entry >= 0);
    return {
      type: 'FeatureCollection',
      features: chosen.map((c) => c.feature()),
      query: [...words],
      attribution: attribution(index, places, chosen.length - places.length),
    };
  }

  /** What is at the point: the extracts' address, point of interest and street there, then the world's place and country. */
  private reverse(index: PlaceIndex, lon: number, lat: number, options: SearchOptions): FeatureCollection {
    const hits = reverseExtracts([...this.extracts.values()], lon, lat, options);
    const world = reverse(index, lon, lat, options);
    const features: GeocodingFeature[] = [...hits.map((hit) => extractFeatureOf(hit.index, hit.entry, 1, options.languages, index)), ...world.features].slice(0, options.limit);
    const osm = Math.min(hits.length, features.length);
    return { ...world, features, attribution: osm > 0 ? attribution(index, [], osm) : world.attribution };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
  }
}

/** The attribution of an answer of world places and `osm` extract entries (whose places and countries come from GeoNames and Natural Earth). */
function attribution(index: PlaceIndex, places: readonly { entry: number }[], osm: number): string {
  return osm === 0 ? attributionOf(index, places) : [OPENSTREETMAP, GEONAMES, NATURAL_EARTH].join(' ');
}
