/**
 * The maps of an instance: every definition in the maps folder (`<id>.json`, top level only: keep
 * style files and tile data in subfolders) and in the `maps.definitions` setting (which wins over
 * a file of the same id), each loaded with its style validated and its sources opened.
 *
 * A map that cannot load (bad definition, unreadable or invalid style, a source that cannot open)
 * is left out with one error line, and listed by `loadErrors()`: one broken map must not keep the
 * others from being served. Opening is cheap enough to happen once per render thread: each
 * registry has its own file handles, read-only SQLite connections and tile cache.
 *
 * Paths: a definition file's relative `style` path resolves against the file's folder; one of a
 * definition in the configuration against the maps folder; relative paths inside a style (tiles,
 * archives, GeoJSON, TileJSON, sprite, glyphs) against the style file's folder, or for an inline
 * style against the folder its definition's style path would resolve against. In the loaded
 * style, local `sprite` and `glyphs` references are rewritten as absolute `file:` URLs (the
 * `{fontstack}` and `{range}` tokens kept), so whoever reads them needs no folder.
 *
 * The sprite is read once per pixel ratio, when first wanted, and kept with the map; the 1x one
 * while the map loads, so that a broken sprite is logged then, once. A map whose sprite cannot be
 * read still renders, without its images, as MapLibre GL JS does.
 */

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { validateStyleMin, type SourceSpecification, type StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { MapsConfig } from './config.js';
import { DEFAULT_MAXZOOM, DEFAULT_MINZOOM, MAP_ID, parseDefinition, type MapDefinition, type Schema } from './definition.js';
import { mapExtent, type Center } from './extent.js';
import type { Bounds } from './static/fit.js';
import { FORMATS, type Format } from './image-format.js';
import { TileCache } from '../render/source/cache.js';
import type { HttpOptions } from '../render/source/http.js';
import { silentLog, type Log } from '../render/source/log.js';
import { resolveSource } from '../render/source/resolve.js';
import type { MapSource, TileSource } from '../render/source/source.js';
import { hasScheme, localPath } from '../render/source/template.js';
import { mapRevision } from './revision.js';
import { NotFoundError } from '../platform/errors.js';
import { FontCatalog } from '../render/glyphs/catalog.js';
import { defaultSpriteLimits, loadSprite, type ImageSet } from '../render/sprite/sprite.js';

export interface LoadedMap {
  id: string;
  /** The validated style document as loaded (local sprite and glyphs made absolute `file:` URLs). */
  style: StyleSpecification;
  sources: ReadonlyMap<string, MapSource>;
  formats: readonly Format[];
  /** '' when none. */
  attribution: string;
  minzoom: number;
  maxzoom: number;
  /** The definition's name, else the style's, else the id. */
  name: string;
  /** Where its data is: west, south, east, north in degrees (extent.ts). */
  bounds: Bounds;
  /** Where it opens: longitude, latitude and zoom (extent.ts). */
  center: Center;
  /** The tile schema its style draws, as `maps import` or `maps add` recorded it; null when unknown. */
  schema: Schema | null;
  /** What its images are drawn from, fingerprinted (revision.ts): images made under another revision are stale. */
  revision: string;
  /** The folder of its style file (of its definition for an inline style): where an import keeps the map's other files. */
  folder: string;
  /** The sprite's images for a pixel ratio (the `@2x` files above 1); empty when it has none or they cannot be read. */
  images(pixelRatio: number): Promise<ImageSet>;
  /** The fonts its text is drawn with, by the names of `text-font`. */
  fonts(): FontCatalog;
  close(): Promise<void>;
}

export interface LoadOptions {
  cache: TileCache;
  log?: Log;
  http?: HttpOptions;
  /** The font catalog (default: the system's fonts only), opened when first asked for. */
  fonts?: () => FontCatalog;
}

/** The font catalog of an installation: the system's fonts and those of `<dataDir>/fonts`. */
export function installedFonts(dataDir: string): FontCatalog {
  return FontCatalog.default([path.join(dataDir, 'fonts')]);
}

export interface MapLoadError {
  id: string;
  message: string;
}

/** Style validation problems shown in an error before "and N more". */
const SHOWN_PROBLEMS = 3;

async function readStyle(style: MapDefinition['style'], baseDir: string): Promise<{ document: unknown; folder: string }> {
  if (typeof style !== 'string') return { document: style, folder: baseDir };
  const file = localPath(style, baseDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read style ${file}: ${(error as Error).message}`);
  }
  try {
    return { document: JSON.parse(text), folder: path.dirname(file) };
  } catch (error) {
    throw new Error(`style ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

function checkStyle(document: unknown): StyleSpecification {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new Error('invalid style: not a JSON object');
  const problems = validateStyleMin(document as StyleSpecification).filter((problem) => problem.severity !== 'warning');
  if (problems.length > 0) {
    const shown = problems.slice(0, SHOWN_PROBLEMS).map((problem) => problem.message);
    const more = problems.length > SHOWN_PROBLEMS ? ` (and ${problems.length - SHOWN_PROBLEMS} more)` : '';
    throw new Error(`invalid style: ${shown.join('; ')}${more}`);
  }
  return document as StyleSpecification;
}

/** A local reference as an absolute file: URL; URLs of any scheme stay as they are. */
function absoluteReference(reference: string, folder: string): string {
  if (hasScheme(reference)) return reference;
  return pathToFileURL(localPath(reference, folder)).href.replace(/%7B(fontstack|range)%7D/g, '{$1}');
}

function withAbsoluteReferences(style: StyleSpecification, folder: string): StyleSpecification {
  const { sprite, glyphs } = style;
  return {
    ...style,
    ...(sprite === undefined
      ? {}
      : { sprite: typeof sprite === 'string' ? absoluteReference(sprite, folder) : sprite.map((entry) => ({ ...entry, url: absoluteReference(entry.url, folder) })) }),
    ...(glyphs === undefined ? {} : { glyphs: absoluteReference(glyphs, folder) }),
  };
}

async function closeAll(sources: Iterable<TileSource>): Promise<void> {
  await Promise.allSettled([...sources].map((source) => source.close()));
}

/**
 * Loads one map: reads and validates its style, opens its sources. Throws an Error whose message
 * says what is wrong; nothing stays open then.
 */
export async function loadMap(id: string, definition: MapDefinition, baseDir: string, options: LoadOptions): Promise<LoadedMap> {
  if (!MAP_ID.test(id)) throw new Error(`"${id}" is not a valid map id (1 to 64 of A-Z, a-z, 0-9, _ and -)`);
  const checked = parseDefinition(definition);
  const { document, folder } = await readStyle(checked.style, baseDir);
  const style = withAbsoluteReferences(checkStyle(document), folder);

  const entries = Object.entries(style.sources) as [string, SourceSpecification][];
  const opened = await Promise.allSettled(
    entries.map(([sourceId, spec]) =>
      resolveSource(sourceId, spec, { baseDir: folder, cache: options.cache, log: options.log ?? silentLog, mapName: `map "${id}"`, http: options.http }).catch(
        (error: Error) => Promise.reject(new Error(`source "${sourceId}": ${error.message}`)),
      ),
    ),
  );
  const sources = new Map<string, MapSource>();
  opened.forEach((result, i) => {
    if (result.status === 'fulfilled') sources.set(entries[i]![0], result.value);
  });
  const failed = opened.find((result) => result.status === 'rejected');
  if (failed) {
    await closeAll(sources.values());
    throw failed.reason;
  }

  const log = options.log ?? silentLog;
  const spriteLimits = { ...defaultSpriteLimits, ...(options.http ? { timeoutMs: options.http.timeoutMs } : {}) };
  const imageSets = new Map<number, Promise<ImageSet>>();
  const images = (pixelRatio: number): Promise<ImageSet> => {
    const ratio = pixelRatio > 1 ? 2 : 1;
    let set = imageSets.get(ratio);
    if (!set) {
      set = loadSprite(style.sprite, ratio, spriteLimits).then(({ images, errors }) => {
        for (const error of errors) log.error(`map "${id}": ${error}; drawn without its images`);
        return images;
      });
      imageSets.set(ratio, set);
    }
    return set;
  };
  await images(1);

  const attributions = [...new Set([...sources.values()].map((source) => source.attribution).filter((text): text is string => !!text))];
  const minzoom = checked.minzoom ?? DEFAULT_MINZOOM;
  const maxzoom = checked.maxzoom ?? DEFAULT_MAXZOOM;
  return {
    id,
    style,
    sources,
    formats: checked.formats ?? FORMATS,
    attribution: checked.attribution ?? attributions.join(' '),
    minzoom,
    maxzoom,
    name: checked.name ?? style.name ?? id,
    ...mapExtent(checked, [...sources.values()].map((source) => source.bounds), minzoom, maxzoom),
    schema: checked.schema ?? null,
    revision: await mapRevision(checked, style, folder),
    folder,
    images,
    fonts: options.fonts ?? (() => FontCatalog.default()),
    close: () => closeAll(sources.values()),
  };
}

/** Reads a map's definition, with the folder its relative style path resolves against. */
type DefinitionReader = () => Promise<{ definition: MapDefinition; baseDir: string }>;

function looksLikeStyle(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'version' in value && 'layers' in value && !('style' in value);
}

async function readDefinitionFile(file: string): Promise<MapDefinition> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (looksLikeStyle(value)) {
    throw new Error(`${file} is a style, not a map definition ({ "style": … }): keep style files in a subfolder of the maps folder`);
  }
  try {
    return parseDefinition(value);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/** What a registry is opened with: the maps section and the data folder it defaults under. */
export interface RegistrySettings {
  dataDir: string;
  maps: MapsConfig;
}

/** What a reload changed, one entry per map whose state changed (unchanged maps are left out). */
export interface MapChange {
  id: string;
  /**
   * `added`, `updated` (a new revision serves), `removed`; `kept` when the new definition cannot
   * load and the previous version goes on serving; `failed` when a map that was not serving still
   * cannot load.
   */
  change: 'added' | 'updated' | 'removed' | 'kept' | 'failed';
  message?: string;
}

/** How long a replaced map stays open for the requests that still read it. */
const RETIRE_AFTER_MS = 60_000;

export class MapRegistry {
  private maps = new Map<string, LoadedMap>();
  private errors: MapLoadError[] = [];
  private reloading: Promise<MapChange[]> = Promise.resolve([]);
  private readonly retiring = new Map<LoadedMap, NodeJS.Timeout>();
  private readonly listeners: ((changes: readonly MapChange[]) => Promise<void>)[] = [];

  private constructor(
    private readonly config: RegistrySettings,
    private readonly options: { log: Log; http?: HttpOptions },
    /** The decoded tiles of all the maps. */
    readonly cache: TileCache,
  ) {}

  /** The folder map definitions are read from: `maps.dir`, by default `<dataDir>/maps`. */
  static folderOf(config: Pick<RegistrySettings, 'dataDir' | 'maps'>): string {
    return config.maps.dir ?? path.join(config.dataDir, 'maps');
  }

  /**
   * Loads every configured map. `maps.dir` (default `<dataDir>/maps`) need not exist when it is the
   * default. The tile cache holds `maps.tileCacheMB` unless one is given.
   */
  static async open(
    config: RegistrySettings,
    options: { log?: Log; cache?: TileCache; http?: HttpOptions } = {},
  ): Promise<MapRegistry> {
    const cache = options.cache ?? new TileCache(config.maps.tileCacheMB * 1024 * 1024);
    const registry = new MapRegistry(config, { log: options.log ?? silentLog, ...(options.http ? { http: options.http } : {}) }, cache);
    const { maps, errors } = await registry.loadAll();
    for (const error of errors) registry.options.log.error(`map "${error.id}" skipped: ${error.message}`);
    registry.maps = maps;
    registry.errors = errors;
    return registry;
  }

  /** Reads every definition and loads each map anew; nothing of this registry changes. */
  private async loadAll(): Promise<{ maps: Map<string, LoadedMap>; errors: MapLoadError[] }> {
    const { config } = this;
    const log = this.options.log;
    const dir = MapRegistry.folderOf(config);
    const errors: MapLoadError[] = [];
    const candidates = new Map<string, DefinitionReader>();
    let files: string[] = [];
    try {
      files = (await readdir(dir, { withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.json')).map((entry) => entry.name);
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      if (!missing || config.maps.dir !== null) log.error(`maps folder ${dir} cannot be read: ${(error as Error).message}`);
    }
    for (const name of files.sort()) {
      const id = name.slice(0, -'.json'.length);
      const file = path.join(dir, name);
      if (!MAP_ID.test(id)) {
        errors.push({ id, message: `${file}: the file name is not a valid map id (1 to 64 of A-Z, a-z, 0-9, _ and -, then .json)` });
        continue;
      }
      candidates.set(id, async () => ({ definition: await readDefinitionFile(file), baseDir: dir }));
    }
    for (const [id, definition] of Object.entries(config.maps.definitions)) {
      if (candidates.has(id)) log.warn(`map "${id}" is defined in the configuration and in ${path.join(dir, `${id}.json`)}; the configuration wins`);
      candidates.set(id, async () => ({ definition, baseDir: dir }));
    }

    const maps = new Map<string, LoadedMap>();
    await Promise.all(
      [...candidates].map(async ([id, read]) => {
        try {
          const { definition, baseDir } = await read();
          maps.set(id, await loadMap(id, definition, baseDir, { cache: this.cache, log, http: this.options.http, fonts: () => installedFonts(config.dataDir) }));
        } catch (error) {
          errors.push({ id, message: (error as Error).message });
        }
      }),
    );
    errors.sort((a, b) => a.id.localeCompare(b.id));
    return { maps, errors };
  }

  /**
   * Reads the definitions again and serves what changed: a map whose revision differs is replaced,
   * new maps are added, maps whose definition is gone are removed. A map whose new definition cannot
   * load keeps its previous version serving. Replaced and removed maps are closed a minute later,
   * so that requests reading them finish. Reloads run one at a time.
   */
  reload(): Promise<MapChange[]> {
    this.reloading = this.reloading.then(
      () => this.reloadNow(),
      () => this.reloadNow(),
    );
    return this.reloading;
  }

  private async reloadNow(): Promise<MapChange[]> {
    const { maps: loaded, errors } = await this.loadAll();
    const failures = new Map(errors.map((error) => [error.id, error.message]));
    const changes: MapChange[] = [];
    const next = new Map<string, LoadedMap>();
    const retire: LoadedMap[] = [];
    const unused: LoadedMap[] = [];
    for (const [id, map] of loaded) {
      const previous = this.maps.get(id);
      if (previous && previous.revision === map.revision) {
        next.set(id, previous);
        unused.push(map);
        continue;
      }
      next.set(id, map);
      if (previous) retire.push(previous);
      changes.push({ id, change: previous ? 'updated' : 'added' });
    }
    const previousErrors = new Map(this.errors.map((error) => [error.id, error.message]));
    for (const [id, message] of failures) {
      const previous = this.maps.get(id);
      if (previous) {
        next.set(id, previous);
        changes.push({ id, change: 'kept', message });
      } else if (previousErrors.get(id) !== message) {
        changes.push({ id, change: 'failed', message });
      }
    }
    for (const [id, previous] of this.maps) {
      if (next.has(id)) continue;
      retire.push(previous);
      changes.push({ id, change: 'removed' });
    }
    this.maps = next;
    this.errors = errors;
    for (const map of retire) this.retire(map);
    await Promise.allSettled(unused.map((map) => map.close()));
    changes.sort((a, b) => a.id.localeCompare(b.id));
    if (changes.length > 0) await Promise.all(this.listeners.map((listener) => listener(changes)));
    return changes;
  }

  /** Calls `listener` after each reload that changed a map, and settles the reload when it has (what follows the maps: the geocoding indexes of imported maps). */
  onReload(listener: (changes: readonly MapChange[]) => Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Closes a map no longer served once the requests that may still read it are done. */
  private retire(map: LoadedMap): void {
    const timer = setTimeout(() => {
      this.retiring.delete(map);
      void map.close();
    }, RETIRE_AFTER_MS);
    timer.unref();
    this.retiring.set(map, timer);
  }

  get(id: string): LoadedMap | undefined {
    return this.maps.get(id);
  }

  /** Ids of the loaded maps, sorted. */
  ids(): string[] {
    return [...this.maps.keys()].sort();
  }

  /** The maps that could not load, and why (with the previous version serving when there was one). */
  loadErrors(): MapLoadError[] {
    return [...this.errors];
  }

  async close(): Promise<void> {
    await this.reloading.catch(() => []);
    for (const timer of this.retiring.values()) clearTimeout(timer);
    await Promise.allSettled([...this.maps.values(), ...this.retiring.keys()].map((map) => map.close()));
    this.retiring.clear();
  }
}

/** The map `mapId` names, or a 404 for a request that names none. */
export function mapOf(registry: MapRegistry, mapId: string): LoadedMap {
  const map = registry.get(mapId);
  if (!map) throw new NotFoundError();
  return map;
}
