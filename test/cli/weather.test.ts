/**
 * `meridian weather ingest` and `weather fetch`: runs published from GRIB2 files and from a
 * provider's layout (a local forecast server), their progress on and off a terminal and in a running
 * server's log, and files refused before anything is made.
 */

import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { cleanUp, onPostgres, testConfig } from '../helpers.js';
import { requirePeers } from '../peers.js';
import { tempDir } from '../scratch.js';
import { ecmwfFields, publishEcmwfStep } from '../weather/ecmwf-files.js';
import { ForecastServer } from '../weather/forecast-server.js';
import { cliOn } from './run-cli.js';

const config = testConfig();
const { run, runOnTerminal, serve } = cliOn(config);
after(() => cleanUp(config));

test('weather ingest publishes a run from GRIB2 files and reports its keyframes, with plain progress lines off a terminal', async () => {
  const ingested = await run(['weather', 'ingest', '/usr/share/doc/python-grib-doc/examples/gfs.t12z.pgrbf120.2p5deg.grib2', '--model', 'gfs', '--attribution', 'GFS']);
  assert.equal(ingested.code, 0, ingested.stderr);
  const report = JSON.parse(ingested.stdout);
  assert.equal(report.runs[0].referenceTime, '2011-01-10T12:00:00.000Z');
  assert.ok(report.runs[0].keyframes.some((k: { variable_id: string }) => k.variable_id === 'wind-10m:gfs'));
  // On PostgreSQL the command first says it cannot check that the instances read its weather folder
  // (none has served from this schema yet); the progress lines follow.
  const warning = /^meridian: warning: no instance has served from this database yet[^\n]*\n/;
  if (onPostgres) assert.match(ingested.stderr, warning);
  // Run alone, without scripts/test.sh's database template, the command makes the embedded database first and says so.
  ingested.stderr = ingested.stderr.replace(warning, '').replace(/^Making the embedded database of [^\n]*\n(Making the embedded database of [^\n]*: done in \d+ s\n)?/, '');
  // Phases in order: one step per file read, per keyframe tiled (the report lists them), per run published.
  const tiling = `Tiling ${report.runs[0].keyframes.length} field\\(s\\)`;
  assert.match(ingested.stderr, new RegExp(`^Reading 1 file\\(s\\)…\nReading 1 file\\(s\\): done in \\d+ s\n${tiling}…\n`));
  assert.match(ingested.stderr, new RegExp(`^${tiling}: 50%`, 'm'));
  assert.match(ingested.stderr, new RegExp(`^${tiling}: done in \\d+ s\nPublishing 1 run\\(s\\)…\nPublishing 1 run\\(s\\): done in \\d+ s\n$`, 'm'));
  assert.doesNotMatch(ingested.stderr, /\r|\u001b/, 'no terminal codes in a pipe');
  const missing = await run(['weather', 'ingest', '/nonexistent.grib2']);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Cannot read/);
  // One unreadable file among good ones: the others publish, and the command names it and exits 1.
  const partial = await run(['weather', 'ingest', '/usr/share/doc/python-grib-doc/examples/gfs.t12z.pgrbf120.2p5deg.grib2', '/nonexistent.grib2']);
  assert.equal(partial.code, 1);
  assert.match(partial.stderr, /^Not ingested:\nCannot read \/nonexistent\.grib2/m);
  const published = JSON.parse(partial.stdout);
  assert.equal(published.runs[0].referenceTime, '2011-01-10T12:00:00.000Z');
  assert.deepEqual(published.failed.length, 1);
  const noFile = await run(['weather', 'ingest']);
  assert.equal(noFile.code, 2);
});

