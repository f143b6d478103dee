import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { ecmwfLayout } from '../../../src/weather/providers/ecmwf-layout.js';
import { downloadRun, FetchError, type FetchOptions } from '../../../src/weather/providers/fetch.js';
import { fetchRun, scheduleFetches } from '../../../src/weather/providers/schedule.js';
import { defaultVariables } from '../../../src/weather/variables.js';
import { LogCapture, newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';
import { requirePeers } from '../../peers.js';
import { tempDir } from '../../scratch.js';
import { assertWeatherCatalogResult } from '../catalog-spec.js';
import { ecmwfFields, ecmwfPath, publishEcmwfStep, type IndexLine } from '../ecmwf-files.js';
import { ForecastServer } from '../forecast-server.js';
import { notesInto } from '../progress-notes.js';

const root = tempDir();
const scratch = tempDir();
const prefix = '/forecasts';
const server = new ForecastServer(root, prefix);
let baseUrl: string;
let fields: string;

const noon = new Date('2026-08-30T12:00:00Z');
const evening = new Date('2026-08-30T18:00:00Z');
const nextDay = new Date('2026-08-31T00:00:00Z');
const steps = [0, 3, 6];
/** Per step of the noon run, the fields ecCodes reads in its file. */
const noonLines = new Map<number, IndexLine[]>();

const selectorsOf = (ids: string[]) => defaultVariables.filter((v) => ids.includes(v.id)).flatMap((v) => v.fields);
const outputDirectory = () => mkdtempSync(path.join(scratch, 'run-'));
const options = (overrides: Partial<FetchOptions> = {}): FetchOptions => ({
  layout: ecmwfLayout('ifs'),
  baseUrl,
  run: noon,
  steps,
  selectors: selectorsOf(['temperature-2m', 'wind-10m']),
  directory: outputDirectory(),
  retries: 2,
  ...overrides,
});
const fileOf = (run: Date, step: number) => path.join(root, prefix, ecmwfPath('ifs', run, step));
const indexOf = (run: Date, step: number) => fileOf(run, step).replace(/\.grib2$/, '.index');
const urlOf = (run: Date, step: number) => `${baseUrl}/${ecmwfPath('ifs', run, step)}`;

/** The bytes of the named fields of a step's file, in file order, as ecCodes located them. */
function bytesOf(run: Date, step: number, lines: IndexLine[], params: string[]): Buffer {
  const data = readFileSync(fileOf(run, step));
  return Buffer.concat(lines.filter((l) => params.includes(l.param)).map((l) => data.subarray(l._offset, l._offset + l._length)));
}

before(async () => {
  requirePeers('ecCodes', 'gribExamples');
  fields = ecmwfFields(path.join(scratch, 'fields'));
  for (const step of steps) noonLines.set(step, publishEcmwfStep(path.join(root, prefix), fields, 'ifs', noon, step));
  // The 18 UTC run is still being written: its last step has no index yet.
  for (const step of steps) publishEcmwfStep(path.join(root, prefix), fields, 'ifs', evening, step, { index: step !== 6 });
  // The next day's run lacks its step 3 altogether.
  for (const step of [0, 6]) publishEcmwfStep(path.join(root, prefix), fields, 'ifs', nextDay, step);
  baseUrl = await server.listen();
});
beforeEach(() => server.reset());
after(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

test("file names follow ECMWF's layout: IFS oper at 00/12 UTC, scda at 06/18 UTC up to 90 h, AIFS oper every 6 h", () => {
  const ifs = ecmwfLayout('ifs');
  const aifs = ecmwfLayout('aifs-single');
  const may12 = new Date('2026-05-12T00:00:00Z');
  // ECMWF's own example of the 00 UTC forecast at step 24.
  assert.equal(ifs.fileUrl('https://data.ecmwf.int/forecasts/', may12, 24), 'https://data.ecmwf.int/forecasts/20260512/00z/ifs/0p25/oper/20260512000000-24h-oper-fc.grib2');
  assert.equal(ifs.indexUrl(ifs.fileUrl('R', may12, 24)), 'R/20260512/00z/ifs/0p25/oper/20260512000000-24h-oper-fc.index');
  assert.equal(ifs.fileUrl('R', evening, 6), 'R/20260830/18z/ifs/0p25/scda/20260830180000-6h-scda-fc.grib2');
  assert.equal(aifs.fileUrl('R', evening, 6), 'R/20260830/18z/aifs-single/0p25/oper/20260830180000-6h-oper-fc.grib2');
  const asked = [0, 3, 87, 90, 93, 144, 147, 150, 240, 246, 360, 366];
  assert.deepEqual(ifs.stepsOf(may12, asked), [0, 3, 87, 90, 93, 144, 150, 240, 246, 360]);
  assert.deepEqual(ifs.stepsOf(evening, asked), [0, 3, 87, 90]);
  assert.deepEqual(aifs.stepsOf(evening, asked), [0, 90, 144, 150, 240, 246, 360]);
});

test('only the configured fields are transferred: the bytes served are the ranges ecCodes locates, adjacent fields in one request', async () => {
  const directory = outputDirectory();
  const result = await downloadRun(options({ directory }));
  assert.deepEqual(result.files.map((f) => path.basename(f)), ['2026083012-f000.grib2', '2026083012-f003.grib2', '2026083012-f006.grib2']);
  let expected = 0;
  for (const [k, step] of steps.entries()) {
    const wanted = bytesOf(noon, step, noonLines.get(step)!, ['2t', '10u', '10v']);
    assert.ok(readFileSync(result.files[k]!).equals(wanted), `step ${step}`);
    expected += wanted.length;
  }
  const traffic = server.gribTraffic();
  assert.equal(traffic.bytes, expected);
  // 2t and 10u are adjacent; 850 hPa humidity lies between 10u and 10v: two ranges a step, at the same offsets in every step.
  assert.equal(traffic.ranges.length, steps.length * 2);
  const [twoT, tenU, , tenV] = noonLines.get(0)!.slice(1);
  assert.deepEqual([...new Set(traffic.ranges)].sort(), [
    `bytes=${twoT!._offset}-${tenU!._offset + tenU!._length - 1}`,
    `bytes=${tenV!._offset}-${tenV!._offset + tenV!._length - 1}`,
  ].sort());
});

test('every default variable: all fields but surface pressure and 850 hPa humidity', async () => {
  const result = await downloadRun(options({ steps: [3], selectors: defaultVariables.flatMap((v) => v.fields) }));
  const lines = noonLines.get(3)!;
  const wanted = lines.map((l) => l.param).filter((p) => p !== 'sp' && p !== 'r');
  assert.deepEqual(wanted, ['2t', '10u', '10v', 'msl', 'tp', 'tprate', 'tcc', '2r', '10fg3']);
  assert.ok(readFileSync(result.files[0]!).equals(bytesOf(noon, 3, lines, wanted)));
  assert.equal(server.gribTraffic().bytes, bytesOf(noon, 3, lines, wanted).length);
});

test('AIFS Single: a 06 UTC run in stream oper, asked only for its 6-hourly steps', async () => {
  const morning = new Date('2026-08-30T06:00:00Z');
  for (const step of [0, 6]) publishEcmwfStep(path.join(root, prefix), fields, 'aifs-single', morning, step);
  const result = await downloadRun(options({ layout: ecmwfLayout('aifs-single'), run: morning }));
  assert.deepEqual(result.files.map((f) => path.basename(f)), ['2026083006-f000.grib2', '2026083006-f006.grib2']);
  const indexes = server.requests.filter((r) => r.path.endsWith('.index')).map((r) => r.path.slice(prefix.length + 1)).sort();
  assert.deepEqual(indexes, [
    '20260830/06z/aifs-single/0p25/oper/20260830060000-0h-oper-fc.index',
    '20260830/06z/aifs-single/0p25/oper/20260830060000-6h-oper-fc.index',
  ]);
});

test('latest picks the newest complete run, passing over one whose last step has no index yet', async () => {
  const progress: string[] = [];
  const result = await downloadRun(options({ run: 'latest', now: () => new Date('2026-08-30T23:00:00Z'), progress: notesInto(progress) }));
  assert.equal(result.referenceTime.toISOString(), noon.toISOString());
  const probes = server.requests.filter((r) => r.method === 'HEAD').map((r) => [r.path.slice(prefix.length + 1), r.status]);
  assert.deepEqual(probes, [
    ['20260830/18z/ifs/0p25/scda/20260830180000-6h-scda-fc.index', 404],
    ['20260830/12z/ifs/0p25/oper/20260830120000-6h-oper-fc.index', 200],
  ]);
  assert.ok(progress.some((m) => m.startsWith('Run 2026083018 is not complete yet')), progress.join('\n'));
});

test('a missing step fails with a FetchError naming its index, and leaves no file', async () => {
  const directory = outputDirectory();
  await assert.rejects(downloadRun(options({ run: nextDay, directory })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.equal(error.status, 404);
    assert.equal(error.url, urlOf(nextDay, 3).replace(/\.grib2$/, '.index'));
    return true;
  });
  assert.deepEqual(readdirSync(directory), []);
});

test('an index of another run is refused', async () => {
  const index = indexOf(noon, 0);
  const text = readFileSync(index, 'utf8');
  try {
    execFileSync('cp', [indexOf(evening, 0), index]);
    await assert.rejects(downloadRun(options({ steps: [0] })), /-0h-oper-fc\.index: \w+ belongs to run 20260830 1800, not 20260830 1200/);
  } finally {
    execFileSync('sh', ['-c', 'cat > "$1"', 'sh', index], { input: text });
  }
});

test('a range cut short is retried, and named with its URL when it stays short', async () => {
  // First a body that stops early (the connection closes), then a Content-Range short of the asked end.
  let faults = ['cut', 'short'];
  server.intercept = (request, response) => {
    const match = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
    const fault = faults[0];
    if (!match || !fault) return false;
    faults = faults.slice(1);
    const [start, end] = [Number(match[1]), Number(match[2])];
    const data = readFileSync(path.join(root, decodeURIComponent(new URL(request.url!, 'http://x').pathname)));
    if (fault === 'cut') {
      response.writeHead(206, { 'Content-Length': end - start + 1, 'Content-Range': `bytes ${start}-${end}/${data.length}` });
      response.write(data.subarray(start, start + 100));
      setTimeout(() => request.socket.destroy(), 20);
    } else {
      response.writeHead(206, { 'Content-Length': end - start - 99, 'Content-Range': `bytes ${start}-${end - 100}/${data.length}` });
      response.end(data.subarray(start, end - 99));
    }
    return true;
  };
  const progress: string[] = [];
  const result = await downloadRun(options({ steps: [6], progress: notesInto(progress) }));
  assert.ok(readFileSync(result.files[0]!).equals(bytesOf(noon, 6, noonLines.get(6)!, ['2t', '10u', '10v'])));
  assert.deepEqual(faults, []);
  assert.ok(progress.some((m) => /-6h-oper-fc\.grib2: .*retrying in \d+ ms/.test(m) && !m.includes('Content-Range')), progress.join('\n'));
  assert.ok(progress.some((m) => /-6h-oper-fc\.grib2: asked for bytes=\d+-\d+, got Content-Range .*; retrying in \d+ ms/.test(m)), progress.join('\n'));

  const directory = outputDirectory();
  faults = Array(10).fill('short');
  await assert.rejects(downloadRun(options({ steps: [6], retries: 1, directory })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.equal(error.url, urlOf(noon, 6));
    assert.match(error.message, /-6h-oper-fc\.grib2: asked for bytes=\d+-\d+, got Content-Range "bytes \d+-\d+\/\d+" \(after 2 attempts\)$/);
    return true;
  });
  assert.deepEqual(readdirSync(directory), []);
});

let app: TestServer;

test('a run published while a fetch is in progress: the fetch finishes the run it found; the next fetch takes the new one', async () => {
  app = await startTestServer(testConfig({ weather: { ...testConfig().weather, ecmwf: { ...testConfig().weather.ecmwf, baseUrl, steps: '0-6/3' } } }));
  const index = indexOf(evening, 6);
  const now = () => new Date('2026-08-30T23:00:00Z');
  let published = false;
  server.intercept = (request) => {
    // The 18 UTC run completes as soon as the first field of the 12 UTC run is asked for.
    if (!published && request.headers.range) {
      published = true;
      publishEcmwfStep(path.join(root, prefix), fields, 'ifs', evening, 6);
    }
    return false;
  };
  try {
    const report = await fetchRun(app.meridian, 'ifs', 'latest', { now });
    assert.ok(published);
    assert.equal(report!.runs.length, 1);
    assert.equal(report!.runs[0]!.referenceTime, noon.toISOString());
    const fetched = server.requests.filter((r) => r.method === 'GET').map((r) => r.path);
    assert.ok(fetched.length > 0 && fetched.every((p) => p.includes('/20260830/12z/ifs/0p25/oper/20260830120000-')), fetched.join('\n'));
    // Every default variable ECMWF publishes, each at every step it has (step 0's totals and maxima cover no time).
    const ids = [...new Set(report!.runs[0]!.keyframes.map((k) => k.variable_id))].sort();
    assert.deepEqual(ids, [
      'cloud_cover-total:ifs', 'precipitation-1h:ifs', 'precipitation_rate:ifs', 'pressure-msl:ifs', 'relative_humidity-2m:ifs',
      'temperature-2m:ifs', 'wind-10m:ifs', 'wind_gust-10m:ifs',
    ]);
    assert.equal(report!.runs[0]!.keyframes.filter((k) => k.variable_id === 'precipitation-1h:ifs').length, 2);
    assert.ok(report!.skipped.some((line) => /parameter 0\.1\.193, .*a statistic over no time/.test(line)), report!.skipped.join('\n'));

    server.reset();
    const next = await fetchRun(app.meridian, 'ifs', 'latest', { now });
    assert.equal(next!.runs[0]!.referenceTime, evening.toISOString());
    assert.ok(server.requests.filter((r) => r.method === 'GET').every((r) => r.path.includes('/20260830/18z/ifs/0p25/scda/')));
  } finally {
    renameSync(index, `${index}.published`);
  }
});

test("the catalog after an ECMWF run is the spec's WeatherCatalogResult, each variable attributed to the model", async () => {
  const { accountId } = await newAccount(app.meridian);
  const key = (await app.meridian.keys.create(accountId, {})).token;
  try {
    const response = await app.server.public.inject({ method: 'GET', url: `/weather/latest.json?key=${key}` });
    assert.equal(response.statusCode, 200);
    const catalog = response.json();
    assertWeatherCatalogResult(catalog);
    assert.equal(catalog.variables.length, 8);
    for (const entry of catalog.variables) {
      const variable = entry.metadata.weather_variable;
      assert.match(variable.variable_id, /^[a-z0-9_-]+:ifs$/);
      assert.equal(variable.attribution, 'ECMWF IFS open data, CC-BY-4.0');
      assert.equal(variable.release_timestamp, evening.toISOString());
      assert.ok(entry.keyframes.length >= 2, variable.variable_id);
    }
  } finally {
    await app.close();
  }
});

test('serve fetches each configured ECMWF model under its own lease: skipped while another instance holds it', async () => {
  const logs = new LogCapture();
  const config = testConfig({ weather: { ...testConfig().weather, ecmwf: { ...testConfig().weather.ecmwf, baseUrl, steps: '0-6/3', intervalMinutes: 60 } } });
  const instance = await startTestServer(config, { logStream: logs });
  const log = {
    info: (object: object, message: string) => logs.lines.push(JSON.stringify({ ...object, msg: message })),
    warn: (object: object, message: string) => logs.lines.push(JSON.stringify({ ...object, msg: message })),
  };
  const until = async (pattern: RegExp) => {
    while (!pattern.test(logs.text)) await new Promise((resolve) => setTimeout(resolve, 50));
  };
  // serve looks for runs as of the real time: a run of half a day ago is published.
  const recent = new Date(Math.floor(Date.now() / 21_600_000) * 21_600_000 - 12 * 3_600_000);
  for (const step of steps) publishEcmwfStep(path.join(root, prefix), fields, 'ifs', recent, step);
  try {
    await instance.meridian.db.query(`INSERT INTO meridian_settings (name, value) VALUES ('weather_fetch_lease:ifs', $1)`, [`another-instance ${new Date().toISOString()}`]);
    let stop = scheduleFetches(instance.meridian, log);
    await until(/another instance holds the lease|looking for a new run|weather fetch failed/);
    stop();
    assert.match(logs.text, /another instance holds the lease/);
    assert.doesNotMatch(logs.text, /looking for a new run/);
    assert.equal(server.requests.length, 0);
    // The other instance died an hour and more ago: its lease has lapsed.
    await instance.meridian.db.query(`UPDATE meridian_settings SET value = $1 WHERE name = 'weather_fetch_lease:ifs'`, [`another-instance ${new Date(Date.now() - 2 * 3_600_000).toISOString()}`]);
    stop = scheduleFetches(instance.meridian, log);
    await until(/weather run fetched and published|weather fetch failed/);
    stop();
    assert.match(logs.text, new RegExp(`"model":"ifs","runs":\\["${recent.toISOString()}"\\].*weather run fetched and published`));
    assert.match(logs.text, /"phase":"Downloading ECMWF IFS run \d{10}, 3 step\(s\)","total":3,"msg":"started"/);
    const lease = await instance.meridian.db.query(`SELECT value FROM meridian_settings WHERE name = 'weather_fetch_lease:ifs'`);
    assert.deepEqual(lease, [], 'the lease is released after the fetch');
  } finally {
    await instance.close();
  }
});
