/**
 * What this instance remembers of the weather catalog, so that the hot paths do not ask the
 * database on every request: the catalog as `/weather/latest.json` serves it (and its keyframes, which
 * point forecasts read), and the archive of each keyframe. Both are read again after a run is published anywhere (or notifications may have
 * been missed: `WeatherCatalog.watch`). While the database cannot be reached, what was last read
 * keeps being served: clients poll the catalog, and the keyframes it names are files on this
 * instance's disk (a keyframe whose archive retention removed meanwhile is a 404, as always).
 */

import { Lru } from '../../platform/lru.js';
import { DatabaseUnavailableError } from '../../platform/storage/database.js';
import type { KeyframeRow, WeatherCatalog } from '../catalog.js';
import { presentCatalog } from '../layer.js';

export type PresentedCatalog = ReturnType<typeof presentCatalog>;

/** Keyframes whose archive is remembered; a keyframe id never changes archive. */
const KEYFRAMES_REMEMBERED = 10_000;

interface Latest {
  rows: readonly KeyframeRow[];
  presented: PresentedCatalog;
}

export class CatalogMemory {
  private latestReading: Promise<Latest> | null = null;
  private lastLatest: Latest | null = null;
  private archives = new Lru<string, string>(KEYFRAMES_REMEMBERED);
  /** What `archives` held before the last change, for outages only. */
  private previousArchives = new Lru<string, string>(KEYFRAMES_REMEMBERED);

  constructor(private readonly catalog: WeatherCatalog) {}

  /** Forgets what was read, so that the next request reads again. */
  changed(): void {
    this.latestReading = null;
    // Several changes in a row (a disconnect, then a connect) keep the last non-empty memory.
    if (this.archives.size > 0) {
      this.previousArchives = this.archives;
      this.archives = new Lru(KEYFRAMES_REMEMBERED);
    }
  }

  /** The latest runs, presented; the last read while the database is unreachable. */
  async latest(): Promise<PresentedCatalog> {
    return (await this.read()).presented;
  }

  /** The keyframes of the latest runs, as the catalog lists them (the same reading as `latest`). */
  async latestKeyframes(): Promise<readonly KeyframeRow[]> {
    return (await this.read()).rows;
  }

  private async read(): Promise<Latest> {
    if (!this.latestReading) {
      const reading = this.catalog.latest().then((rows) => ({ rows, presented: presentCatalog(rows) }));
      this.latestReading = reading;
      reading.then(
        (latest) => (this.lastLatest = latest),
        () => {
          if (this.latestReading === reading) this.latestReading = null;
        },
      );
    }
    try {
      return await this.latestReading;
    } catch (error) {
      if (error instanceof DatabaseUnavailableError && this.lastLatest) return this.lastLatest;
      throw error;
    }
  }

  /** The archive file of a keyframe, or null when the catalog has no such keyframe. */
  async archiveOf(keyframe: string): Promise<string | null> {
    const known = this.archives.get(keyframe);
    if (known) return known;
    let found: string | null;
    try {
      found = await this.catalog.archiveOf(keyframe);
    } catch (error) {
      const previous = this.previousArchives.get(keyframe);
      if (error instanceof DatabaseUnavailableError && previous) return previous;
      throw error;
    }
    if (found) this.archives.set(keyframe, found);
    return found;
  }
}
