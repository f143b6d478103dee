/**
 * `npm run bench:weather`: GRIB2 decoding against ecCodes on the same files in the same run, and
 * tiling a 0.25° global field (1440 x 721, as GFS publishes) to zooms 0-4.
 *
 * ecCodes is timed with `grib_get -p average`, which decodes every value of every message; it
 * includes the process start, so a file is also timed with `grib_count` (no decoding) and that
 * floor is reported beside it. Both are started by a child process (command-timer.ts), so that
 * this one does not fork between its own rounds. The CCSDS (template 5.42) files are the GFS and
 * TIGGE samples repacked by ecCodes at the start of the run, as ECMWF's open data packs its fields.
 *
 * Serving during an ingest: /health asked every 10 ms (open loop) by a server while it ingests the
 * safrica sample (75 JPEG 2000 fields) on its weather worker pool, against the same ingest decoded
 * on the serving thread (as before the pool), and against an idle server.
 *
 * Point forecasts: 1,000 seeded random points asked one after the other through HTTP (keep-alive)
 * of a server holding the GFS sample (five variables, one keyframe each), then a 2 m temperature of
 * 97 hourly keyframes (a four-day GFS run of one variable: ecCodes writes the sample's field at 97
 * steps). Beside it, ecCodes' `grib_ls -l lat,lon,1` on the same fields (the nearest point and its
 * four neighbours of each message, with the process start; a process per point, so 100 points).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readGrib } from '../src/weather/grib/grib2.js';
import { gridGeometry } from '../src/weather/grib/grid.js';
import { griddedField } from '../src/weather/field.js';
import { tilePyramid, bilinear, type GriddedField } from '../src/weather/tiler.js';
import { globalField } from '../test/weather/fields.js';
import { startCommandTimer } from './command-timer.js';
import { keepAliveAgent, median, saveResults, timedGet } from './instance.js';
import { defaultVariables } from '../src/weather/variables.js';
import { ingestFiles } from '../src/weather/ingest.js';
import { healthLatencies, latencyFigures } from '../test/health-probe.js';
import { newAccount, startTestServer, testConfig } from '../test/helpers.js';
import { seededRandom, tempDir } from '../test/scratch.js';

const samples = '/usr/share/doc/python-grib-doc/examples';
const repacked = tempDir();

/** A sample repacked as CCSDS by ecCodes, with its default options (those ECMWF uses). */
function ccsds(name: string): string {
  const output = path.join(repacked, `${name}.ccsds.grib2`);
  execFileSync('grib_set', ['-r', '-s', 'packingType=grid_ccsds', path.join(samples, name), output]);
  return output;
}

const files = [
  ...['gfs.t12z.pgrbf120.2p5deg.grib2', 'safrica.grib2', 'ecmwf_tigge.grb', 'ds.waveh.bin'].map((name) => path.join(samples, name)),
  ccsds('gfs.t12z.pgrbf120.2p5deg.grib2'),
  ccsds('ecmwf_tigge.grb'),
];

function timeMs(work: () => void): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

function decodeAll(file: string): number {
  const grib = readGrib(readFileSync(file));
  let points = 0;
  for (const message of grib.messages) points += message.values().length;
  return points;
}

