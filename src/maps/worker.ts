/**
 * A render worker thread of the pool: it opens the configured maps once (its own file handles and
 * tile cache) and renders jobs off the server's event loop.
 */

import { workerData } from 'node:worker_threads';
import { move } from 'piscina';
import type { Config } from '../platform/config.js';
import { MapRegistry } from './registry.js';
import { renderStaticImage, type StaticImageJob } from './static-image.js';

export interface WorkerTask {
  mapId: string;
  job: StaticImageJob;
}

let registry: Promise<MapRegistry> | undefined;

export default async function render(task: WorkerTask): Promise<unknown> {
  registry ??= MapRegistry.open((workerData as { config: Config }).config);
  const map = (await registry).get(task.mapId);
  if (!map) throw new Error(`map ${task.mapId} is not loaded in this worker`);
  const bytes = await renderStaticImage(map, task.job);
  return move(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}
