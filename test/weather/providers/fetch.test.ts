import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { openMeridian } from '../../../src/meridian.js';
import { downloadRun, FetchError, latestAvailableRun, type FetchOptions } from '../../../src/weather/providers/fetch.js';
import { gfsLayout } from '../../../src/weather/providers/gfs-layout.js';
import { readGrib, type GribMessage } from '../../../src/weather/grib/grib2.js';
import { ingestFiles } from '../../../src/weather/ingest.js';
import { fetchRun } from '../../../src/weather/providers/schedule.js';
import { defaultVariables, type FieldSelector } from '../../../src/weather/variables.js';
import { cleanUp, testConfig } from '../../helpers.js';
import { ForecastServer } from '../forecast-server.js';
import { notesInto } from '../progress-notes.js';
import { tempDir } from '../../scratch.js';
import { GRIB_EXAMPLES, requirePeers } from '../../peers.js';

const examples = GRIB_EXAMPLES;

/** One GRIB message of a sample file: its bytes and the fields it holds (several for U/V pairs). */
interface Message {
  bytes: Buffer;
  fields: GribMessage[];
}

function messagesOf(file: string): Message[] {
  const data = readFileSync(file);
  const byOffset = new Map<number, GribMessage[]>();
  for (const field of readGrib(data).messages) byOffset.set(field.offset, [...(byOffset.get(field.offset) ?? []), field]);
  return [...byOffset].map(([offset, fields]) => ({
    bytes: data.subarray(offset, offset + Number(data.readBigUInt64BE(offset + 8))),
    fields,
  }));
}

/** NCEP's inventory names, written here independently of the fetcher's table. */
const variableNames: Record<string, string> = {
  '0.0.0': 'TMP',
  '0.2.2': 'UGRD',
  '0.2.3': 'VGRD',
  '0.3.1': 'PRMSL',
  '0.1.7': 'PRATE',
  '0.1.8': 'APCP',
  '0.6.1': 'TCDC',
  '0.1.3': 'PWAT',
  '0.4.4': 'BTMP',
  '0.1.1': 'RH',
  '0.2.22': 'GUST',
};

function inventoryName(field: GribMessage): string {
  const variable = variableNames[`${field.discipline}.${field.category}.${field.number}`] ?? `VAR${field.discipline}-${field.category}-${field.number}`;
  const surface = field.level.first;
  const level =
    surface?.type === 103 ? `${surface.value} m above ground`
    : surface?.type === 1 ? 'surface'
    : surface?.type === 101 ? 'mean sea level'
    : surface?.type === 10 || surface?.type === 200 ? 'entire atmosphere'
    : `surface ${surface?.type} ${surface?.value}`;
  return `${variable}:${level}`;
}

/** What the default variables ask a GFS file for. */
const wanted = new Set([
  'TMP:2 m above ground',
  'UGRD:10 m above ground',
  'VGRD:10 m above ground',
  'PRMSL:mean sea level',
  'PRATE:surface',
  'APCP:surface',
  'TCDC:entire atmosphere',
  'REFC:entire atmosphere',
  'RH:2 m above ground',
  'GUST:surface',
]);
const isWanted = (message: Message) => message.fields.some((f) => wanted.has(inventoryName(f)));

const stamp = (date: Date) => date.toISOString().slice(0, 13).replace(/[-T]/g, '');

/** A GRIB2 file of these messages and its inventory in the NCEP format (`N.k` for fields sharing a message). */
function layOut(messages: readonly Message[], run: Date): { data: Buffer; idx: string } {
  const lines: string[] = [];
  let offset = 0;
  messages.forEach((message, index) => {
    message.fields.forEach((field, k) => {
      const hours = (field.forecastTime.getTime() - run.getTime()) / 3_600_000;
      const number = message.fields.length > 1 ? `${index + 1}.${k + 1}` : `${index + 1}`;
      lines.push(`${number}:${offset}:d=${stamp(run)}:${inventoryName(field)}:${hours === 0 ? 'anl' : `${hours} hour fcst`}:`);
    });
    offset += message.bytes.length;
  });
  return { data: Buffer.concat(messages.map((m) => m.bytes)), idx: `${lines.join('\n')}\n` };
}

const root = tempDir();
const scratch = tempDir();
const outputDirectory = () => mkdtempSync(path.join(scratch, 'run-'));
const prefix = '/pub/data/nccf/com/gfs/prod';

