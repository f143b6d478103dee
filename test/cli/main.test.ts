import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cleanUp, onPostgres, testConfig } from '../helpers.js';
import { freePort, tempDir } from '../scratch.js';
import { KIRCHBERG, requirePeers } from '../peers.js';
import { formatTable } from '../../src/cli/main.js';
import { ecmwfFields, publishEcmwfStep } from '../weather/ecmwf-files.js';
import { ForecastServer } from '../weather/forecast-server.js';

const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/meridian.js');
const config = testConfig();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  MERIDIAN_LOG_LEVEL: 'warn',
  ...(onPostgres ? { DATABASE_URL: config.databaseUrl!, MERIDIAN_DB_SCHEMA: config.databaseSchema } : { DATABASE_URL: '' }),
};
after(() => cleanUp(config));

function run(args: string[], extraEnv: NodeJS.ProcessEnv = {}, input = '', dataDir = config.dataDir): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args, '--data', dataDir], { env: { ...env, ...extraEnv } });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

test('accounts create, list, token and revoke-token work without a server', async () => {
  const created = await run(['accounts', 'create', 'Acme Maps']);
  assert.equal(created.code, 0, created.stderr);
  const account = JSON.parse(created.stdout);
  assert.match(account.account_id, /^[0-9a-f-]{36}$/);
  assert.match(account.service_token, /^mst_/);

  const listed = JSON.parse((await run(['accounts', 'list'])).stdout);
  assert.ok(listed.some((a: { account_id: string; name: string }) => a.account_id === account.account_id && a.name === 'Acme Maps'));

  const issued = await run(['accounts', 'token', account.account_id]);
  assert.equal(issued.code, 0, issued.stderr);
  const second = JSON.parse(issued.stdout).service_token;
  assert.notEqual(second, account.service_token);

  const revoked = await run(['accounts', 'revoke-token'], {}, `${second}\n`);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.equal(revoked.stderr, '', 'no warning for a token on standard input');
  const again = await run(['accounts', 'revoke-token', second]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /visible to other users/);
  assert.match(again.stderr, /No such live service token/);
});

/** The command on a terminal (util-linux `script` gives it one), `typed` arriving after a second. */
function runOnTerminal(args: string[], typed: string): Promise<{ code: number; output: string }> {
  const command = [process.execPath, bin, ...args, '--data', config.dataDir].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], { env });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    setTimeout(() => child.stdin.end(`${typed}\n`), 1000);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

test('accounts rename and delete; delete asks for the account name on a terminal and needs --yes elsewhere', async () => {
  const { account_id: id } = JSON.parse((await run(['accounts', 'create', 'Old Name'])).stdout) as { account_id: string };
  const renamed = await run(['accounts', 'rename', id, 'New Name']);
  assert.equal(renamed.code, 0, renamed.stderr);
  assert.deepEqual(JSON.parse(renamed.stdout), { account_id: id, name: 'New Name' });
  const names = async () => (JSON.parse((await run(['accounts', 'list'])).stdout) as { account_id: string; name: string }[]).filter((a) => a.account_id === id).map((a) => a.name);
  assert.deepEqual(await names(), ['New Name']);
  assert.equal((await run(['accounts', 'rename', id, '  '])).code, 1, 'an empty name is refused');
  const noName = await run(['accounts', 'rename', id]);
  assert.equal(noName.code, 2);
  assert.match(noName.stderr, /accounts rename needs ACCOUNT and NAME/);

  const unconfirmed = await run(['accounts', 'delete', id]);
  assert.equal(unconfirmed.code, 2);
  assert.match(unconfirmed.stderr, /^meridian: accounts delete needs --yes when standard input is not a terminal/);
  const wrong = await runOnTerminal(['accounts', 'delete', id], 'Old Name');
  assert.match(wrong.output, /Delete account "New Name" \(.*\) with its 0 API keys and 1 service tokens\? This cannot be undone/);
  assert.match(wrong.output, /Not deleted/);
  assert.equal(wrong.code, 1);
  assert.deepEqual(await names(), ['New Name'], 'still there');
  const typed = await runOnTerminal(['accounts', 'delete', id], 'New Name');
  assert.equal(typed.code, 0, typed.output);
  assert.deepEqual(await names(), []);

  const { account_id: other } = JSON.parse((await run(['accounts', 'create', 'Scripted'])).stdout) as { account_id: string };
  const deleted = await run(['accounts', 'delete', other, '--yes']);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.deepEqual(JSON.parse(deleted.stdout), { account_id: other, deleted: true, api_keys: 0 });
  const gone = await run(['accounts', 'delete', other, '--yes']);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /No account/);
});

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

