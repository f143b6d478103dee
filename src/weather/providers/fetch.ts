import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient, HttpClientError } from '../../platform/http/http-client.js';
import { silentProgress, type Progress } from '../../platform/progress.js';
import { IndexError, type ByteRange } from './byte-ranges.js';
import type { FieldSelector } from '../variables.js';

/**
 * `meridian weather fetch`: downloads one model run, fetching only the wanted fields. A provider's
 * layout (gfs-layout.ts, ecmwf-layout.ts) says where a step's file and its index are and which
 * byte ranges of the file hold the wanted fields; this core finds the latest complete run,
 * requests those ranges with retries, checks every message, and writes a step's messages to
 * `{directory}/YYYYMMDDHH-fFFF.grib2`, ready for `ingestFiles`.
 */

/** Where a provider publishes its runs, and how its index is read. Runs start every 6 hours. */
export interface ForecastLayout {
  /** The model as messages name it: `GFS`, `ECMWF IFS`. */
  readonly name: string;
  fileUrl(baseUrl: string, run: Date, step: number): string;
  indexUrl(fileUrl: string): string;
  /** Of the configured steps, those this run publishes (some runs are shorter), ascending. */
  stepsOf(run: Date, steps: readonly number[]): number[];
  /** Whether the provider publishes any of these fields. */
  publishes(selectors: readonly FieldSelector[]): boolean;
  /** The ranges of the wanted fields that a step's index lists; IndexError when it cannot be read or is another run's. */
  ranges(index: string, run: Date, step: number, selectors: readonly FieldSelector[]): ByteRange[];
}

export interface FetchOptions {
  layout: ForecastLayout;
  baseUrl: string;
  run: 'latest' | Date;
  steps: readonly number[];
  selectors: readonly FieldSelector[];
  directory: string;
  /** Further attempts after a network error, a timeout, a 5xx, a 429 or a range cut short; 3 when absent. */
  retries?: number;
  /** Per attempt, body included; 60 s when absent. */
  timeoutMs?: number;
  now?: () => Date;
  /** Phases, steps done, and notes (runs passed over, retries). */
  progress?: Progress;
}

export class FetchError extends Error {
  override name = 'FetchError';

