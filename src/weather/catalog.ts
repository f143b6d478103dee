import { randomUUID } from 'node:crypto';
import type { WeatherRuns } from '../platform/metrics.js';
import type { Database } from '../platform/storage/database.js';
import type { Migration } from '../platform/storage/migrate.js';

/**
 * The weather catalog: runs (one model run, one reference time) and their keyframes (one
 * tileset per variable and moment, a PMTiles archive in the data directory). A run becomes
 * visible in one transaction after all its archives are written, so every listed run is complete.
 */

export const weatherMigrations: Migration[] = [
  {
    version: 200,
    name: 'weather runs and keyframes',
    sql: `
      CREATE TABLE weather_runs (
        id uuid PRIMARY KEY,
        model text NOT NULL,
        reference_time timestamptz NOT NULL,
        ingested timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX weather_runs_latest ON weather_runs (model, reference_time DESC, ingested DESC);
      CREATE TABLE weather_keyframes (
        id uuid PRIMARY KEY,
        run_id uuid NOT NULL REFERENCES weather_runs (id) ON DELETE CASCADE,
        variable_id text NOT NULL,
        valid_time timestamptz NOT NULL,
        archive text NOT NULL,
        layer jsonb NOT NULL
      );
      CREATE INDEX weather_keyframes_by_run ON weather_keyframes (run_id, variable_id, valid_time);
    `,
  },
];

export interface NewKeyframe {
  id: string;
  variableId: string;
  validTime: Date;
  /** Archive file name, relative to the weather directory. */
  archive: string;
  layer: Record<string, unknown>;
}

export interface KeyframeRow {
  id: string;
  variable_id: string;
  valid_time: Date;
  archive: string;
  layer: Record<string, unknown>;
  reference_time: Date;
  model: string;
}

const catalogTopic = 'weather';

export class WeatherCatalog {
  private readonly watchers: (() => void)[] = [];

  constructor(private readonly db: Database) {}

  /**
   * Calls `changed` whenever a run is published anywhere, and whenever notifications may have
   * been missed; resolves to the unsubscribe function.
   */
  async watch(changed: () => void): Promise<() => Promise<void>> {
    this.watchers.push(changed);
    const unlisten = await this.db.listen(catalogTopic, { onMessage: changed, onDisconnect: changed, onConnect: changed });
    return async () => {
      this.watchers.splice(this.watchers.indexOf(changed), 1);
      await unlisten();
    };
  }

  /**
   * Publishes a run with its keyframes at once, and drops runs of the same model beyond the
   * newest `keep`. Returns the archives no longer referenced, for the caller to delete.
   */
  async publish(model: string, referenceTime: Date, keyframes: readonly NewKeyframe[], keep: number): Promise<string[]> {
    const runId = randomUUID();
    const expired = await this.db.transaction(async (tx) => {
      await tx.query('INSERT INTO weather_runs (id, model, reference_time) VALUES ($1, $2, $3)', [runId, model, referenceTime]);
      for (const keyframe of keyframes) {
        await tx.query(
          'INSERT INTO weather_keyframes (id, run_id, variable_id, valid_time, archive, layer) VALUES ($1, $2, $3, $4, $5, $6)',
          [keyframe.id, runId, keyframe.variableId, keyframe.validTime, keyframe.archive, JSON.stringify(keyframe.layer)],
        );
      }
      const dropped = await tx.query<{ archive: string }>(
        `DELETE FROM weather_keyframes WHERE run_id IN (
           SELECT id FROM weather_runs WHERE model = $1
           ORDER BY reference_time DESC, ingested DESC OFFSET $2
         ) RETURNING archive`,
        [model, keep],
      );
      // Every instance forgets what it knew of the catalog once this commits.
      await tx.query('SELECT pg_notify($1, $2)', [this.db.channel(catalogTopic), model]);
      await tx.query(
        `DELETE FROM weather_runs WHERE model = $1 AND id NOT IN (
           SELECT id FROM weather_runs WHERE model = $1 ORDER BY reference_time DESC, ingested DESC LIMIT $2
         )`,
        [model, keep],
      );
      return dropped.map((row) => row.archive);
    });
    // This instance need not wait for its own notification to come back.
    for (const changed of this.watchers) changed();
    return expired;
  }

  /** Keyframes of the latest run of every model, in variable and time order. */
  async latest(): Promise<KeyframeRow[]> {
    return this.db.query<KeyframeRow>(
      `SELECT k.id, k.variable_id, k.valid_time, k.archive, k.layer, r.reference_time, r.model
       FROM weather_keyframes k
       JOIN weather_runs r ON r.id = k.run_id
       WHERE r.id IN (
         SELECT DISTINCT ON (model) id FROM weather_runs ORDER BY model, reference_time DESC, ingested DESC
       )
       ORDER BY k.variable_id, k.valid_time`,
    );
  }

  /** Per model: its runs, the newest one's reference time and when one was last ingested (for metrics). */
  async runs(): Promise<WeatherRuns[]> {
    const rows = await this.db.query<{ model: string; runs: number; latest_run: Date; last_ingest: Date }>(
      'SELECT model, count(*)::int AS runs, max(reference_time) AS latest_run, max(ingested) AS last_ingest FROM weather_runs GROUP BY model ORDER BY model',
    );
    return rows.map((row) => ({ model: row.model, runs: row.runs, latestRun: new Date(row.latest_run), lastIngest: new Date(row.last_ingest) }));
  }

  /** Reference time of the newest run of a model, or null when it has none. */
  async latestReferenceTime(model: string): Promise<Date | null> {
    const [row] = await this.db.query<{ reference_time: Date }>(
      'SELECT reference_time FROM weather_runs WHERE model = $1 ORDER BY reference_time DESC LIMIT 1',
      [model],
    );
    return row?.reference_time ?? null;
  }

  /** The archive of a keyframe, or null when there is no such keyframe. */
  async archiveOf(keyframeId: string): Promise<string | null> {
    const [row] = await this.db.query<{ archive: string }>('SELECT archive FROM weather_keyframes WHERE id = $1', [keyframeId]);
    return row?.archive ?? null;
  }

  /** Every archive the catalog refers to (to clean up files of interrupted ingests). */
  async archives(): Promise<Set<string>> {
    const rows = await this.db.query<{ archive: string }>('SELECT archive FROM weather_keyframes');
    return new Set(rows.map((row) => row.archive));
  }
}
