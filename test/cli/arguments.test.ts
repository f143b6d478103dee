/**
 * The command line itself: help, --help and --version, and usage errors (unknown commands and
 * options, missing values, bad settings) answered with our one line and the usage, exit status 2
 * (1 for a bad setting or value), never Node's own text.
 *
 * @oneDatabase arguments are checked before the database is opened.
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { cleanUp, testConfig } from '../helpers.js';
import { bin, cliOn } from './run-cli.js';

const config = testConfig();
const { run } = cliOn(config);
after(() => cleanUp(config));

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
