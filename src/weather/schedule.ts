import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { WeatherConfig } from './config.js';
import type { Database } from '../platform/storage/database.js';
import type { WeatherCatalog } from './catalog.js';
import { downloadRun, latestAvailableRun } from './fetch.js';
import { ingestFiles, type IngestPreparer, type IngestReport } from './ingest.js';
import { defaultVariables } from './variables.js';

/** `0-96/1`, `0-120/3,126-384/12`, `6`: forecast hours, ascending, each once. */
export function parseSteps(text: string): number[] {
  const hours = new Set<number>();
  for (const part of text.split(',')) {
    const match = /^(\d{1,3})(?:-(\d{1,3})(?:\/(\d{1,3}))?)?$/.exec(part.trim());
    if (!match) throw new Error(`"${part}" is not a forecast hour, a range a-b or a range with a step a-b/s`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    const step = match[3] === undefined ? 1 : Number(match[3]);
    if (to < from || step < 1) throw new Error(`"${part}" is an empty range`);
    for (let hour = from; hour <= to; hour += step) hours.add(hour);
  }
  return [...hours].sort((a, b) => a - b);
}

export interface FetchServices {
  config: { weather: WeatherConfig };
  db: Database;
  weather: WeatherCatalog;
  weatherDirectory: string;
  /** Where files are decoded and tiled: a server's weather worker pool; this thread when absent. */
  prepareIngest?: IngestPreparer;
}

const model = 'gfs';

/**
 * Downloads a GFS run (`latest`: the newest complete one on the server) and ingests it as model
 * `gfs`. The latest run is skipped when the catalog already has it. Downloads go to a directory of
 * their own under the weather directory, removed afterwards whatever happens.
 */
export async function fetchRun(
  services: FetchServices,
  run: 'latest' | Date,
  hooks: { onProgress?: (message: string) => void; now?: () => Date } = {},
): Promise<IngestReport | null> {
  const { weather } = services.config;
  const variables = [...weather.variables, ...defaultVariables];
  const options = {
    baseUrl: weather.fetch.baseUrl,
    run,
    steps: parseSteps(weather.fetch.steps),
    resolution: weather.fetch.resolution,
    selectors: variables.flatMap((variable) => variable.fields),
    directory: path.join(services.weatherDirectory, 'incoming', randomUUID()),
    ...hooks,
  };
  if (run === 'latest') {
    const available = await latestAvailableRun(options);
    const have = await services.weather.latestReferenceTime(model);
    if (have && have.getTime() >= available.getTime()) return null;
    options.run = available;
  }
  try {
    const { files } = await downloadRun(options);
    return await ingestFiles(services.weather, services.weatherDirectory, files, {
      model,
      attribution: 'GFS',
      variables,
      format: weather.tileFormat,
      keepRuns: weather.keepRuns,
      orphanGraceMs: weather.ingestTimeoutMs,
    }, services.prepareIngest);
  } finally {
    await rm(options.directory, { recursive: true, force: true });
  }
}

/**
 * `serve` looks for a new GFS run every `intervalMinutes`. One look at a time per instance, and one
 * across instances sharing a database: a lease in the settings table, taken for an hour at most,
 * lets one instance fetch while the others skip.
 */
export function scheduleFetches(
  services: FetchServices,
  log: { info(object: object, message: string): void; warn(object: object, message: string): void },
): () => void {
  const minutes = services.config.weather.fetch.intervalMinutes;
  if (minutes === 0) return () => {};
  let running = false;
  const holder = randomUUID();
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      if (!(await takeLease(services.db, holder))) return;
      try {
        const report = await fetchRun(services, 'latest', { onProgress: (message) => log.info({ fetch: message }, 'weather fetch') });
        if (report) log.info({ runs: report.runs.map((r) => r.referenceTime) }, 'weather run fetched and published');
      } finally {
        await releaseLease(services.db, holder);
      }
    } catch (error) {
      log.warn({ err: error }, 'weather fetch failed; the next look will try again');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), minutes * 60_000);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}

async function takeLease(db: Database, holder: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO meridian_settings (name, value) VALUES ('weather_fetch_lease', $1)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value
       WHERE split_part(meridian_settings.value, ' ', 2)::timestamptz < now() - interval '1 hour'
     RETURNING value`,
    [`${holder} ${new Date().toISOString()}`],
  );
  return rows.length > 0;
}

async function releaseLease(db: Database, holder: string): Promise<void> {
  await db.query(`DELETE FROM meridian_settings WHERE name = 'weather_fetch_lease' AND split_part(value, ' ', 1) = $1`, [holder]);
}
