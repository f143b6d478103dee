import { mkdir, rm, writeFile } from 'node:fs/promises';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { HttpClient, HttpClientError } from '../platform/http-client.js';
import { byteRanges, IdxError, parseIdx, type ByteRange, type IdxName } from './idx.js';
import type { FieldSelector } from './variables.js';

/**
 * `meridian weather fetch --model gfs`: downloads one GFS run from a server in the NOMADS layout,
 * `{baseUrl}/gfs.YYYYMMDD/HH/atmos/gfs.tHHz.pgrb2.0p25.fFFF`, fetching only the wanted fields:
 * each file's `.idx` inventory gives their byte ranges, requested with HTTP range requests.
 * A step's messages are written to `{directory}/YYYYMMDDHH-fFFF.grib2`, ready for `ingestFiles`.
 */

export interface FetchOptions {
  baseUrl: string;
  run: 'latest' | Date;
  steps: readonly number[];
  resolution: '0p25' | '0p50' | '1p00';
  selectors: readonly FieldSelector[];
  directory: string;
  /** Further attempts after a network error, a timeout, a 5xx or a 429; 3 when absent. */
  retries?: number;
  /** Per attempt, body included; 60 s when absent. */
  timeoutMs?: number;
  now?: () => Date;
  onProgress?: (message: string) => void;
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

/** Inventory names of the fields GFS files carry, by the selectors of the variable table. */
const inventory: { selector: FieldSelector; name: IdxName }[] = [
  { selector: { discipline: 0, category: 0, number: 0, levelType: 103, level: 2 }, name: { variable: 'TMP', level: '2 m above ground' } },
  { selector: { discipline: 0, category: 2, number: 2, levelType: 103, level: 10 }, name: { variable: 'UGRD', level: '10 m above ground' } },
  { selector: { discipline: 0, category: 2, number: 3, levelType: 103, level: 10 }, name: { variable: 'VGRD', level: '10 m above ground' } },
  { selector: { discipline: 0, category: 3, number: 1, levelType: 101 }, name: { variable: 'PRMSL', level: 'mean sea level' } },
  { selector: { discipline: 0, category: 1, number: 7, levelType: 1 }, name: { variable: 'PRATE', level: 'surface' } },
  { selector: { discipline: 0, category: 1, number: 8, levelType: 1 }, name: { variable: 'APCP', level: 'surface' } },
  // The inventory names both the entire atmosphere as a single layer (10) and NCEP's local surface 200 alike.
  { selector: { discipline: 0, category: 6, number: 1, levelType: 10 }, name: { variable: 'TCDC', level: 'entire atmosphere' } },
  { selector: { discipline: 0, category: 6, number: 1, levelType: 200 }, name: { variable: 'TCDC', level: 'entire atmosphere' } },
  { selector: { discipline: 0, category: 16, number: 196, levelType: 10 }, name: { variable: 'REFC', level: 'entire atmosphere' } },
  { selector: { discipline: 0, category: 1, number: 39, levelType: 1 }, name: { variable: 'CPOFP', level: 'surface' } },
];

/** Selectors without an inventory name are left out: GFS files do not carry them. */
function inventoryNames(selectors: readonly FieldSelector[]): IdxName[] {
  const names = new Map<string, IdxName>();
  for (const selector of selectors) {
    for (const { selector: known, name } of inventory) {
      const same =
        selector.discipline === known.discipline &&
        selector.category === known.category &&
        selector.number === known.number &&
        selector.levelType === known.levelType &&
        (selector.level === undefined || known.level === undefined || selector.level === known.level);
      if (same) names.set(`${name.variable}:${name.level}`, name);
    }
  }
  return [...names.values()];
}

const sixHours = 6 * 3_600_000;
/** Runs probed by `latest`, newest first: the current cycle and the four before it (24 h). */
const latestCandidates = 5;
const stepConcurrency = 4;
const firstBackoffMs = 200;
const maxBackoffMs = 5_000;

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `YYYYMMDDHH` of a cycle, as in the inventories' `d=` and the names of the written files. */
function runStamp(run: Date): string {
  return `${run.getUTCFullYear()}${pad(run.getUTCMonth() + 1, 2)}${pad(run.getUTCDate(), 2)}${pad(run.getUTCHours(), 2)}`;
}

function fileUrl(options: FetchOptions, run: Date, step: number): string {
  const stamp = runStamp(run);
  const hour = stamp.slice(8);
  const base = options.baseUrl.replace(/\/+$/, '');
  return `${base}/gfs.${stamp.slice(0, 8)}/${hour}/atmos/gfs.t${hour}z.pgrb2.${options.resolution}.f${pad(step, 3)}`;
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

/** The newest cycle whose last step's inventory is published: NOMADS writes a run's files in step order. */
async function latestRun(client: Client, options: FetchOptions, lastStep: number): Promise<Date> {
  const now = (options.now ?? (() => new Date()))();
  const newest = Math.floor(now.getTime() / sixHours) * sixHours;
  for (let back = 0; back < latestCandidates; back++) {
    const run = new Date(newest - back * sixHours);
    const url = `${fileUrl(options, run, lastStep)}.idx`;
    const answer = await client.request(url, { method: 'HEAD' });
    if (answer.status !== 404) return run;
    options.onProgress?.(`Run ${runStamp(run)} is not complete yet (${url} is missing)`);
  }
  throw new FetchError(`No complete GFS run in the 24 h before ${now.toISOString()} at ${options.baseUrl}`);
}

const grib = [0x47, 0x52, 0x49, 0x42];

/** Every message of a chunk must be a GRIB2 message exactly as long as the inventory says. */
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
      throw new FetchError(`${url}: the message at ${message.offset} declares ${declared} bytes, the inventory ${length}`, url);
    }
  }
}