test('maps add publishes maps over an archive in the maps folder; a bad archive exits 1 naming it', async () => {
  const root = path.resolve(path.dirname(bin), '..');
  const added = await run(['maps', 'add', path.join(root, 'test/fixtures/render/_data/town/protomaps.pmtiles'), '--id', 'town']);
  assert.equal(added.code, 0, added.stderr);
  assert.deepEqual(JSON.parse(added.stdout).maps, ['town', 'town-dark', 'town-white', 'town-grayscale', 'town-black']);
  assert.ok(existsSync(path.join(config.dataDir, 'maps', 'town-grayscale.json')));
  const notArchive = path.join(root, 'package.json');
  const bad = await run(['maps', 'add', notArchive]);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr.trim().split('\n').at(-1), `${notArchive} is neither a PMTiles archive nor an MBTiles file`);
  const none = await run(['maps', 'add']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /maps add needs one ARCHIVE/);
});

test('bad usage and bad configuration exit non-zero with a message', async () => {
  const unknown = await run(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Unknown command/);
  const missing = await run(['accounts', 'create']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /needs NAME/);
  const badAccount = await run(['accounts', 'token', 'nope']);
  assert.equal(badAccount.code, 1);
  assert.match(badAccount.stderr, /UUID/);
  const badConfig = await run(['serve'], { MERIDIAN_PORT: 'http' });
  assert.equal(badConfig.code, 1);
  assert.match(badConfig.stderr, /"port".*MERIDIAN_PORT/);
});

/** `meridian serve` on a free port with the maps folder unwatched; `log.text` gathers what it writes. */
async function serve(extraEnv: NodeJS.ProcessEnv) {
  const port = await freePort();
  const server = spawn(process.execPath, [bin, 'serve', '--port', String(port), '--data', config.dataDir], {
    env: { ...env, MERIDIAN_MAPS_WATCH: 'false', ...extraEnv },
  });
  const log = { text: '' };
  server.stdout.on('data', (chunk) => (log.text += chunk));
  server.stderr.on('data', (chunk) => (log.text += chunk));
  const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
  return { port, server, log, exited };
}

