import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TileCache, tileBytes } from '../../../src/render/source/cache.js';
import type { Tile, TileSource } from '../../../src/render/source/source.js';
import { pathBytes } from '../../../src/render/tile/vector.js';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { renderMap } from '../../../src/render/renderer.js';
import { compileStyle } from '../../../src/render/style/style.js';
import { line, MemorySource, polygon, sourceSpecs, vectorTile, view } from '../sources.js';

/** A source whose tiles go through a tile cache, as the real sources' do. */
function cachedSource(cache: TileCache, tile: Tile): TileSource {
  const memory = new MemorySource(new Map([['0/0/0', tile]]));
  return Object.assign(Object.create(memory) as MemorySource, { getTile: (z: number, x: number, y: number) => cache.get(`${z}/${x}/${y}`, () => memory.getTile(z, x, y)) });
}

test('the paths and selections a render derives from a cached tile are counted with it, once', async () => {
  const tile = vectorTile({
    land: [polygon([[100, 100], [3000, 100], [3000, 3000], [100, 3000]])],
    rivers: [line([[0, 0], [4096, 4096]]), line([[0, 4096], [4096, 0]])],
  });
  const cache = new TileCache(64 * 1024 * 1024);
  const sources = { v: cachedSource(cache, tile) };
  const style = compileStyle({
    version: 8,
    sources: sourceSpecs(sources),
    layers: [
      { id: 'land', type: 'fill', source: 'v', 'source-layer': 'land', paint: { 'fill-color': '#0f0' } },
      { id: 'rivers', type: 'line', source: 'v', 'source-layer': 'rivers', paint: { 'line-color': '#00f' } },
    ],
  } as StyleSpecification);
  const tiles = new Map(Object.entries(sources));
  await renderMap(style, tiles, view(0));
  const afterFirst = cache.bytes;
  // Each layer's merged path (of the ring's 5 points and the two lines' 4).
  assert.ok(afterFirst >= tileBytes(tile) + pathBytes(5) + pathBytes(4), `${afterFirst} bytes`);
  await renderMap(style, tiles, view(0.5));
  assert.equal(cache.bytes, afterFirst, 'a second render of the tile at the same tile zoom derives nothing new');
});
