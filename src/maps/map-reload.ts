/**
 * Reloading the maps without a restart: on `SIGHUP` (wired by `serve`) and, unless `maps.watch`
 * is off, when a file in the maps folder or below it changes (definitions at the top, styles,
 * sprites and archives in subfolders). Changes are let settle before the registry reloads, so an
 * import that writes many files reloads once; the registry then serves only maps whose revision
 * changed, and keeps the previous version of a map whose new definition cannot load.
 */

import { watch, type FSWatcher } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';
import type { MapChange, MapRegistry } from './registry.js';

/** Quiet time after the last file event before the maps are read again. */
export const SETTLE_MS = 300;

type Logger = Pick<FastifyBaseLogger, 'info' | 'error' | 'warn'>;

/** One line per map whose state changed. */
export function logMapChanges(changes: readonly MapChange[], log: Logger): void {
  for (const { id, change, message } of changes) {
    if (change === 'kept') log.error({ map: id, reason: message }, `map "${id}" not reloaded: ${message}; the previous version keeps serving`);
    else if (change === 'failed') log.error({ map: id, reason: message }, `map "${id}" cannot load: ${message}`);
    else log.info({ map: id, change }, `map "${id}" ${change}`);
  }
}

/** Reloads the registry and logs what changed; a reload that fails outright is logged, never thrown. */
export async function reloadMaps(registry: MapRegistry, log: Logger, cause: string): Promise<MapChange[]> {
  try {
    const changes = await registry.reload();
    logMapChanges(changes, log);
    // A reload that found nothing new (a file event of a write still under way, a SIGHUP with no edit) stays quiet.
    if (changes.length > 0) log.info({ cause, maps: registry.ids(), changed: changes.length }, 'maps reloaded');
    return changes;
  } catch (error) {
    log.error({ err: error, cause }, 'maps reload failed; the maps loaded before keep serving');
    return [];
  }
}

/**
 * Watches `folder` and below; returns what stops watching. A folder that does not exist (yet) is
 * not watched: `SIGHUP` still reloads.
 */
export function watchMaps(registry: MapRegistry, folder: string, log: Logger, settleMs = SETTLE_MS): () => void {
  let watcher: FSWatcher;
  try {
    watcher = watch(folder, { recursive: true, persistent: false });
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    (missing ? log.info : log.warn).call(log, { folder, reason: (error as Error).message }, 'maps folder not watched: reload maps with SIGHUP');
    return () => {};
  }
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  watcher.on('change', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!stopped) void reloadMaps(registry, log, 'file change');
    }, settleMs);
  });
  watcher.on('error', (error) => log.warn({ folder, reason: error.message }, 'maps folder watch stopped: reload maps with SIGHUP'));
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher.close();
  };
}
