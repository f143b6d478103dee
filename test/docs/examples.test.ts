/**
 * Docs that run: every example of the README and docs/guide/*.md (test/docs/examples.ts finds them:
 * curl commands, and every other `http://127.0.0.1:8080…` URL) is requested from a server prepared
 * as the quick start prepares one: `scripts/prepare-data.sh` itself, into this test's data directory
 * (the GFS and southern Africa samples, the map `world`, the street maps `west-oakland` and
 * `kirchberg` with their `-light` and `-dark` styles). The coordinates cache is left out, as the
 * quick start leaves it to the server's background build: searches compute what they need.
 *
 * A curl command is expanded by bash as a reader's shell would (its block's assignments first, `set
 * -u`, so an undefined variable fails), with these variables made here: `KEY` (a key without
 * restrictions), `TOKEN` (a service token), `KEY_ID` (another key of the account, which the examples
 * change and delete), `CURSOR` (the cursor of a first page of 20 keys), `ACCOUNT_ID`, `KEYFRAME` (the
 * first keyframe of `temperature-2m:gfs`). Assignments of these names in the docs (`TOKEN=mst_…`) are
 * left out, except one whose value the response shown before it holds (`KEY=Xq3…` after a key shown
 * with `"token": "Xq3…"`): that takes the real response's field, for the rest of that doc (the
 * README's `/ping` then uses the key with origin rules it just made). Its arguments are then sent as curl sends them (the options `-s`, `-o FILE`, `-X`, `-H`,
 * `-d`; any other fails: teach it here). URLs outside curl commands get `KEY`, `${KEY}`, `$KEY` or
 * `YOUR_KEY` as the key, and tile templates (`{z}/{x}/{y}`, `{r}`) the tile of the map's centre at
 * its opening zoom (one more in the 256-px pyramid).
 *
 * Each must answer 200 (an error status when the response shown is an error body), with the image
 * type of its `-o` file's extension, and with every field of the response the doc shows after it
 * (`# {"status":"ok"}`; `…` inside a string stands for any string). Examples run in the order of
 * the docs, README first (key management examples change what later ones see). Every map a URL or
 * path of the docs names must be one the quick start makes.
 *
 * @oneDatabase the database only holds the keys the examples use; what is tested is the docs.
 */

import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { defaultConfig } from '../../src/config.js';
import { onPostgres, startTestServer, testConfig, testDatabase, type TestServer } from '../helpers.js';
import { tempDir } from '../scratch.js';
import { allExamples, differenceFromShown, mapsNamed, SERVER, type CurlExample, type UrlExample } from './examples.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Examples that cannot run in a test, each with its reason: `file` and a text the example contains.
 * Keep it short; an entry that matches no example fails the suite.
 */
const NOT_RUN: { file: string; contains: string; reason: string }[] = [];

const docs = allExamples(repoRoot);
let server: TestServer;
let base: string;
/** The variables the examples run with: those made here, and what an example's doc takes from responses. */
const variables: Record<string, string> = {};
const made: Record<string, string> = {};
let maps: { id: string; center: [number, number, number] }[] = [];