function publish(run: Date, step: number, messages: readonly Message[], options: { idx?: boolean; stampedAs?: Date } = {}): void {
  const hour = stamp(run).slice(8);
  const directory = path.join(root, prefix, `gfs.${stamp(run).slice(0, 8)}`, hour, 'atmos');
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `gfs.t${hour}z.pgrb2.0p25.f${String(step).padStart(3, '0')}`);
  const { data, idx } = layOut(messages, options.stampedAs ?? run);
  writeFileSync(file, data);
  if (options.idx !== false) writeFileSync(`${file}.idx`, idx);
}

const nomads = new ForecastServer(root, prefix);
let baseUrl: string;
const safricaRun = new Date('2010-03-08T12:00:00Z');
const safricaSteps = [0, 3, 6, 9];
/** Per step, the PRATE message of the southern Africa sample: the one field the default variables want there. */
const precipitation = new Map<number, Message>();
const gfsRun = new Date('2011-01-10T12:00:00Z');
let gfsMessages: Message[];
const selectors: FieldSelector[] = defaultVariables.flatMap((v) => v.fields);

before(async () => {
  // Every test serves messages cut from python-grib-doc's examples.
  requirePeers('gribExamples');
  const safrica = messagesOf(path.join(examples, 'safrica.grib2'));
  safricaSteps.forEach((step, index) => {
    const [pwat, btmp, prate] = safrica.slice((step / 3) * 3, (step / 3) * 3 + 3) as [Message, Message, Message];
    assert.equal(inventoryName(prate.fields[0]!), 'PRATE:surface');
    precipitation.set(step, prate);
    // Wanted bytes between unwanted ones, or last in the file (a range open to the end).
    publish(safricaRun, step, index % 2 === 0 ? [pwat, prate, btmp] : [pwat, btmp, prate]);
    // A newer run still being written: its last step has no inventory yet.
    publish(new Date('2010-03-08T18:00:00Z'), step, [pwat, prate, btmp], { idx: step !== 9, stampedAs: safricaRun });
  });
  gfsMessages = messagesOf(path.join(examples, 'gfs.t12z.pgrbf120.2p5deg.grib2'));
  publish(gfsRun, 120, gfsMessages);
  baseUrl = await nomads.listen();
});

beforeEach(() => nomads.reset());