async function decoding() {
  // ecCodes' commands start from a child process: a fork here would slow our next round by up to
  // half (command-timer.ts), which a server, forking nothing, does not pay.
  const timer = startCommandTimer();
  const results = [];
  for (const file of files) {
    decodeAll(file);
    let points = 0;
    // Taking turns, round by round, so that a change in the shared machine's load weighs on both.
    const rounds = [];
    for (let round = 0; round < 7; round++) {
      rounds.push({
        ours: timeMs(() => (points = decodeAll(file))),
        ecCodes: await timer.time('grib_get', ['-p', 'average', file]),
        floor: await timer.time('grib_count', [file]),
      });
    }
    const ours = median(rounds.map((round) => round.ours));
    const ecCodes = median(rounds.map((round) => round.ecCodes));
    const floor = median(rounds.map((round) => round.floor));
    results.push({
      file: path.basename(file),
      messages: readGrib(readFileSync(file)).messages.length,
      points,
      meridianMs: Number(ours.toFixed(1)),
      ecCodesMs: Number(ecCodes.toFixed(1)),
      ecCodesStartMs: Number(floor.toFixed(1)),
      meridianVsEcCodes: Number((ours / ecCodes).toFixed(2)),
      meridianVsEcCodesLessStart: Number((ours / Math.max(0.1, ecCodes - floor)).toFixed(2)),
    });
  }
  timer.close();
  return results;
}

/** The 2.5° GFS 2 m temperature, interpolated to the 0.25° grid of the operational GFS. */
function quarterDegreeField(): GriddedField {
  const grib = readGrib(readFileSync(path.join(samples, 'gfs.t12z.pgrbf120.2p5deg.grib2')));
  const message = grib.messages.find((m) => m.category === 0 && m.number === 0 && m.level.first?.type === 103 && m.level.first.value === 2)!;
  const coarse = griddedField(gridGeometry(message), [message.values()]);
  // Grid point (i, j) of the 0.25° grid is point (i / 10, j / 10) of the 2.5° one.
  return globalField(0.25, (lon, lat) => bilinear(coarse, coarse.channels[0]!, lon / 2.5, (90 - lat) / 2.5) - 273.15);
}

async function tiling() {
  const field = quarterDegreeField();
  const results = [];
  for (const format of ['png', 'webp'] as const) {
    const times: number[] = [];
    let tiles = 0;
    let bytes = 0;
    for (let round = 0; round < (format === 'png' ? 3 : 1); round++) {
      const start = performance.now();
      const pyramid = await tilePyramid(field, { min: -127, max: 128 }, 4, format);
      times.push(performance.now() - start);
      tiles = pyramid.length;
      bytes = pyramid.reduce((sum, tile) => sum + tile.data.length, 0);
    }
    results.push({ field: '1440 x 721 global', zooms: '0-4', format, tiles, megabytes: Number((bytes / 1e6).toFixed(1)), ms: Math.round(median(times)) });
  }
  return results;
}

async function servingDuringIngest() {
  const { meridian, server, close } = await startTestServer(testConfig());
  try {
    const { public: base } = await server.listen();
    const file = path.join(samples, 'safrica.grib2');
    const options = { model: 'safrica', attribution: 'SAWS', variables: defaultVariables, format: 'png' as const, keepRuns: 1 };
    const runs: [string, () => Promise<unknown>][] = [
      ['idle server (3 s)', () => new Promise((resolve) => setTimeout(resolve, 3000))],
      ['ingest on the weather worker pool', () => ingestFiles(meridian.weather, meridian.weatherDirectory, [file], options, meridian.prepareIngest)],
      ['ingest decoded on the serving thread', () => ingestFiles(meridian.weather, meridian.weatherDirectory, [file], options)],
    ];
    const results = [];
    for (const [name, work] of runs) {
      const started = performance.now();
      const latencies = await healthLatencies(base, work());
      results.push({ while: name, seconds: Number(((performance.now() - started) / 1000).toFixed(1)), ...latencyFigures(latencies) });
    }
    return results;
  } finally {
    await close();
  }
}

/** The GFS sample's 2 m temperature at steps 0-96, hourly, in one file written by ecCodes. */
function hourlyTemperature(): string {
  const single = path.join(repacked, '2t.grib2');
  execFileSync('grib_copy', ['-w', 'shortName=2t', path.join(samples, 'gfs.t12z.pgrbf120.2p5deg.grib2'), single]);
  const output = path.join(repacked, '2t-hourly.grib2');
  const parts = Array.from({ length: 97 }, (_, step) => {
    const part = path.join(repacked, `2t-${step}.grib2`);
    execFileSync('grib_set', ['-s', `forecastTime=${step}`, single, part]);
    return readFileSync(part);
  });
  writeFileSync(output, Buffer.concat(parts));
  return output;
}

