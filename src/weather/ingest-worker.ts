/**
 * A thread of the weather worker pool: the decoding half of an ingest (GRIB2 and JPEG 2000
 * decoding, unit conversion, tiling, archive writing), off the serving event loop. An ingest's own
 * errors come back as values, since an Error crossing threads loses its class.
 */

import { IngestError, prepareIngest, type IngestOptions, type PreparedIngest } from './ingest.js';

export interface IngestTask {
  directory: string;
  files: readonly string[];
  options: IngestOptions;
}

export type IngestOutcome = { prepared: PreparedIngest } | { ingestError: string };

export default async function run(task: IngestTask): Promise<IngestOutcome> {
  try {
    return { prepared: await prepareIngest(task.directory, task.files, task.options) };
  } catch (error) {
    if (error instanceof IngestError) return { ingestError: error.message };
    throw error;
  }
}