  constructor(
    message: string,
    readonly url?: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

const sixHours = 6 * 3_600_000;
/** Runs probed by `latest`, newest first: the current cycle and the four before it (24 h). */
const latestCandidates = 5;
const stepConcurrency = 4;
const firstBackoffMs = 200;
const maxBackoffMs = 5_000;

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `YYYYMMDDHH` of a run, as in the names of the written files. */
export function runStamp(run: Date): string {
  return `${run.getUTCFullYear()}${pad(run.getUTCMonth() + 1, 2)}${pad(run.getUTCDate(), 2)}${pad(run.getUTCHours(), 2)}`;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Uint8Array;
}

/** Weather downloads: the server is the operator's (a mirror inside the network is allowed). */
const http = new HttpClient({ allowPrivateAddresses: true, headers: { 'user-agent': 'Meridian weather' }, retryDelayMs: firstBackoffMs, maxRetryDelayMs: maxBackoffMs });

/** What went wrong with one attempt, as the progress messages and errors say it. */
function problemOf(status: number | undefined, error: HttpClientError | undefined): string {
  return status !== undefined ? `HTTP ${status}` : (error?.message ?? 'failed');
}

/** GET/HEAD with retries (platform/http-client); answers 2xx and 404 (the caller decides what a missing file means). */
class Client {
  constructor(
    private readonly retries: number,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal,
    private readonly progress: (message: string) => void,
  ) {}

  get aborted(): boolean {
    return this.signal.aborted;
  }

  async request(url: string, init: { method?: 'GET' | 'HEAD'; range?: ByteRange } = {}): Promise<Answer> {
    let response;
    try {
      response = await http.request(url, {
        method: init.method ?? 'GET',
        ...(init.range ? { range: { start: init.range.start, end: init.range.end } } : {}),
        timeoutMs: this.timeoutMs,
        retries: this.retries,
        signal: this.signal,
        onRetry: ({ delayMs, status, error }) => this.progress(`${url}: ${problemOf(status, error)}; retrying in ${delayMs} ms`),
        inspect: ({ status, statusText }) => {
          if (status >= 400 && status !== 404 && status !== 429 && status < 500) {
            throw new FetchError(`${url}: HTTP ${status} ${statusText}`, url, status);
          }
        },
      });
    } catch (error) {
      if (error instanceof FetchError || this.signal.aborted || !(error instanceof HttpClientError)) throw error;
      throw new FetchError(`${url}: ${problemOf(undefined, error)} (after ${error.attempts} attempts)`, url);
    }
    if (response.status === 429 || response.status >= 500) {
      throw new FetchError(`${url}: HTTP ${response.status} (after ${response.attempts} attempts)`, url, response.status);
    }
    return { status: response.status, headers: response.headers, body: response.body };
  }
}

const missing = (url: string) => new FetchError(`${url}: HTTP 404 Not Found`, url, 404);
const note = (options: FetchOptions, message: string) => (options.progress ?? silentProgress).note(message);

/**
 * The newest run whose last step's index is published, with the steps it publishes: providers
 * write a run's files in step order, so a run without its last index is still being written.
 */
async function latestRun(client: Client, options: FetchOptions, steps: readonly number[]): Promise<{ run: Date; steps: number[] }> {
  const { layout } = options;
  const now = (options.now ?? (() => new Date()))();
  const newest = Math.floor(now.getTime() / sixHours) * sixHours;
  for (let back = 0; back < latestCandidates; back++) {
    const run = new Date(newest - back * sixHours);
    const runSteps = layout.stepsOf(run, steps);
    if (runSteps.length === 0) continue;
    const url = layout.indexUrl(layout.fileUrl(options.baseUrl, run, runSteps.at(-1)!));
    const answer = await client.request(url, { method: 'HEAD' });
    if (answer.status !== 404) return { run, steps: runSteps };
    note(options, `Run ${runStamp(run)} is not complete yet (${url} is missing)`);
  }
  throw new FetchError(`No complete ${layout.name} run in the 24 h before ${now.toISOString()} at ${options.baseUrl}`);
}

const grib = [0x47, 0x52, 0x49, 0x42];

/** Every message of a chunk must be a GRIB2 message exactly as long as the index says. */
function checkMessages(chunk: Uint8Array, range: ByteRange, url: string): void {
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  for (const message of range.messages) {
    const at = message.offset - range.start;
    const length = (message.end ?? range.start + chunk.length - 1) - message.offset + 1;
    if (length < 16 || grib.some((byte, i) => chunk[at + i] !== byte) || chunk[at + 7] !== 2) {
      throw new FetchError(`${url}: the bytes at ${message.offset} are not a GRIB2 message`, url);
    }
    const declared = view.getBigUint64(at + 8);
    if (declared !== BigInt(length)) {
      throw new FetchError(`${url}: the message at ${message.offset} declares ${declared} bytes, the index ${length}`, url);
    }
  }
}

/** A range answer with fewer bytes than asked for (a transfer cut short, a file still being written). */
class ShortRange extends FetchError {}

async function rangeOnce(client: Client, url: string, range: ByteRange): Promise<Uint8Array> {
  const header = `bytes=${range.start}-${range.end ?? ''}`;
  const answer = await client.request(url, { range });
  if (answer.status === 404) throw missing(url);
  if (answer.status === 206) {
    const contentRange = answer.headers['content-range'] ?? '';
    const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
    if (!match || Number(match[1]) !== range.start) {
      throw new FetchError(`${url}: asked for ${header}, got Content-Range ${JSON.stringify(contentRange)}`, url, 206);
    }
    if (range.end !== null && Number(match[2]) !== range.end) {
      throw new ShortRange(`${url}: asked for ${header}, got Content-Range ${JSON.stringify(contentRange)}`, url, 206);
    }
    const expected = Number(match[2]) - range.start + 1;
    if (answer.body.length !== expected) {
      throw new ShortRange(`${url}: expected ${expected} bytes for ${header}, got ${answer.body.length}`, url, 206);
    }
    return answer.body;
  }
  if (answer.status === 200) {
    // The server ignores Range and sends the whole file.
    if (answer.body.length <= (range.end ?? range.start)) {
      throw new ShortRange(`${url}: the file has ${answer.body.length} bytes, the index needs ${header}`, url, 200);
    }
    return answer.body.subarray(range.start, range.end === null ? undefined : range.end + 1);
  }
  throw new FetchError(`${url}: unexpected HTTP ${answer.status} for ${header}`, url, answer.status);
}

/** A range, asked again (with backoff) while the answer comes back short. */
async function fetchRange(client: Client, options: FetchOptions, url: string, range: ByteRange): Promise<Uint8Array> {
  const retries = options.retries ?? 3;
  for (let attempt = 1; ; attempt++) {
    try {
      const chunk = await rangeOnce(client, url, range);
      checkMessages(chunk, range, url);
      return chunk;
    } catch (error) {
      if (!(error instanceof ShortRange) || client.aborted) throw error;
      if (attempt > retries) throw new FetchError(`${error.message} (after ${attempt} attempts)`, url, error.status);
      const delayMs = Math.min(maxBackoffMs, firstBackoffMs * 2 ** (attempt - 1));
      note(options, `${error.message}; retrying in ${delayMs} ms`);
      await sleep(delayMs);
    }
  }
}

/** One step's wanted messages into one file; null when its index lists none of them (step 0 has no averages). */
async function downloadStep(client: Client, options: FetchOptions, run: Date, step: number, written: string[]): Promise<string | null> {
  const { layout } = options;
  const url = layout.fileUrl(options.baseUrl, run, step);
  const indexUrl = layout.indexUrl(url);
  const answer = await client.request(indexUrl);
  if (answer.status === 404) throw missing(indexUrl);
  let ranges: ByteRange[];
  try {
    ranges = layout.ranges(new TextDecoder().decode(answer.body), run, step, options.selectors);
  } catch (error) {
    if (error instanceof IndexError) throw new FetchError(`${indexUrl}: ${error.message}`, indexUrl, answer.status);
    throw error;
  }
  if (ranges.length === 0) {
    note(options, `${indexUrl} lists none of the wanted fields`);
    return null;
  }
  const chunks: Uint8Array[] = [];
  for (const range of ranges) chunks.push(await fetchRange(client, options, url, range));
  const file = path.join(options.directory, `${runStamp(run)}-f${pad(step, 3)}.grib2`);
  written.push(file);
  const data = Buffer.concat(chunks);
  try {
    await writeFile(file, data);
  } catch (error) {
    throw new FetchError(`Cannot write ${file}: ${(error as Error).message}`);
  }
  note(options, `${url}: ${data.length} bytes in ${ranges.length} range request(s)`);
  return file;
}

/** Forecast hours ascending, each once. */
function checkedSteps(options: FetchOptions): number[] {
  const steps = [...new Set(options.steps)].sort((a, b) => a - b);
  if (steps.length === 0 || steps.some((step) => !Number.isInteger(step) || step < 0 || step > 999)) {
    throw new FetchError(`Steps must be whole forecast hours from 0 to 999, got ${JSON.stringify(options.steps)}`);
  }
  return steps;
}

function clientFor(options: FetchOptions, signal: AbortSignal): Client {
  return new Client(options.retries ?? 3, options.timeoutMs ?? 60_000, signal, (message) => note(options, message));
}

/** The run `run: 'latest'` stands for, found without downloading it (to tell whether it is new). */
export async function latestAvailableRun(options: FetchOptions): Promise<Date> {
  const { run } = await latestRun(clientFor(options, new AbortController().signal), options, checkedSteps(options));
  return run;
}

export async function downloadRun(options: FetchOptions): Promise<{ referenceTime: Date; files: string[] }> {
  const { layout } = options;
  const progress = options.progress ?? silentProgress;
  const configured = checkedSteps(options);
  if (options.run !== 'latest' && options.run.getTime() % sixHours !== 0) {
    throw new FetchError(`${layout.name} runs start at 00, 06, 12 and 18 UTC, not at ${options.run.toISOString()}`);
  }
  if (!layout.publishes(options.selectors)) throw new FetchError(`None of the requested fields is published in ${layout.name} files`);

  const controller = new AbortController();
  const client = clientFor(options, controller.signal);
  if (options.run === 'latest') progress.phase(`Finding the latest complete ${layout.name} run`);
  const { run: referenceTime, steps } =
    options.run === 'latest' ? await latestRun(client, options, configured) : { run: options.run, steps: layout.stepsOf(options.run, configured) };
  if (steps.length === 0) throw new FetchError(`${layout.name} run ${runStamp(referenceTime)} publishes none of the steps ${configured.join(', ')}`);
  progress.phase(`Downloading ${layout.name} run ${runStamp(referenceTime)}, ${steps.length} step(s)`, steps.length);
  await mkdir(options.directory, { recursive: true });

  const written: string[] = [];
  const files: (string | null)[] = [];
  const failures: unknown[] = [];
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (failures.length === 0 && next < steps.length) {
      const index = next++;
      try {
        files[index] = await downloadStep(client, options, referenceTime, steps[index]!, written);
        progress.update(++done);
      } catch (error) {
        // The first failure stops the others; their aborted requests are not the cause.
        if (failures.push(error) === 1) controller.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(stepConcurrency, steps.length) }, worker));
  progress.end();
  if (failures.length > 0) {
    await Promise.all(written.map((file) => rm(file, { force: true })));
    throw failures[0];
  }
  const list = files.filter((file): file is string => file !== null);
  if (list.length === 0) throw new FetchError(`No step of ${layout.name} run ${runStamp(referenceTime)} lists any of the wanted fields`);
  return { referenceTime, files: list };
}
