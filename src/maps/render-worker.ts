/**
 * A worker thread of the render pool: it opens the configured maps once (its own file handles and
 * tile cache) and does the CPU-heavy work of the maps area off the server's event loop: static
 * images, raster tiles (metatiles), and the glyph ranges of the interactive maps (signed distance fields of 256 glyphs, tens
 * to hundreds of milliseconds each).
 */

import { workerData } from 'node:worker_threads';
import { move } from 'piscina';
import { glyphRangePbf } from '../render/glyphs/pbf.js';
import { installedFonts, MapRegistry, type RegistrySettings } from './registry.js';
import { renderStaticImage, type StaticImageJob } from './static/static-image.js';
import { renderMetatile, type MetatileJob } from './raster/metatile-image.js';

export type WorkerTask =
  | { kind: 'render'; mapId: string; job: StaticImageJob }
  | { kind: 'metatile'; mapId: string; job: MetatileJob }
  | { kind: 'glyphs'; fontstack: string[]; start: number };

/** The maps section and the data folder only: no secrets reach the render threads. */
const config = (workerData as { config: RegistrySettings }).config;
let registry: Promise<MapRegistry> | undefined;

export default async function run(task: WorkerTask): Promise<unknown> {
  if (task.kind === 'glyphs') return move(glyphRangePbf(installedFonts(config.dataDir), task.fontstack, task.start));
  registry ??= MapRegistry.open(config);
  const map = (await registry).get(task.mapId);
  if (!map) throw new Error(`map ${task.mapId} is not loaded in this worker`);
  // A few tiles of tens of kilobytes: copied back rather than moved one by one.
  if (task.kind === 'metatile') return (await renderMetatile(map, task.job)).map((bytes) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const bytes = await renderStaticImage(map, task.job);
  return move(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
