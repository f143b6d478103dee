import type { AccountStore } from './keys/accounts.js';
import type { ApiKeyStore } from './keys/store.js';
import type { UsageRecorder } from './keys/usage.js';
import type { Config } from './config.js';
import type { Database } from './platform/storage/database.js';
import { ControlError } from './platform/control.js';
import type { WeatherCatalog } from './weather/catalog.js';
import { FetchError } from './weather/providers/fetch.js';
import { IngestError, ingestFiles, type IngestPreparer } from './weather/ingest.js';
import type { Progress } from './platform/progress.js';
import { fetchModels, fetchRun, type FetchModel } from './weather/providers/schedule.js';
import { defaultVariables } from './weather/variables.js';

/**
 * The administrative operations of the `meridian` command, across areas, run in-process or, while
 * a server owns the embedded database, by that server through the control socket.
 */
export type AdminRequest =
  | { op: 'accounts.create'; name: string }
  | { op: 'accounts.list' }
  | { op: 'accounts.rename'; accountId: string; name: string }
  | { op: 'accounts.delete'; accountId: string }
  | { op: 'accounts.token'; accountId: string }
  | { op: 'accounts.revoke-token'; token: string }
  | { op: 'usage'; accountId?: string; keyId?: string; since?: string }
  | { op: 'weather.ingest'; files: string[]; model: string; attribution: string }
  | { op: 'weather.fetch'; model: FetchModel; run: string };

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isoDay = /^\d{4}-\d{2}-\d{2}$/;

function checkUuid(what: string, value: string | undefined): void {
  if (value !== undefined && !uuid.test(value)) throw new ControlError(`${what} must be a UUID, got "${value}"`);
}

function accountName(value: unknown): string {
  const name = String(value ?? '').trim();
  if (!name || name.length > 200) throw new ControlError('Account name must be 1 to 200 characters');
  return name;
}

export interface AdminServices {
  config: Config;
  db: Database;
  accounts: AccountStore;
  keys: ApiKeyStore;
  usage: UsageRecorder;
  weather: WeatherCatalog;
  /** Where weather tilesets (PMTiles archives) live. */
  weatherDirectory: string;
  /** Where ingested files are decoded and tiled: the weather worker pool; this thread when absent. */
  prepareIngest?: IngestPreparer;
}

/** `progress` shows long operations (a fetch, an ingest) to whoever asked: the command's terminal, or the server's log. */
export async function runAdmin(services: AdminServices, request: AdminRequest, progress?: Progress): Promise<unknown> {
  switch (request.op) {
    case 'accounts.create':
      return services.accounts.create(accountName(request.name));
    case 'accounts.rename': {
      checkUuid('ACCOUNT', request.accountId);
      const name = accountName(request.name);
      if (!(await services.accounts.rename(request.accountId, name))) throw new ControlError(`No account ${request.accountId}`);
      return { account_id: request.accountId, name };
    }
    case 'accounts.delete': {
      checkUuid('ACCOUNT', request.accountId);
      const deleted = await services.keys.deleteAccount(request.accountId);
      if (!deleted) throw new ControlError(`No account ${request.accountId}`);
      return { account_id: request.accountId, deleted: true, ...deleted };
    }
    case 'accounts.list':
      return services.accounts.list();
    case 'accounts.token': {
      checkUuid('ACCOUNT', request.accountId);
      const token = await services.accounts.issueToken(request.accountId);
      if (!token) throw new ControlError(`No account ${request.accountId}`);
      return { account_id: request.accountId, service_token: token };
    }
    case 'accounts.revoke-token': {
      if (!(await services.accounts.revokeToken(String(request.token ?? '')))) {
        throw new ControlError('No such live service token');
      }
      return { revoked: true };
    }
    case 'usage': {
      checkUuid('--account', request.accountId);
      checkUuid('--key', request.keyId);
      if (request.since !== undefined && !isoDay.test(request.since)) {
        throw new ControlError(`--since must be a date YYYY-MM-DD, got "${request.since}"`);
      }
      // Counts still in memory belong in the answer.
      await services.usage.flush();
      return services.usage.report(request);
    }
    case 'weather.ingest': {
      if (!Array.isArray(request.files) || request.files.length === 0) throw new ControlError('weather ingest needs at least one FILE');
      const { weather } = services.config;
      try {
        return await ingestFiles(services.weather, services.weatherDirectory, request.files, {
          model: request.model,
          attribution: request.attribution,
          variables: [...weather.variables, ...defaultVariables],
          format: weather.tileFormat,
          keepRuns: weather.keepRuns,
          orphanGraceMs: weather.ingestTimeoutMs,
        }, services.prepareIngest, progress);
      } catch (error) {
        if (error instanceof IngestError) throw new ControlError(error.message);
        throw error;
      }
    }
    case 'weather.fetch': {
      const model = request.model ?? 'gfs';
      if (!fetchModels.includes(model)) throw new ControlError(`--model must be one of ${fetchModels.join(', ')}, got "${model}"`);
      const run = request.run === 'latest' ? 'latest' : runTime(request.run);
      try {
        return (
          (await fetchRun(services, model, run, progress ? { progress } : {})) ?? { runs: [], skipped: [], failed: [], notes: ['the latest run is already in the catalog'] }
        );
      } catch (error) {
        if (error instanceof FetchError || error instanceof IngestError) throw new ControlError(error.message);
        throw error;
      }
    }
    default:
      throw new ControlError(`Unknown operation ${(request as { op?: unknown }).op}`);
  }
}

/** `YYYYMMDDHH` of a model run (HH 00, 06, 12 or 18). */
function runTime(text: string): Date {
  const match = /^(\d{4})(\d{2})(\d{2})(00|06|12|18)$/.exec(text);
  const time = match ? new Date(Date.UTC(+match[1]!, +match[2]! - 1, +match[3]!, +match[4]!)) : null;
  if (!time || Number.isNaN(time.getTime()) || time.getUTCDate() !== +match![3]!) {
    throw new ControlError(`--run must be latest or YYYYMMDDHH with HH 00, 06, 12 or 18, got "${text}"`);
  }
  return time;
}
