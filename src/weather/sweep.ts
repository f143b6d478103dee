/**
 * Files no published run holds: archives (and the source grids beside them) of an ingest that
 * crashed (or was killed) before it published, and download folders of a fetch that never finished. They are removed at start-up and
 * after each publish, once older than the grace period, so that `weather.keepRuns` bounds the disk
 * used; an ingest still writing (in this process or another sharing the folder) is younger than
 * its time limit, which is the grace period.
 */

import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { WeatherCatalog } from './catalog.js';
import { sourceGridFile } from './source-grid.js';

export async function sweepOrphans(catalog: WeatherCatalog, directory: string, graceMs: number, now = Date.now()): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const archives = await catalog.archives();
  const live = new Set([...archives, ...[...archives].map(sourceGridFile)]);
  const incoming = path.join(directory, 'incoming');
  const candidates = [
    ...names.filter((name) => (name.endsWith('.pmtiles') || name.endsWith('.grid')) && !live.has(name)).map((name) => path.join(directory, name)),
    ...(await readdir(incoming).catch(() => [] as string[])).map((name) => path.join(incoming, name)),
  ];
  const removed: string[] = [];
  for (const file of candidates) {
    const info = await stat(file).catch(() => null);
    if (!info || now - info.mtimeMs < graceMs) continue;
    await rm(file, { recursive: true, force: true });
    removed.push(path.relative(directory, file));
  }
  return removed;
}