after(async () => {
  await nomads.close();
  rmSync(root, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

function options(overrides: Partial<FetchOptions> = {}): FetchOptions {
  return { layout: gfsLayout('0p25'), baseUrl, run: safricaRun, steps: safricaSteps, selectors, directory: outputDirectory(), ...overrides };
}

const assertEmpty = (directory: string) => assert.deepEqual(readdirSync(directory), []);

test('only the wanted messages are transferred: U and V fetched once, adjacent messages in one request', async () => {
  const directory = outputDirectory();
  const result = await downloadRun(options({ run: gfsRun, steps: [120], directory }));
  assert.equal(result.referenceTime.toISOString(), gfsRun.toISOString());
  assert.deepEqual(result.files, [path.join(directory, '2011011012-f120.grib2')]);
  const expected = Buffer.concat(gfsMessages.filter(isWanted).map((m) => m.bytes));
  assert.ok(readFileSync(result.files[0]!).equals(expected));
  const traffic = nomads.gribTraffic();
  assert.equal(traffic.bytes, expected.length);
  // In file order (grib_ls): 2 m temperature | 2 m humidity | 10 m U and V (one message) | PRATE + APCP (adjacent) | total cloud | gusts | PRMSL.
  assert.equal(traffic.ranges.length, 7);
  const fields = readGrib(readFileSync(result.files[0]!)).messages.map(inventoryName);
  assert.deepEqual(fields, [
    'TMP:2 m above ground', 'RH:2 m above ground', 'UGRD:10 m above ground', 'VGRD:10 m above ground', 'PRATE:surface', 'APCP:surface',
    'TCDC:entire atmosphere', 'GUST:surface', 'PRMSL:mean sea level',
  ]);
});

test('each step of a run keeps only its wanted message; selectors GFS files lack are skipped', async () => {
  const isobaricTemperature = { discipline: 0, category: 0, number: 0, levelType: 100, level: 85000 };
  const precipitationRate = { discipline: 0, category: 1, number: 7, levelType: 1 };
  const result = await downloadRun(options({ selectors: [isobaricTemperature, precipitationRate] }));
  assert.deepEqual(result.files.map((f) => path.basename(f)), ['2010030812-f000.grib2', '2010030812-f003.grib2', '2010030812-f006.grib2', '2010030812-f009.grib2']);
  result.files.forEach((file, index) => assert.ok(readFileSync(file).equals(precipitation.get(safricaSteps[index]!)!.bytes)));
  const traffic = nomads.gribTraffic();
  assert.equal(traffic.ranges.length, 4);
  // Steps 3 and 9 end with their PRATE message: those ranges are open to the end of the file.
  assert.equal(traffic.ranges.filter((r) => /^bytes=\d+-$/.test(r!)).length, 2);
  assert.equal(traffic.bytes, [...precipitation.values()].reduce((sum, m) => sum + m.bytes.length, 0));
  await assert.rejects(downloadRun(options({ selectors: [isobaricTemperature] })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.match(error.message, /None of the requested fields/);
    return true;
  });
});

test('latest picks the newest complete run, passing over one whose last step is not published yet', async () => {
  const now = () => new Date('2010-03-08T19:30:00Z');
  assert.equal((await latestAvailableRun(options({ run: 'latest', now }))).toISOString(), safricaRun.toISOString());
  assert.ok(nomads.requests.every((r) => r.method === 'HEAD'));
  nomads.reset();
  const result = await downloadRun(options({ run: 'latest', now }));
  assert.equal(result.referenceTime.toISOString(), safricaRun.toISOString());
  assert.equal(result.files.length, 4);
  const probes = nomads.requests.filter((r) => r.method === 'HEAD').map((r) => [r.path.split('/').slice(-4).join('/'), r.status]);
  assert.deepEqual(probes, [
    ['gfs.20100308/18/atmos/gfs.t18z.pgrb2.0p25.f009.idx', 404],
    ['gfs.20100308/12/atmos/gfs.t12z.pgrb2.0p25.f009.idx', 200],
  ]);
});

test('latest fails when no run of the last 24 hours is complete', async () => {
  const directory = outputDirectory();
  await assert.rejects(downloadRun(options({ run: 'latest', directory, now: () => new Date('2010-03-10T01:00:00Z') })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.match(error.message, /No complete GFS run/);
    return true;
  });
  assert.equal(nomads.requests.length, 5);
  assertEmpty(directory);
});

test('a server answering the first requests with 503 is retried until it answers', async () => {
  let failures = 2;
  nomads.intercept = (_request, response) => {
    if (failures === 0) return false;
    failures--;
    response.writeHead(503).end('busy');
    return true;
  };
  const progress: string[] = [];
  const result = await downloadRun(options({ steps: [3], progress: notesInto(progress) }));
  assert.ok(readFileSync(result.files[0]!).equals(precipitation.get(3)!.bytes));
  assert.equal(failures, 0);
  assert.equal(progress.filter((m) => m.includes('HTTP 503; retrying')).length, 2);
});

test('a dropped connection and a request that times out are retried', async () => {
  let dropped = false;
  let silent = false;
  nomads.intercept = (request, response) => {
    if (!request.headers.range) return false;
    if (!dropped) {
      dropped = true;
      request.socket.destroy();
      return true;
    }
    if (!silent) {
      silent = true;
      response.flushHeaders();
      return true;
    }
    return false;
  };
  const progress: string[] = [];
  const result = await downloadRun(options({ steps: [6], timeoutMs: 300, progress: notesInto(progress) }));
  assert.ok(readFileSync(result.files[0]!).equals(precipitation.get(6)!.bytes));
  assert.ok(dropped && silent);
  assert.ok(progress.some((m) => m.includes('within 300 ms')), progress.join('\n'));
});

test('retries give up with a FetchError naming the URL and status; other 4xx fail at once', async () => {
  const directory = outputDirectory();
  nomads.intercept = (_request, response) => {
    response.writeHead(503).end();
    return true;
  };
  await assert.rejects(downloadRun(options({ steps: [0], retries: 1, directory })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.equal(error.status, 503);
    assert.match(error.message, /\/gfs\.20100308\/12\/atmos\/gfs\.t12z\.pgrb2\.0p25\.f000\.idx: HTTP 503 \(after 2 attempts\)/);
    return true;
  });
  assert.equal(nomads.requests.length, 2);
  nomads.reset();
  nomads.intercept = (_request, response) => {
    response.writeHead(403).end();
    return true;
  };
  await assert.rejects(downloadRun(options({ steps: [0], directory })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.equal(error.status, 403);
    assert.match(error.message, /f000\.idx: HTTP 403/);
    return true;
  });
  assert.equal(nomads.requests.length, 1);
  assertEmpty(directory);
});

test('a server ignoring Range sends whole files, from which the messages are cut', async () => {
  nomads.ignoreRanges = true;
  const result = await downloadRun(options());
  result.files.forEach((file, index) => assert.ok(readFileSync(file).equals(precipitation.get(safricaSteps[index]!)!.bytes)));
  assert.ok(nomads.requests.every((r) => r.status === 200));
});

test('a missing step fails with a FetchError naming its URL and removes the files already written', async () => {
  const directory = outputDirectory();
  const progress: string[] = [];
  await assert.rejects(downloadRun(options({ steps: [...safricaSteps, 12], directory, progress: notesInto(progress) })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.equal(error.status, 404);
    assert.equal(error.url, `${baseUrl}/gfs.20100308/12/atmos/gfs.t12z.pgrb2.0p25.f012.idx`);
    assert.match(error.message, /f012\.idx: HTTP 404/);
    return true;
  });
  // Some steps were complete before the missing one was asked for.
  assert.ok(progress.some((m) => /bytes in 1 range request/.test(m)));
  assertEmpty(directory);
});

test('a chunk that is not a GRIB message fails cleanly, leaving no file', async () => {
  const directory = outputDirectory();
  nomads.corrupt = true;
  await assert.rejects(downloadRun(options({ directory })), (error: Error) => {
    assert.ok(error instanceof FetchError);
    assert.match(error.message, /pgrb2\.0p25\.f00\d: the bytes at \d+ are not a GRIB2 message/);
    return true;
  });
  assertEmpty(directory);
});

test('an inventory of another run is refused', async () => {
  await assert.rejects(downloadRun(options({ run: new Date('2010-03-08T18:00:00Z'), steps: [0] })), /belongs to run 2010030812, not 2010030818/);
});

test('downloaded steps ingest into one published run whose keyframes are the fetched steps', async () => {
  const config = testConfig();
  const meridian = await openMeridian(config);
  try {
    const { referenceTime, files } = await downloadRun(options({ directory: path.join(config.dataDir, 'downloads') }));
    const report = await ingestFiles(meridian.weather, meridian.weatherDirectory, files, {
      model: 'gfs',
      attribution: 'NCEP',
      variables: defaultVariables,
      format: 'png',
      keepRuns: 1,
    });
    assert.equal(report.runs.length, 1);
    assert.equal(report.runs[0]!.referenceTime, referenceTime.toISOString());
    // PRATE gives both the hourly precipitation and the radar-like rate.
    assert.deepEqual(
      report.runs[0]!.keyframes.map((k) => [k.variable_id, k.timestamp]),
      ['precipitation-1h:gfs', 'precipitation_rate:gfs'].flatMap((id) =>
        safricaSteps.map((step) => [id, new Date(referenceTime.getTime() + step * 3_600_000).toISOString()]),
      ),
    );
    const latest = await meridian.weather.latest();
    assert.deepEqual([...new Set(latest.map((r) => r.variable_id))], ['precipitation-1h:gfs', 'precipitation_rate:gfs']);
  } finally {
    await meridian.close();
    await cleanUp(config);
  }
});

test('fetchRun ingests the newest complete run as model gfs, then skips it while it is the latest', async () => {
  const config = testConfig();
  config.weather.fetch = { ...config.weather.fetch, baseUrl, steps: '0-9/3' };
  const meridian = await openMeridian(config);
  const now = () => new Date('2010-03-08T23:00:00Z');
  try {
    const report = await fetchRun(meridian, 'gfs', 'latest', { now });
    assert.equal(report!.runs[0]!.referenceTime, safricaRun.toISOString());
    assert.equal(report!.runs[0]!.keyframes.length, safricaSteps.length * 2);
    assert.deepEqual(readdirSync(path.join(meridian.weatherDirectory, 'incoming')), [], 'downloads are removed');
    nomads.reset();
    assert.equal(await fetchRun(meridian, 'gfs', 'latest', { now }), null);
    assert.equal(nomads.gribTraffic().bytes, 0, 'nothing downloaded the second time');
  } finally {
    await meridian.close();
    await cleanUp(config);
  }
});