/** Waits until `serve` at `base` says it is ready, however long a loaded machine takes; fails if it exits first. */
async function untilReady(base: string, server: ChildProcess, output: () => string): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(`${base}/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null || server.signalCode !== null) assert.fail(`server exited before it was ready: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A new account (made by the command, through the running server on PGlite) and a key of it, made through the API at `base`. */
async function accountAndKey(base: string, account: string): Promise<{ token: string; id: string; name: string }> {
  const created = await run(['accounts', 'create', account]);
  assert.equal(created.code, 0, created.stderr);
  const { service_token } = JSON.parse(created.stdout);
  const key = await fetch(`${base}/v1/api_keys`, {
    method: 'POST',
    headers: { authorization: `Token ${service_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description: 'cli test' }),
  });
  assert.equal(key.status, 200);
  return (await key.json()) as { token: string; id: string; name: string };
}

test('serve answers HTTP, the CLI works while it runs, and SIGTERM stops it cleanly', async () => {
  const { port, server, log, exited } = await serve({ MERIDIAN_USAGE_FLUSH_MS: '200' });
  const output = () => log.text;
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base, server, output);
    const { token, id, name } = await accountAndKey(base, 'while-serving');
    assert.equal((await fetch(`${base}/ping?key=${token}`)).status, 200);
    // Counts are written in batches; the embedded server answers from memory, PostgreSQL after a flush.
    let rows: { requests: number; key_name: string; account_name: string }[] = [];
    for (let attempt = 0; attempt < 20 && rows.length === 0; attempt++) {
      const usage = await run(['usage', '--key', id]);
      assert.equal(usage.code, 0, usage.stderr);
      rows = JSON.parse(usage.stdout);
      if (rows.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(rows[0]?.requests, 1);
    assert.equal(rows[0]?.key_name, name, 'the key is named beside its id');
    assert.equal(rows[0]?.account_name, 'while-serving');

    // With the folder unwatched, SIGHUP is what reloads the maps.
    const listed = async () => ((await (await fetch(`${base}/maps?key=${token}`)).json()) as { maps: { id: string }[] }).maps.map((map) => map.id);
    mkdirSync(path.join(config.dataDir, 'maps'), { recursive: true });
    const style = { version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': '#123456' } }] };
    writeFileSync(path.join(config.dataDir, 'maps', 'hup.json'), JSON.stringify({ style }));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(!(await listed()).includes('hup'), 'not watched: not loaded yet');
    server.kill('SIGHUP');
    for (let attempt = 0; !(await listed()).includes('hup'); attempt++) {
      if (attempt === 100) assert.fail(`SIGHUP did not reload the maps: ${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
});

test('usage counted since the last flush is written to the database when SIGTERM stops serve', async () => {
  // No flush on the timer while the test runs: only the close path can write the counts.
  const { port, server, log, exited } = await serve({ MERIDIAN_USAGE_FLUSH_MS: '3600000' });
  const output = () => log.text;
  const requests = 25;
  let id: string;
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base, server, output);
    const key = await accountAndKey(base, 'stopped-by-sigterm');
    id = key.id;
    for (let i = 0; i < requests; i++) assert.equal((await fetch(`${base}/ping?key=${key.token}`)).status, 200);
  } finally {
    server.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output());
  // The server is gone: the command reads the database itself.
  const usage = await run(['usage', '--key', id]);
  assert.equal(usage.code, 0, usage.stderr);
  assert.deepEqual(JSON.parse(usage.stdout).map((row: { requests: number }) => row.requests), [requests], output());
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

test('maps import: a street map from an OSM sample with plain progress lines off a terminal, and bad input named', async () => {
  requirePeers('osmSamples', 'gshhgFull');
  const imported = await run(['maps', 'import', KIRCHBERG, '--id', 'kirchberg', '--maxzoom', '13']);
  assert.equal(imported.code, 0, imported.stderr);
  assert.deepEqual(JSON.parse(imported.stdout).maps, ['kirchberg', 'kirchberg-light', 'kirchberg-dark']);
  assert.match(imported.stderr, /^Writing tiles…$/m);
  assert.match(imported.stderr, /^Publishing: done in \d+ s$/m);
  assert.ok(!imported.stderr.includes('\r'), 'no redrawn line off a terminal');
  const rendered = await run(['render', 'kirchberg', '--center', '10.0695,48.136,16', '--size', '64x64', '-o', path.join(config.dataDir, 'k.png')]);
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.deepEqual([...readFileSync(path.join(config.dataDir, 'k.png')).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  // Without --format, the file's extension says the format.
  const jpeg = await run(['render', 'kirchberg', '--center', '10.0695,48.136,16', '--size', '64x64', '-o', path.join(config.dataDir, 'k.jpg')]);
  assert.equal(jpeg.code, 0, jpeg.stderr);
  assert.deepEqual([...readFileSync(path.join(config.dataDir, 'k.jpg')).subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  const unknown = await run(['render', 'nowhere', '--center', '10.0695,48.136,16', '--size', '64x64', '-o', path.join(config.dataDir, 'n.png')]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, new RegExp(`No map "nowhere" in ${path.join(config.dataDir, 'maps').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*configured maps: (.*, )?kirchberg,`));

  const notOsm = path.join(config.dataDir, 'notes.txt');
  writeFileSync(notOsm, 'hello');
  const refused = await run(['maps', 'import', notOsm]);
  assert.equal(refused.code, 1);
  assert.equal(refused.stderr.trim().split('\n').at(-1), `${notOsm} is not an OpenStreetMap extract (expected PBF, or OSM XML plain, .bz2 or .gz)`);
  const badZoom = await run(['maps', 'import', KIRCHBERG, '--maxzoom', 'x']);
  assert.equal(badZoom.code, 2);
  assert.match(badZoom.stderr, /--maxzoom must be an integer from 0 to 14/);
});

test('help, COMMAND --help and --version say what the command does, with examples', async () => {
  const help = await run(['help']);
  assert.equal(help.code, 0, help.stderr);
  for (const command of ['serve', 'accounts create', 'usage', 'weather ingest', 'weather fetch', 'render', 'maps build-world', 'maps import', 'maps add', 'maps seed', 'maps build-sprite', 'migrate']) {
    assert.ok(help.stdout.includes(`\n  ${command}`), command);
  }
  const seed = await run(['maps', 'seed', '--help']);
  assert.equal(seed.code, 0);
  assert.match(seed.stdout, /^Usage: meridian maps seed/);
  assert.match(seed.stdout, /Examples:\n {2}meridian maps seed kirchberg --bbox=/);
  assert.ok(!seed.stdout.includes('accounts create'), 'only that command');
  const accounts = await run(['help', 'accounts']);
  assert.match(accounts.stdout, /accounts create NAME/);
  assert.match(accounts.stdout, /accounts revoke-token/);
  assert.ok(!accounts.stdout.includes('maps seed'));
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  const { version: expected } = JSON.parse(readFileSync(path.join(path.dirname(bin), '../package.json'), 'utf8')) as { version: string };
  assert.equal(version.stdout, `meridian ${expected}\n`);
});

test('unknown options, missing values and missing sub-commands get our one line and the usage, never Node’s text', async () => {
  const cases: [string[], string, RegExp][] = [
    [['serve', '--bogus'], 'meridian: Unknown option --bogus', /^Usage: meridian serve /m],
    [['serve', '--port'], 'meridian: --port needs a value', /^Usage: meridian serve /m],
    [['render', 'world', '--auto=yes'], 'meridian: --auto takes no value', /^Usage: meridian render /m],
    [['maps'], 'meridian: maps needs a command: build-world, import, add, seed, build-sprite', /^Usage: meridian maps <command>/m],
    [['weather'], 'meridian: weather needs a command: ingest, fetch', /^Usage: meridian weather <command>/m],
    [['maps', 'frobnicate'], 'meridian: Unknown maps command "frobnicate"', /^Usage: meridian maps <command>/m],
    [['serve', '--bbox', '1,2,3,4'], 'meridian: serve does not take --bbox', /^Usage: meridian serve /m],
    [['accounts', 'create'], 'meridian: accounts create needs NAME', /^Usage: meridian accounts create /m],
    [['help', 'nope'], 'meridian: Unknown command "nope"', /^Usage: meridian <command>/m],
    [['render', 'world', '--auto', '--size', '64x64', '-o', 'map.gif'], 'meridian: cannot tell the image format from map.gif: name it .png, .jpg or .webp, or give --format', /^Usage: meridian render /m],
    [['render', 'world', '--auto', '--size', '64x64', '--format', 'png', '-o', 'map.jpg'], 'meridian: --format png contradicts map.jpg, whose extension says jpg', /^Usage: meridian render /m],
    // Before, a malformed area exited 1 with the parser's words and no usage.
    [['render', 'world', '--center', '10,50', '--size', '64x64', '-o', 'map.png'], 'meridian: Missing zoom in the area: {lon},{lat},{zoom}, {minx},{miny},{maxx},{maxy} or auto', /^Usage: meridian render /m],
    [['render', 'world', '--center', '10,50,30', '--size', '64x64', '-o', 'map.png'], 'meridian: Out of bounds: zoom 30 is above 22', /^Usage: meridian render /m],
    // A negative number is the option's value (before: "--bbox needs a value"); seeding without a store says so, with the usage.
    [['maps', 'seed', 'world', '--bbox', '-10,40,10,50'], 'meridian: maps seed fills the shared raster tile store: set maps.rasterStore (MERIDIAN_MAPS_RASTER_STORE) to folder or database', /^Usage: meridian maps seed /m],
    [['render', 'world', '--center', '-10,-40,30', '--size', '64x64', '-o', 'map.png'], 'meridian: Out of bounds: zoom 30 is above 22', /^Usage: meridian render /m],
  ];
  for (const [args, line, usage] of cases) {
    const result = await run(args);
    assert.equal(result.code, 2, args.join(' '));
    assert.equal(result.stderr.split('\n')[0], line, args.join(' '));
    assert.match(result.stderr, usage, args.join(' '));
    assert.ok(!/To specify a positional argument|ERR_PARSE_ARGS|argument missing/.test(result.stderr), `Node's text for ${args.join(' ')}`);
  }
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

test('accounts create on a new data directory says it is making the embedded database, and when it is done', { skip: onPostgres && 'PGlite only: the embedded database' }, async () => {
  const fresh = path.join(tempDir(), 'data');
  const created = await run(['accounts', 'create', 'First'], { DATABASE_URL: '' }, '', fresh);
  assert.equal(created.code, 0, created.stderr);
  assert.match(created.stderr, new RegExp(`^Making the embedded database of ${fresh} \\(its first use: seconds\\)…\nMaking the embedded database of ${fresh}: done in \\d+ s\n$`));
  assert.match(JSON.parse(created.stdout).service_token, /^mst_/);
});

test('usage and accounts list: JSON off a terminal and with --json; a table on one', async () => {
  const listed = await run(['accounts', 'list', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(Array.isArray(JSON.parse(listed.stdout)));
  const usage = await run(['usage']);
  assert.equal(usage.code, 0, usage.stderr);
  assert.ok(Array.isArray(JSON.parse(usage.stdout)), 'JSON when the output is not a terminal');
  assert.equal(
    formatTable([
      { account_id: 'a1', name: 'Acme Maps', api_keys: 12 },
      { account_id: 'b22', name: 'B', api_keys: 3 },
    ]),
    'account_id  name       api_keys\n----------  ---------  --------\na1          Acme Maps        12\nb22         B                 3\n',
  );
  assert.equal(formatTable([]), '(none)\n');
});