before(async () => {
  // The quick start's server: the default settings (rate limits included), on a data directory of its own.
  // A PROJ time limit no load reaches: without the cache a coordinates example computes what it needs.
  // The geocoding index is built at start, as the quick start's server builds it.
  const config = testConfig({ rateLimit: defaultConfig.rateLimit, management: defaultConfig.management, unknownKeys: defaultConfig.unknownKeys, coordinates: { timeoutMs: 300_000 }, geocoding: { buildIndex: true } });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MERIDIAN_DATA_DIR: config.dataDir,
    DATABASE_URL: onPostgres ? testDatabase : '',
    MERIDIAN_DB_SCHEMA: config.databaseSchema,
  };
  delete env.MERIDIAN_CONFIG;
  delete env.MERIDIAN_MAPS_DIR;
  await new Promise<void>((resolve, reject) => {
    execFile('bash', ['scripts/prepare-data.sh'], { cwd: repoRoot, env, maxBuffer: 64 << 20 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`scripts/prepare-data.sh failed: ${error.message}\n${stderr.slice(-4000)}`));
      else resolve();
    });
  });
  server = await startTestServer(config);
  await server.server.geocoder.ready;
  base = (await server.server.listen()).public.replace(/\/$/, '');

  const { account_id, service_token } = await server.meridian.accounts.create('Docs');
  const key = await server.meridian.keys.create(account_id, { description: 'the examples' });
  const spare = await server.meridian.keys.create(account_id, { description: 'changed and deleted by the examples' });
  for (let k = 0; k < 20; k++) await server.meridian.keys.create(account_id, {});
  const page = (await (await fetch(`${base}/v1/api_keys?limit=20`, { headers: { Authorization: `Token ${service_token}` } })).json()) as { cursor: string | null };
  const catalog = (await (await fetch(`${base}/weather/latest.json?key=${key.token}`)).json()) as {
    variables: { metadata: { weather_variable: { variable_id: string } }; keyframes: { id: string }[] }[];
  };
  const temperature = catalog.variables.find((variable) => variable.metadata.weather_variable.variable_id === 'temperature-2m:gfs');
  assert.ok(temperature, 'the GFS sample has temperature-2m');
  Object.assign(variables, {
    KEY: key.token,
    TOKEN: service_token,
    KEY_ID: spare.id,
    CURSOR: page.cursor ?? '',
    ACCOUNT_ID: account_id,
    KEYFRAME: temperature.keyframes[0].id,
  });
  assert.ok(page.cursor, 'a cursor for the examples');
  Object.assign(made, variables);
  maps = ((await (await fetch(`${base}/maps?key=${key.token}`)).json()) as { maps: typeof maps }).maps;
});
const scratch = tempDir();
after(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await server?.close();
});

/** The arguments curl gets from the command, as bash expands them. */
function curlArguments(example: CurlExample): string[] {
  const file = path.join(scratch, 'arguments');
  const script = [
    'set -u',
    ...example.assignments.filter((assignment) => !(assignment.name in variables)).map((assignment) => assignment.line),
    `curl() { printf '%s\\0' "$@" > '${file}'; }`,
    'jq() { cat > /dev/null; }',
    example.command,
  ].join('\n');
  const run = spawnSync('bash', ['-c', script], { env: { PATH: process.env.PATH, ...variables }, encoding: 'utf8' });
  assert.equal(run.status, 0, `bash could not run it: ${run.stderr}`);
  return readFileSync(file, 'utf8').split('\0').slice(0, -1);
}

interface Request {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  output?: string;
}

