/**
 * A thread of the weather worker pool: the decoding half of an ingest (GRIB2 and JPEG 2000
 * decoding, unit conversion, tiling, archive writing), off the serving event loop. An ingest's own
 * errors come back as values, since an Error crossing threads loses its class.
 *
 * An ingest is background work: the thread lowers its own scheduling priority (on Linux a thread
 * has its own nice value) and libvips encodes each tile on one thread, so that on a small machine
 * the serving thread still gets a core when it needs one.
 */

import { setPriority } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import sharp from 'sharp';
import { IngestError, prepareIngest, type IngestOptions, type PreparedIngest } from './ingest.js';
import { progressToPort } from '../platform/progress.js';

export interface IngestTask {
  directory: string;
  files: readonly string[];
  options: IngestOptions;
  /** Where the thread posts its progress, when someone is watching. */
  progress?: MessagePort;
}

export type IngestOutcome = { prepared: PreparedIngest } | { ingestError: string };

setPriority(10);
sharp.concurrency(1);

export default async function run(task: IngestTask): Promise<IngestOutcome> {
  const progress = task.progress && progressToPort(task.progress);
  try {
    return { prepared: await prepareIngest(task.directory, task.files, task.options, progress) };
  } catch (error) {
    if (error instanceof IngestError) return { ingestError: error.message };
    throw error;
  } finally {
    progress?.close();
  }
}
