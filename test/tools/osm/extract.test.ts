import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { asPbf, ExtractError, inspectExtract, sniffFormat } from '../../../src/tools/osm/extract.js';
import { KIRCHBERG, OAKLAND, requirePeers } from '../../peers.js';
import { osmiumDataExtent } from './street-maps.js';

let dir: string;
before(async () => {
  requirePeers('osmSamples');
  dir = await mkdtemp(path.join(tmpdir(), 'meridian-extract-'));
});
after(() => rm(dir, { recursive: true, force: true }));

test('the samples are read with the extent of their data, not their header’s box, and their counts (as osmium fileinfo reports them)', async () => {
  const oakland = await inspectExtract(OAKLAND);
  assert.equal(oakland.format, 'osm.bz2');
  // Its header declares -122.30258,37.80615,-122.29825,37.80914: its ways reach past that.
  assert.deepEqual(oakland.bounds, osmiumDataExtent(OAKLAND));
  assert.deepEqual(oakland.bounds, [-122.3143312, 37.8040142, -122.290784, 37.8175832]);
  assert.deepEqual([oakland.nodes, oakland.ways, oakland.relations], [446, 66, 23]);
  const kirchberg = await inspectExtract(KIRCHBERG);
  assert.equal(kirchberg.format, 'osm');
  // Inside its header's box (10.068,48.135,10.071,48.137).
  assert.deepEqual(kirchberg.bounds, osmiumDataExtent(KIRCHBERG));
});

test('XML is converted to PBF, which is recognised by its first bytes whatever its name', async () => {
  const pbf = await asPbf(await inspectExtract(OAKLAND), path.join(dir, 'oakland.osm.pbf'));
  const renamed = path.join(dir, 'oakland.data');
  await writeFile(renamed, await readFile(pbf));
  const extract = await inspectExtract(renamed);
  assert.equal(extract.format, 'pbf');
  assert.equal(extract.nodes, 446);
  assert.equal(sniffFormat(Buffer.from('<?xml version="1.0"?><osm>')), 'osm');
  assert.equal(sniffFormat(Buffer.from('{"type":"FeatureCollection"}')), null);
});

async function refused(name: string, contents: string | Buffer, pattern: RegExp): Promise<void> {
  const file = path.join(dir, name);
  await writeFile(file, contents);
  await assert.rejects(inspectExtract(file), (error: Error) => {
    assert.ok(error instanceof ExtractError, error.message);
    assert.ok(error.message.includes(file), `names the file: ${error.message}`);
    assert.match(error.message, pattern);
    return true;
  });
}

test('bad input is refused with the file and the problem named', async () => {
  await refused('empty.osm.pbf', '', /is empty/);
  await refused('map.geojson', '{"type":"FeatureCollection","features":[]}', /not an OpenStreetMap extract/);
  await refused('nodes.osm', '<?xml version="1.0"?>\n<osm version="0.6"></osm>\n', /no OpenStreetMap data/);
  await refused('broken.osm', '<?xml version="1.0"?>\n<osm version="0.6"><node id="1" lat="1" lon="1"', /cannot be read as OSM XML/);
  const pbf = await readFile(await asPbf(await inspectExtract(OAKLAND), path.join(dir, 'whole.osm.pbf')));
  await refused('truncated.osm.pbf', pbf.subarray(0, Math.floor(pbf.length / 2)), /cannot be read as PBF: .*truncated/);
  await assert.rejects(inspectExtract(path.join(dir, 'absent.osm.pbf')), /absent\.osm\.pbf cannot be read: no such file/);
});