/** What curl sends for these arguments (the options the docs use). */
function curlRequest(args: string[]): Request {
  const request: Request = { url: '', method: '', headers: {} };
  for (let k = 0; k < args.length; k++) {
    const arg = args[k]!;
    const value = () => {
      assert.ok(k + 1 < args.length, `${arg} needs a value`);
      return args[++k]!;
    };
    if (arg === '-s') continue;
    else if (arg === '-o') request.output = value();
    else if (arg === '-X') request.method = value();
    else if (arg === '-d') request.body = value();
    else if (arg === '-H') {
      const header = value();
      const colon = header.indexOf(':');
      assert.ok(colon > 0, `header ${header}`);
      request.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    } else if (arg.startsWith('-')) assert.fail(`curl option ${arg}: the docs test does not know it (test/docs/examples.test.ts)`);
    else {
      assert.equal(request.url, '', `two URLs: ${request.url} and ${arg}`);
      request.url = arg;
    }
  }
  request.method ||= request.body === undefined ? 'GET' : 'POST';
  // curl's own type for -d without one: a doc that forgets the JSON type gets what the server answers to that.
  if (request.body !== undefined && !Object.keys(request.headers).some((name) => name.toLowerCase() === 'content-type')) {
    request.headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  return request;
}

/** The text with the secrets made here written as their variables, for messages. */
function redacted(text: string): string {
  let shown = text;
  for (const name of ['KEY', 'TOKEN'] as const) {
    for (const value of [variables[name], made[name]]) if (value) shown = shown.replaceAll(value, `$${name}`);
  }
  return shown;
}

function onTestServer(url: string): string {
  assert.ok(url === SERVER || url.startsWith(`${SERVER}/`), `${url} is not on the quick start's server ${SERVER}`);
  return base + (url.slice(SERVER.length) || '/');
}

async function send(request: Request): Promise<{ status: number; type: string; body: Buffer }> {
  const response = await fetch(onTestServer(request.url), {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
    redirect: 'manual',
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()) };
}

const IMAGE_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp' };

async function runCurl(example: CurlExample): Promise<void> {
  const request = curlRequest(curlArguments(example));
  const response = await send(request);
  const error = typeof example.shown === 'object' && example.shown !== null && 'errors' in example.shown;
  const said = redacted(`${request.method} ${request.url} answered ${response.status} ${response.type}: ${response.body.toString('utf8', 0, 300)}`);
  if (error) assert.ok(response.status >= 400, said);
  else assert.equal(response.status, 200, said);
  const extension = request.output ? path.extname(request.output).slice(1).toLowerCase() : '';
  if (IMAGE_TYPES[extension]) assert.equal(response.type, IMAGE_TYPES[extension], `${request.output}: ${said}`);
  if (example.shown !== undefined && !example.piped) {
    assert.match(response.type, /json/, said);
    const body = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
    const difference = differenceFromShown(body, example.shown);
    assert.equal(difference, null, `the response differs from the one shown: ${difference}\n${said}`);
    for (const { name, field } of example.captures) variables[name] = String(body[field]);
  }
}

/** The tile of the map's centre at its opening zoom, for a template's `{z}/{x}/{y}`. */
function centreTile(url: string): { z: number; x: number; y: number } {
  const id = /\/maps\/([A-Za-z0-9_-]+)\//.exec(url)?.[1];
  const map = maps.find((candidate) => candidate.id === id);
  assert.ok(map, redacted(`${url}: no map ${id}`));
  const [lon, lat, zoom] = map.center;
  const z = Math.round(zoom) + (url.includes(`/maps/${id}/256/`) ? 1 : 0);
  const sin = Math.sin((lat * Math.PI) / 180);
  const x = Math.floor(((lon + 180) / 360) * 2 ** z);
  const y = Math.floor((0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * 2 ** z);
  return { z, x, y };
}

async function runUrl(example: UrlExample): Promise<void> {
  let url = example.url
    .replaceAll('${KEY}', variables.KEY!)
    .replaceAll('YOUR_KEY', variables.KEY!)
    .replace(/\$KEY\b/g, variables.KEY!)
    .replace(/([?&]key=)KEY\b/g, `$1${variables.KEY!}`)
    .replaceAll('{r}', '');
  if (url.includes('{z}')) {
    const { z, x, y } = centreTile(url);
    url = url.replaceAll('{z}', String(z)).replaceAll('{x}', String(x)).replaceAll('{y}', String(y));
  }
  assert.doesNotMatch(url, /[{}$<>…]/, `${example.url}: a placeholder the test does not fill`);
  const response = await send({ url, method: 'GET', headers: {} });
  assert.equal(response.status, 200, redacted(`GET ${url} answered ${response.status}: ${response.body.toString('utf8', 0, 300)}`));
}

const notRun = (file: string, text: string) => NOT_RUN.find((entry) => entry.file === file && text.includes(entry.contains));

for (const { file, examples } of docs) {
  describe(file, () => {
    // What a doc's examples take from responses (`KEY=Xq3…`) holds for the rest of that doc only.
    before(() => Object.assign(variables, made));
    for (const example of examples) {
      const text = example.kind === 'curl' ? example.command : example.url;
      const name = `line ${example.line}: ${text.replace(/\\\n\s*/g, '').slice(0, 160)}`;
      // Not registered at all: scripts/test.sh takes a skipped test for lost coverage.
      if (notRun(file, text)) continue;
      test(name, () => (example.kind === 'curl' ? runCurl(example) : runUrl(example)));
    }
  });
}

test('every doc has examples, and every entry of the not-run list matches one', () => {
  for (const { file, examples } of docs) assert.ok(examples.length > 0, `${file} has no example`);
  for (const entry of NOT_RUN) {
    const matched = docs.some(({ file, examples }) => file === entry.file && examples.some((example) => (example.kind === 'curl' ? example.command : example.url).includes(entry.contains)));
    assert.ok(matched, `the not-run entry "${entry.contains}" of ${entry.file} matches no example`);
  }
});

test('every map the docs name is one the quick start makes', () => {
  const made = new Set(maps.map((map) => map.id));
  assert.ok(made.has('world') && made.has('west-oakland-dark'), `the quick start made ${[...made].join(', ')}`);
  const unknown = docs.flatMap(({ file, text }) => mapsNamed(text).filter(({ id }) => !made.has(id)).map(({ id, line }) => `${file}:${line} names the map ${id}`));
  assert.deepEqual(unknown, [], `the quick start makes ${[...made].join(', ')}`);
});
