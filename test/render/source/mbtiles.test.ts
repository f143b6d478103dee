import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { resolveSource } from '../../../src/render/source/resolve.js';
import type { RasterTile, VectorTile } from '../../../src/render/source/source.js';
import { tempDir } from '../../scratch.js';
import { bigCache, collection, MemoryLog, mvtPyramid, point, solidImage, writeMbtiles } from './fixtures.js';

const options = (baseDir: string) => ({ baseDir, cache: bigCache(), log: new MemoryLog(), mapName: 'map "test"' });

test('an mbtiles:// vector source flips TMS rows and reads its metadata', async () => {
  const dir = tempDir();
  // North-west and south-east: at zoom 1 they are in different rows, so a missed flip shows.
  const tiles = mvtPyramid(collection(point(-100, 50, { name: 'nw' }), point(100, -50, { name: 'se' })), 2).map((tile) => ({ ...tile, data: gzipSync(tile.data) }));
  writeMbtiles(path.join(dir, 'p.mbtiles'), tiles, { name: 'p', format: 'pbf', minzoom: '0', maxzoom: '2', bounds: '-120,-60,120,60', attribution: 'MB' });
  const source = await resolveSource('p', { type: 'vector', url: 'mbtiles://p.mbtiles' }, options(dir));
  try {
    assert.deepEqual([source.minzoom, source.maxzoom, source.attribution, source.bounds], [0, 2, 'MB', [-120, -60, 120, 60]]);
    const northWest = (await source.getTile(1, 0, 0)) as VectorTile;
    assert.equal(northWest.layers.get('places')!.features[0]!.properties.name, 'nw');
    const southEast = (await source.getTile(1, 1, 1)) as VectorTile;
    assert.equal(southEast.layers.get('places')!.features[0]!.properties.name, 'se');
    assert.equal(await source.getTile(1, 1, 0), null);
  } finally {
    await source.close();
  }
});

test('without zoom metadata the range comes from the tiles; the format must suit the source', async () => {
  const dir = tempDir();
  writeMbtiles(path.join(dir, 'r.mbtiles'), [1, 2].map((z) => ({ z, x: 0, y: 0, data: solidImage('blue') })), { name: 'r', format: 'png' });
  const source = await resolveSource('r', { type: 'raster', url: `mbtiles://${path.join(dir, 'r.mbtiles')}` }, options('/nowhere'));
  assert.deepEqual([source.minzoom, source.maxzoom, source.tileSize, source.attribution], [1, 2, 512, undefined]);
  assert.equal(((await source.getTile(2, 0, 0)) as RasterTile).width, 256);
  await source.close();
  await assert.rejects(resolveSource('r', { type: 'vector', url: 'mbtiles://r.mbtiles' }, options(dir)), /vector source cannot use png tiles/);
  await assert.rejects(resolveSource('r', { type: 'raster', url: 'mbtiles://none.mbtiles' }, options(dir)), /ENOENT/);
});
