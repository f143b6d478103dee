/**
 * `meridian maps add`, `maps import` and `render`: maps published from an archive and from an
 * OpenStreetMap sample, images drawn from them, and bad input named.
 *
 * @oneDatabase maps are files in the data directory; the database is not asked.
 */

import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { cleanUp, testConfig } from '../helpers.js';
import { KIRCHBERG, requirePeers } from '../peers.js';
import { bin, cliOn } from './run-cli.js';

const config = testConfig();
const { run } = cliOn(config);
after(() => cleanUp(config));

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
