/**
 * What this instance remembers of the weather catalog, so that the hot paths do not ask the
 * database on every request: the catalog as `/weather/latest.json` serves it (and its keyframes, which
 * point forecasts read), and the archive of each keyframe. Both are read again after a run is published anywhere (or notifications may have
 * been missed: `WeatherCatalog.watch`). While the database cannot be reached, what was last read
 * keeps being served, and once a read has failed for want of the database it is not asked again
 * until it is heard from (a reconnection is a change): clients poll the catalog, and the keyframes it names are files on this
 * instance's disk (a keyframe whose archive retention removed meanwhile is a 404, as always).
 *
 * Only keyframes whose archive this instance can read in its weather folder are listed: a run
 * published to a shared catalog from a folder this instance does not share is not offered here
 * (its tiles would be 404s and its point forecasts empty), and `onUnreadable` says which.
 */

import { access, constants } from 'node:fs/promises';
import path from 'node:path';
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

  constructor(
    private readonly catalog: WeatherCatalog,
    private readonly directory?: string,
    private readonly onUnreadable: (runs: { model: string; referenceTime: string; keyframes: number }[]) => void = () => {},
  ) {}

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
      const reading = this.catalog
        .latest()
        .then((rows) => this.readable(rows))
        .then((rows) => ({ rows, presented: presentCatalog(rows) }));
      this.latestReading = reading;
      reading.then(
        (latest) => (this.lastLatest = latest),
        (error: unknown) => {
          if (this.latestReading !== reading) return;
          // Unreachable (a timeout, a refused connection): what was read last is served until the
          // database is heard from again (`changed`), rather than asked again by every request.
          this.latestReading = error instanceof DatabaseUnavailableError && this.lastLatest ? Promise.resolve(this.lastLatest) : null;
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

  /** The rows whose archive this instance can read; the others are reported, by run. */
  private async readable(rows: readonly KeyframeRow[]): Promise<readonly KeyframeRow[]> {
    const directory = this.directory;
    if (directory === undefined) return rows;
    const readable = await Promise.all(
      rows.map((row) =>
        access(path.join(directory, row.archive), constants.R_OK).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (readable.every(Boolean)) return rows;
    const unreadable = new Map<string, { model: string; referenceTime: string; keyframes: number }>();
    rows.forEach((row, i) => {
      if (readable[i]) return;
      const referenceTime = row.reference_time.toISOString();
      const run = unreadable.get(`${row.model} ${referenceTime}`) ?? { model: row.model, referenceTime, keyframes: 0 };
      run.keyframes++;
      unreadable.set(`${row.model} ${referenceTime}`, run);
    });
    this.onUnreadable([...unreadable.values()]);
    return rows.filter((_, i) => readable[i]);
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
      if (!(error instanceof DatabaseUnavailableError) || !previous) throw error;
      // Remembered again until the next change, so the next tile of it does not wait on the database.
      this.archives.set(keyframe, previous);
      return previous;
    }
    if (found) this.archives.set(keyframe, found);
    return found;
  }
}
