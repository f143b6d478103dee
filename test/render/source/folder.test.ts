import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { resolveSource } from '../../../src/render/source/resolve.js';
import type { RasterTile, VectorTile } from '../../../src/render/source/source.js';
import { tempDir } from '../../scratch.js';
import { bigCache, collection, MemoryLog, mvtPyramid, point, solidImage } from './fixtures.js';

const options = (baseDir: string, log = new MemoryLog()) => ({ baseDir, cache: bigCache(), log, mapName: 'map "test"' });

function writeFolder(root: string, tiles: { z: number; x: number; y: number; data: Uint8Array }[], extension: string, tms = false): void {
  for (const { z, x, y, data } of tiles) {
    const row = tms ? 2 ** z - 1 - y : y;
    mkdirSync(path.join(root, String(z), String(x)), { recursive: true });
    writeFileSync(path.join(root, String(z), String(x), `${row}.${extension}`), data);
  }
}

test('a folder of z/x/y files serves tiles through a relative path template; a missing file is no tile', async () => {
  const dir = tempDir();
  writeFolder(path.join(dir, 'tiles'), mvtPyramid(collection(point(-100, 50, { name: 'nw' })), 2), 'pbf');
  const source = await resolveSource('f', { type: 'vector', tiles: ['tiles/{z}/{x}/{y}.pbf'], maxzoom: 2 }, options(dir));
  const tile = (await source.getTile(1, 0, 0)) as VectorTile;
  assert.equal(tile.layers.get('places')!.features[0]!.properties.name, 'nw');
  assert.equal(await source.getTile(1, 1, 1), null);
  assert.deepEqual([source.minzoom, source.maxzoom, source.bounds], [0, 2, [-180, -85.051129, 180, 85.051129]]);
  await source.close();
});

test('scheme "tms" and {-y} read flipped rows; file: URLs work', async () => {
  const dir = tempDir();
  const tiles = [
    { z: 1, x: 0, y: 0, data: solidImage('red') },
    { z: 1, x: 0, y: 1, data: solidImage('blue') },
  ];
  writeFolder(path.join(dir, 'tms'), tiles, 'png', true);
  const base = `${pathToFileURL(path.join(dir, 'tms')).href}/{z}/{x}`;
  for (const spec of [
    { type: 'raster' as const, tiles: [`${base}/{y}.png`], scheme: 'tms' as const },
    { type: 'raster' as const, tiles: [`${base}/{-y}.png`] },
  ]) {
    const source = await resolveSource('t', spec, options('/nowhere'));
    const north = (await source.getTile(1, 0, 0)) as RasterTile;
    assert.deepEqual([...north.pixels().subarray(0, 4)], [255, 0, 0, 255], JSON.stringify(spec));
    await source.close();
  }
});

test('a source that cannot work fails when it opens: missing folder, unknown scheme, no tiles, unsupported settings', async () => {
  await assert.rejects(resolveSource('f', { type: 'vector', tiles: ['nope/{z}/{x}/{y}.pbf'] }, options(tempDir())), /no folder .*nope/);
  await assert.rejects(resolveSource('f', { type: 'vector', tiles: ['ftp://x/{z}/{x}/{y}.pbf'] }, options(tempDir())), /not supported/);
  await assert.rejects(resolveSource('f', { type: 'vector' }, options(tempDir())), /needs "url" or "tiles"/);
  const dir = tempDir();
  mkdirSync(path.join(dir, 't'));
  const tiles = ['t/{z}/{x}/{y}.pbf'];
  await assert.rejects(resolveSource('f', { type: 'vector', tiles, encoding: 'mlt' }, options(dir)), /encoding "mlt" are not supported/);
  await assert.rejects(resolveSource('f', { type: 'vector', tiles, tileSize: 256 } as never, options(dir)), /tileSize of 512/);
  await assert.rejects(resolveSource('f', { type: 'vector', tiles, minzoom: 5, maxzoom: 2 }, options(dir)), /minzoom 5 is above maxzoom 2/);
});

test('a file that is not a tile is left out with one warning for the source', async () => {
  const dir = tempDir();
  writeFolder(path.join(dir, 't'), [0, 1].map((x) => ({ z: 1, x, y: 0, data: Buffer.from('garbage') })), 'png');
  const log = new MemoryLog();
  const source = await resolveSource('broken', { type: 'raster', tiles: ['t/{z}/{x}/{y}.png'] }, options(dir, log));
  assert.equal(await source.getTile(1, 0, 0), null);
  assert.equal(await source.getTile(1, 1, 0), null);
  assert.equal(log.warnings.length, 1);
  assert.match(log.warnings[0]!, /map "test", source "broken": tile 1\/0\/0 failed/);
});