async function fetchRange(client: Client, url: string, range: ByteRange): Promise<Uint8Array> {
  const header = `bytes=${range.start}-${range.end ?? ''}`;
  const answer = await client.request(url, { range });
  if (answer.status === 404) throw missing(url);
  let chunk: Uint8Array;
  if (answer.status === 206) {
    const contentRange = answer.headers['content-range'] ?? '';
    const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(contentRange);
    if (!match || Number(match[1]) !== range.start || (range.end !== null && Number(match[2]) !== range.end)) {
      throw new FetchError(`${url}: asked for ${header}, got Content-Range ${JSON.stringify(contentRange)}`, url, 206);
    }
    const expected = Number(match[2]) - range.start + 1;
    if (answer.body.length !== expected) {
      throw new FetchError(`${url}: expected ${expected} bytes for ${header}, got ${answer.body.length}`, url, 206);
    }
    chunk = answer.body;
  } else if (answer.status === 200) {
    // The server ignores Range and sends the whole file.
    if (answer.body.length <= (range.end ?? range.start)) {
      throw new FetchError(`${url}: the file has ${answer.body.length} bytes, the inventory needs ${header}`, url, 200);
    }
    chunk = answer.body.subarray(range.start, range.end === null ? undefined : range.end + 1);
  } else {
    throw new FetchError(`${url}: unexpected HTTP ${answer.status} for ${header}`, url, answer.status);
  }
  checkMessages(chunk, range, url);
  return chunk;
}

/** One step's wanted messages into one file; null when its inventory lists none of them (f000 has no averages). */
async function downloadStep(
  client: Client,
  options: FetchOptions,
  run: Date,
  step: number,
  names: readonly IdxName[],
  written: string[],
): Promise<string | null> {
  const url = fileUrl(options, run, step);
  const idxUrl = `${url}.idx`;
  const answer = await client.request(idxUrl);
  if (answer.status === 404) throw missing(idxUrl);
  let ranges: ByteRange[];
  try {
    const entries = parseIdx(new TextDecoder().decode(answer.body));
    const other = entries.find((entry) => entry.date !== runStamp(run));
    if (other) throw new IdxError(`message ${other.message} belongs to run ${other.date}, not ${runStamp(run)}`);
    ranges = byteRanges(entries, names);
  } catch (error) {
    if (error instanceof IdxError) throw new FetchError(`${idxUrl}: ${error.message}`, idxUrl, answer.status);
    throw error;
  }
  if (ranges.length === 0) {
    options.onProgress?.(`${idxUrl} lists none of the wanted fields`);
    return null;
  }
  const chunks: Uint8Array[] = [];
  for (const range of ranges) chunks.push(await fetchRange(client, url, range));
  const file = path.join(options.directory, `${runStamp(run)}-f${pad(step, 3)}.grib2`);
  written.push(file);
  const data = Buffer.concat(chunks);
  try {
    await writeFile(file, data);
  } catch (error) {
    throw new FetchError(`Cannot write ${file}: ${(error as Error).message}`);
  }
  options.onProgress?.(`${url}: ${data.length} bytes in ${ranges.length} range request(s)`);
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
  return new Client(options.retries ?? 3, options.timeoutMs ?? 60_000, signal, options.onProgress ?? (() => {}));
}

/** The run `run: 'latest'` stands for, found without downloading it (to tell whether it is new). */
export async function latestAvailableRun(options: FetchOptions): Promise<Date> {
  const steps = checkedSteps(options);
  return latestRun(clientFor(options, new AbortController().signal), options, steps.at(-1)!);
}

export async function downloadRun(options: FetchOptions): Promise<{ referenceTime: Date; files: string[] }> {
  const steps = checkedSteps(options);
  if (options.run !== 'latest' && options.run.getTime() % sixHours !== 0) {
    throw new FetchError(`GFS runs start at 00, 06, 12 and 18 UTC, not at ${options.run.toISOString()}`);
  }
  const names = inventoryNames(options.selectors);
  if (names.length === 0) throw new FetchError('None of the requested fields is published in GFS files');

  const controller = new AbortController();
  const client = clientFor(options, controller.signal);
  const referenceTime = options.run === 'latest' ? await latestRun(client, options, steps.at(-1)!) : options.run;
  options.onProgress?.(`Downloading GFS run ${runStamp(referenceTime)}, ${steps.length} step(s)`);
  await mkdir(options.directory, { recursive: true });

  const written: string[] = [];
  const files: (string | null)[] = [];
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (failures.length === 0 && next < steps.length) {
      const index = next++;
      try {
        files[index] = await downloadStep(client, options, referenceTime, steps[index]!, names, written);
      } catch (error) {
        // The first failure stops the others; their aborted requests are not the cause.
        if (failures.push(error) === 1) controller.abort();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(stepConcurrency, steps.length) }, worker));
  if (failures.length > 0) {
    await Promise.all(written.map((file) => rm(file, { force: true })));
    throw failures[0];
  }
  const list = files.filter((file): file is string => file !== null);
  if (list.length === 0) throw new FetchError(`No step of GFS run ${runStamp(referenceTime)} lists any of the wanted fields`);
  return { referenceTime, files: list };
}
