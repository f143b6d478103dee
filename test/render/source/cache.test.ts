import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addDerivedBytes, TileCache, tileBytes } from '../../../src/render/source/cache.js';
import type { Tile, VectorTile } from '../../../src/render/source/source.js';

/** A vector tile of `points` points in one feature. */
function tileOf(points: number): VectorTile {
  const geometry = [Int32Array.from({ length: points * 2 }, (_, i) => i >> 1)];
  return { kind: 'vector', layers: new Map([['l', { extent: 4096, features: [{ type: 2, properties: { a: 1 }, geometry }] }]]) };
}

test('the estimate grows with the points of vector tiles and the pixels of raster tiles', () => {
  assert.ok(tileBytes(tileOf(1000)) >= tileBytes(tileOf(10)) + 990 * 8, 'eight bytes a point at least');
  const raster = { kind: 'raster', width: 256, height: 256 } as Tile;
  assert.ok(tileBytes(raster) >= 256 * 256 * 4);
  assert.ok(tileBytes(null) > 0, 'a missing tile costs its entry');
});

test('the cache stays under its bound, evicting the least recently used tiles first', async () => {
  const size = tileBytes(tileOf(100));
  const cache = new TileCache(size * 3);
  let loads = 0;
  const load = () => {
    loads++;
    return Promise.resolve(tileOf(100));
  };
  await cache.get('a', load);
  await cache.get('b', load);
  await cache.get('c', load);
  assert.equal(cache.size, 3);
  await cache.get('a', load); // a becomes the most recent: b is the oldest now
  assert.equal(loads, 3);
  await cache.get('d', load);
  assert.equal(cache.size, 3);
  assert.ok(cache.bytes <= cache.maxBytes);
  assert.equal(cache.has('b'), false);
  assert.equal(cache.has('a'), true);
  assert.equal(cache.has('c'), true);
  await cache.get('b', load);
  assert.equal(loads, 5, 'an evicted tile loads again');
});

test('a tile larger than the whole cache is returned but not kept', async () => {
  const cache = new TileCache(tileBytes(tileOf(10)));
  const tile = await cache.get('big', () => Promise.resolve(tileOf(10_000)));
  assert.equal((tile as VectorTile).layers.get('l')!.features[0]!.geometry[0]!.length, 2 * 10_000);
  assert.equal(cache.size, 0);
  assert.equal(cache.bytes, 0);
});

test('concurrent requests for one tile share one load; missing tiles are kept, failures are not', async () => {
  const cache = new TileCache(1 << 20);
  let loads = 0;
  let release!: (tile: Tile | null) => void;
  const pending = new Promise<Tile | null>((resolve) => (release = resolve));
  const load = () => {
    loads++;
    return pending;
  };
  const all = Promise.all([cache.get('t', load), cache.get('t', load), cache.get('t', load)]);
  release(tileOf(5));
  const [first, second, third] = await all;
  assert.equal(loads, 1);
  assert.equal(first, second);
  assert.equal(second, third);

  await cache.get('empty', () => Promise.resolve(null));
  assert.equal(await cache.get('empty', () => Promise.reject(new Error('loaded twice'))), null);

  await assert.rejects(cache.get('bad', () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(cache.has('bad'), false);
  assert.equal((await cache.get('bad', () => Promise.resolve(tileOf(1))))?.kind, 'vector', 'tried again after a failure');
});

test('memory derived from a kept tile counts against the bound and evicts older tiles', async () => {
  const size = tileBytes(tileOf(100));
  const cache = new TileCache(size * 3);
  const first = await cache.get('a', () => Promise.resolve(tileOf(100)));
  await cache.get('b', () => Promise.resolve(tileOf(100)));
  addDerivedBytes(first!, 10);
  assert.equal(cache.bytes, size * 2 + 10);
  await cache.get('c', () => Promise.resolve(tileOf(100)));
  assert.equal(cache.has('a'), false, 'the derived bytes took the cache over its bound');
  assert.equal(cache.size, 2);
  addDerivedBytes(first!, 1000);
  assert.equal(cache.bytes, size * 2, 'an evicted tile counts no more');
});