test('weather ingest on a terminal redraws one line with the phase and its percentage', async () => {
  const { code, output } = await runOnTerminal(['weather', 'ingest', '/usr/share/doc/python-grib-doc/examples/gfs.t12z.pgrbf120.2p5deg.grib2', '--model', 'gfs', '--attribution', 'GFS'], '');
  assert.equal(code, 0, output);
  // Each redraw goes back to the start of the line and clears it; a phase ends on a line of its own.
  assert.match(output, /\r\u001b\[KTiling 8 field\(s\): \d+%/);
  assert.match(output, /\r\u001b\[KTiling 8 field\(s\): done in \d+ s\r?\n/);
  assert.match(output, /\r\u001b\[KPublishing 1 run\(s\): done in \d+ s\r?\n/);
  assert.doesNotMatch(output, /^Tiling 8 field\(s\)…\r?$/m, 'no plain lines on a terminal');
});

test('weather ingest through a running server logs its start, progress and end in the server log', { skip: onPostgres && 'PGlite only: on PostgreSQL the command ingests itself; the control socket serves the embedded database' }, async () => {
  const { server, log, exited } = await serve({ MERIDIAN_LOG_LEVEL: 'info' });
  try {
    for (let attempt = 0; !log.text.includes('Meridian is serving'); attempt++) {
      if (attempt === 300) assert.fail(`server did not start: ${log.text}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ingested = await run(['weather', 'ingest', '/usr/share/doc/python-grib-doc/examples/gfs.t12z.pgrbf120.2p5deg.grib2', '--model', 'gfs', '--attribution', 'GFS']);
    assert.equal(ingested.code, 0, ingested.stderr);
    const keyframes = JSON.parse(ingested.stdout).runs[0].keyframes.length;
    assert.equal(ingested.stderr, '', 'the progress is in the server log, not on the command');
    const lines = log.text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { command?: string; phase?: string; msg: string; percent?: number; total?: number });
    const tiling = lines.filter((line) => line.command === 'weather.ingest' && line.phase === `Tiling ${keyframes} field(s)`);
    assert.deepEqual(tiling[0], { ...tiling[0], msg: 'started', total: keyframes });
    assert.ok(tiling.some((line) => line.msg === 'progress' && line.percent === 50), JSON.stringify(tiling));
    assert.equal(tiling.at(-1)?.msg, 'done');
    assert.ok(lines.some((line) => line.command === 'weather.ingest' && line.phase === 'Publishing 1 run(s)' && line.msg === 'done'));
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0, log.text);
});

test('weather fetch --model ifs downloads and ingests an ECMWF run, showing its progress; an unknown model is a usage error', async () => {
  requirePeers('ecCodes', 'gribExamples');
  const root = tempDir();
  const server = new ForecastServer(root, '/forecasts');
  const run12 = new Date('2026-08-30T12:00:00Z');
  const fields = ecmwfFields(path.join(root, 'fields'));
  for (const step of [0, 3, 6]) publishEcmwfStep(path.join(root, 'forecasts'), fields, 'ifs', run12, step);
  const baseUrl = await server.listen();
  try {
    const fetched = await run(['weather', 'fetch', '--model', 'ifs', '--run', '2026083012'], {
      MERIDIAN_WEATHER_ECMWF_URL: baseUrl,
      MERIDIAN_WEATHER_ECMWF_STEPS: '0-6/3',
    });
    assert.equal(fetched.code, 0, fetched.stderr);
    const report = JSON.parse(fetched.stdout);
    assert.equal(report.runs[0].referenceTime, run12.toISOString());
    assert.ok(report.runs[0].keyframes.some((k: { variable_id: string }) => k.variable_id === 'temperature-2m:ifs'));
    // Not a terminal: plain lines, a phase's start, its tenths and its end.
    assert.match(fetched.stderr, /^Downloading ECMWF IFS run 2026083012, 3 step\(s\)…$/m);
    assert.match(fetched.stderr, /^Downloading ECMWF IFS run 2026083012, 3 step\(s\): 33%/m);
    assert.match(fetched.stderr, /^Downloading ECMWF IFS run 2026083012, 3 step\(s\): done in \d+ s$/m);
    assert.match(fetched.stderr, /^Tiling \d+ field\(s\): done in \d+ s\nPublishing 1 run\(s\)…\nPublishing 1 run\(s\): done in \d+ s$/m);
    assert.ok(server.requests.every((r) => r.path.includes('/20260830/12z/ifs/0p25/oper/')));

    const unknown = await run(['weather', 'fetch', '--model', 'icon']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /weather fetch knows the models gfs, ifs, aifs-single, not "icon"/);
    assert.match(unknown.stderr, /^ {2}weather fetch \[--model gfs\|ifs\|aifs-single\] \[--run latest\|YYYYMMDDHH\]/m);
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('weather ingest checks its files before it makes a data directory', async () => {
  const fresh = path.join(tempDir(), 'data');
  const refused = await run(['weather', 'ingest', '/etc/passwd'], { DATABASE_URL: '' }, '', fresh);
  assert.equal(refused.code, 1, refused.stderr);
  assert.equal(refused.stderr, '/etc/passwd: not a GRIB2 file (it does not start with "GRIB", and is not bzip2 or gzip)\n');
  assert.ok(!existsSync(fresh), 'no data directory was made for a file that is not GRIB');
});