async function pointForecasts() {
  const { meridian, server, close } = await startTestServer(testConfig());
  try {
    const { public: base } = await server.listen();
    const { accountId } = await newAccount(meridian);
    const key = (await meridian.keys.create(accountId, {})).token;
    const options = { variables: defaultVariables, format: 'png' as const, keepRuns: 1 };
    const gfs = path.join(samples, 'gfs.t12z.pgrbf120.2p5deg.grib2');
    const hourly = hourlyTemperature();
    await ingestFiles(meridian.weather, meridian.weatherDirectory, [gfs], { ...options, model: 'gfs', attribution: 'GFS' });
    await ingestFiles(meridian.weather, meridian.weatherDirectory, [hourly], { ...options, model: 'hourly', attribution: 'GFS' });
    const cases = [
      { name: 'GFS sample, 5 variables x 1 keyframe', variables: 'temperature-2m:gfs,pressure-msl:gfs,wind-10m:gfs,precipitation-1h:gfs,cloud_cover-total:gfs', file: gfs, where: 'shortName=2t/prmsl/10u/10v/prate/tcc' },
      { name: '2 m temperature, 97 hourly keyframes', variables: 'temperature-2m:hourly', file: hourly, where: 'shortName=2t' },
    ];
    const results = [];
    for (const { name, variables, file, where } of cases) {
      // A connection per case: the server closes idle ones while ecCodes runs.
      const agent = keepAliveAgent();
      const random = seededRandom(19);
      const points = Array.from({ length: 1000 }, () => [(random() * 360 - 180).toFixed(4), (random() * 180 - 90).toFixed(4)] as const);
      for (const [lon, lat] of points.slice(0, 50)) await timedGet(`${base}/weather/point/${lon},${lat}.json?variables=${variables}&key=${key}`, agent);
      const ours: number[] = [];
      for (const [lon, lat] of points) ours.push((await timedGet(`${base}/weather/point/${lon},${lat}.json?variables=${variables}&key=${key}`, agent)).ms);
      agent.destroy();
      const ecCodes = points.slice(0, 100).map(([lon, lat]) => timeMs(() => execFileSync('grib_ls', ['-l', `${lat},${lon},1`, '-w', where, file], { maxBuffer: 16 << 20 })));
      const floor = median(Array.from({ length: 10 }, () => timeMs(() => execFileSync('grib_count', [file]))));
      results.push({
        case: name,
        meridianP50Ms: Number(median(ours).toFixed(2)),
        meridianP99Ms: Number(ours.sort((a, b) => a - b)[Math.floor(ours.length * 0.99)]!.toFixed(2)),
        ecCodesP50Ms: Number(median(ecCodes).toFixed(1)),
        ecCodesStartMs: Number(floor.toFixed(1)),
      });
    }
    return results;
  } finally {
    await close();
  }
}

// Tiling first: the decoding runs leave a heap of large arrays behind that would slow it down.
const tiles = await tiling();
console.log('Tiling one global field (bilinear, quantised, lossless) to zooms 0-4');
console.table(tiles);
const decode = await decoding();
console.log('GRIB2 decoding of every message, against ecCodes (grib_get -p average) in the same run');
console.table(decode);
const serving = await servingDuringIngest();
console.log('/health every 10 ms while the safrica sample is ingested (pool: what a server does; serving thread: before the pool)');
console.table(serving);
const points = await pointForecasts();
console.log('Point forecasts through HTTP (1,000 random points, one at a time) against ecCodes grib_ls -l (100 points, a process each) in the same run');
console.table(points);
saveResults('weather', { decode, tiles, serving, points });
rmSync(repacked, { recursive: true, force: true });
