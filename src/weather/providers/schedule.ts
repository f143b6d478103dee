import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { WeatherConfig } from '../config.js';
import type { Database } from '../../platform/storage/database.js';
import type { WeatherCatalog } from '../catalog.js';
import { progressToLog, silentProgress, type Progress } from '../../platform/progress.js';
import { ecmwfLayout, ecmwfModels } from './ecmwf-layout.js';
import { downloadRun, FetchError, latestAvailableRun, type FetchOptions, type ForecastLayout } from './fetch.js';
import { gfsLayout } from './gfs-layout.js';
import { PROVIDER_ATTRIBUTIONS } from './credit.js';
import { ingestFiles, type IngestPreparer, type IngestReport } from '../ingest.js';
import { defaultVariables, type VariableDefinition } from '../variables.js';

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

export const fetchModels = ['gfs', ...ecmwfModels] as const;
export type FetchModel = (typeof fetchModels)[number];

/** What a model is fetched with: its layout, server, steps, variables and the attribution its keyframes carry. */
export interface Provider {
  model: FetchModel;
  layout: ForecastLayout;
  baseUrl: string;
  steps: string;
  intervalMinutes: number;
  variables: VariableDefinition[];
  attribution: string;
}

// The hosted service's own attribution for its GFS layers; images credit the sources in full (credit.ts).
const attributions: Record<FetchModel, string> = PROVIDER_ATTRIBUTIONS;

/**
 * The provider of a model as configured. `variables` (base ids) picks among the configured and
 * built-in variables; an id that names none of them is an error, not a silent gap.
 */
export function providerOf(weather: WeatherConfig, model: FetchModel): Provider {
  const table = [...weather.variables, ...defaultVariables];
  const section = model === 'gfs' ? weather.fetch : weather.ecmwf;
  const unknown = section.variables.filter((id) => !table.some((variable) => variable.id === id));
  if (unknown.length > 0) {
    throw new FetchError(`weather.${model === 'gfs' ? 'fetch' : 'ecmwf'}.variables names no variable ${unknown.map((id) => `"${id}"`).join(', ')}`);
  }
  return {
    model,
    layout: model === 'gfs' ? gfsLayout(weather.fetch.resolution) : ecmwfLayout(model),
    baseUrl: section.baseUrl,
    steps: section.steps,
    intervalMinutes: section.intervalMinutes,
    variables: section.variables.length === 0 ? table : table.filter((variable) => section.variables.includes(variable.id)),
    attribution: attributions[model],
  };
}

/**
 * Downloads a run of a model (`latest`: the newest complete one on the server) and ingests it
 * under the model's name. The latest run is skipped when the catalog already has it. Downloads go
 * to a directory of their own under the weather directory, removed afterwards whatever happens.
 */
export async function fetchRun(
  services: FetchServices,
  model: FetchModel,
  run: 'latest' | Date,
  hooks: { progress?: Progress; now?: () => Date } = {},
): Promise<IngestReport | null> {
  const { weather } = services.config;
  const provider = providerOf(weather, model);
  const progress = hooks.progress ?? silentProgress;
  const options: FetchOptions = {
    layout: provider.layout,
    baseUrl: provider.baseUrl,
    run,
    steps: parseSteps(provider.steps),
    selectors: provider.variables.flatMap((variable) => variable.fields),
    directory: path.join(services.weatherDirectory, 'incoming', randomUUID()),
    progress,
    ...(hooks.now ? { now: hooks.now } : {}),
  };
  if (run === 'latest') {
    progress.phase(`Finding the latest complete ${provider.layout.name} run`);
    const available = await latestAvailableRun(options);
    const have = await services.weather.latestReferenceTime(model);
    if (have && have.getTime() >= available.getTime()) {
      progress.end();
      return null;
    }
    options.run = available;
  }
  try {
    const { files } = await downloadRun(options);
    const report = await ingestFiles(services.weather, services.weatherDirectory, files, {
      model,
      attribution: provider.attribution,
      variables: provider.variables,
      format: weather.tileFormat,
      keepRuns: weather.keepRuns,
      orphanGraceMs: weather.ingestTimeoutMs,
    }, services.prepareIngest, progress);
    return report;
  } finally {
    await rm(options.directory, { recursive: true, force: true });
  }
}

/** The providers `serve` runs on their intervals. */
export function scheduledProviders(weather: WeatherConfig): FetchModel[] {
  return [...(weather.fetch.intervalMinutes > 0 ? ['gfs' as const] : []), ...(weather.ecmwf.intervalMinutes > 0 ? weather.ecmwf.models : [])];
}

interface FetchLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/**
 * `serve` looks for a new run of each configured model every `intervalMinutes` of its provider.
 * One look at a time per model and instance, and one across instances sharing a database: a lease
 * per model in the settings table, taken for an hour at most, lets one instance fetch while the
 * others skip. Start, progress and end go to the server's log.
 */
export function scheduleFetches(services: FetchServices, log: FetchLog): () => void {
  const timers = scheduledProviders(services.config.weather).map((model) => {
    const minutes = model === 'gfs' ? services.config.weather.fetch.intervalMinutes : services.config.weather.ecmwf.intervalMinutes;
    let running = false;
    const holder = randomUUID();
    const tick = async () => {
      if (running) return;
      running = true;
      try {
        if (!(await takeLease(services.db, model, holder))) {
          log.info({ model }, 'weather fetch: another instance holds the lease; not looking this time');
          return;
        }
        try {
          log.info({ model }, 'weather fetch: looking for a new run');
          const report = await fetchRun(services, model, 'latest', { progress: progressToLog(log, { model }) });
          if (report) log.info({ model, runs: report.runs.map((r) => r.referenceTime), skipped: report.skipped.length, failed: report.failed }, 'weather run fetched and published');
          else log.info({ model }, 'weather fetch: the latest run is already in the catalog');
        } finally {
          await releaseLease(services.db, model, holder);
        }
      } catch (error) {
        log.warn({ model, err: error }, 'weather fetch failed; the next look will try again');
      } finally {
        running = false;
      }
    };
    const timer = setInterval(() => void tick(), minutes * 60_000);
    timer.unref();
    void tick();
    return timer;
  });
  return () => timers.forEach((timer) => clearInterval(timer));
}

const leaseName = (model: FetchModel) => `weather_fetch_lease:${model}`;

async function takeLease(db: Database, model: FetchModel, holder: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO meridian_settings (name, value) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET value = excluded.value
       WHERE split_part(meridian_settings.value, ' ', 2)::timestamptz < now() - interval '1 hour'
     RETURNING value`,
    [leaseName(model), `${holder} ${new Date().toISOString()}`],
  );
  return rows.length > 0;
}

async function releaseLease(db: Database, model: FetchModel, holder: string): Promise<void> {
  await db.query(`DELETE FROM meridian_settings WHERE name = $1 AND split_part(value, ' ', 1) = $2`, [leaseName(model), holder]);
}
