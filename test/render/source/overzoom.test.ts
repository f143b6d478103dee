/**
 * Cutting deeper tiles from a maxzoom tile. The expected geometry follows MapLibre GL JS 6.17's
 * sliceVectorTileLayer by hand: scale by 2^dz, shift by the child's offset, clip to the tile plus
 * a buffer of 128 units (at extent 4096) with clipGeometry, x first, then y.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sliceVectorTile } from '../../../src/render/source/overzoom.js';
import type { TileFeature, VectorTile } from '../../../src/render/source/source.js';
import { line, point, polygon, vectorTile } from '../sources.js';

const parent = { z: 14, x: 100, y: 200 };
/** The children of `parent` one level down: west/east, north/south. */
const northWest = { z: 15, x: 200, y: 400 };
const northEast = { z: 15, x: 201, y: 400 };

const rings = (tile: VectorTile, layer = 'l'): number[][][] => (tile.layers.get(layer)?.features ?? []).map((feature) => feature.geometry.map((ring) => [...ring]));

test('a line across the tile is scaled, shifted and cut at the buffer of the child', () => {
  const tile = vectorTile({ l: [line([[0, 1000], [4096, 1000]])] });
  assert.deepEqual(rings(sliceVectorTile(tile, parent, northEast)), [[[-128, 2000, 4096, 2000]]]);
  assert.deepEqual(rings(sliceVectorTile(tile, parent, northWest)), [[[0, 2000, 4224, 2000]]]);
});

test('a line leaving the child and coming back becomes two lines', () => {
  // Scaled: (0, 1000) → (8000, 1000) → (0, 3000); the middle lies east of 4224.
  const tile = vectorTile({ l: [line([[0, 500], [4000, 500], [0, 1500]])] });
  // Back in where the scaled segment crosses x = 4224: y = 1000 + 2000 × (8000 - 4224) / 8000.
  assert.deepEqual(rings(sliceVectorTile(tile, parent, northWest)), [[[0, 1000, 4224, 1000], [4224, 1944, 0, 3000]]]);
});

test('a polygon larger than the child becomes the buffered square, closed', () => {
  const tile = vectorTile({ l: [polygon([[0, 0], [4096, 0], [4096, 4096], [0, 4096]])] });
  assert.deepEqual(rings(sliceVectorTile(tile, parent, northWest)), [[[0, 0, 4224, 0, 4224, 4224, 0, 4224, 0, 0]]]);
});

test('points in the buffer stay, each a ring of its own; points beyond it go', () => {
  const multipoint: TileFeature = { type: 1, properties: {}, geometry: [Int32Array.of(2040, 100), Int32Array.of(2100, 100, 2200, 100)] };
  // Scaled to the north-east child: x 4080 - 4096 = -16 (in the buffer), 104 and 304 (inside).
  assert.deepEqual(rings(sliceVectorTile(vectorTile({ l: [multipoint] }), parent, northEast)), [[[-16, 200], [104, 200], [304, 200]]]);
  // -256 is beyond the buffer of 128.
  assert.deepEqual(rings(sliceVectorTile(vectorTile({ l: [point(1920, 100)] }), parent, northEast)), []);
});

test('features and layers left with nothing are dropped; ids and properties are kept', () => {
  const east: TileFeature = { ...point(3000, 3000, { name: 'east' }), id: 7 };
  const tile = vectorTile({ l: [point(100, 100, { name: 'west' }), east], m: [point(3000, 100)] });
  const sliced = sliceVectorTile(tile, parent, { z: 15, x: 201, y: 401 });
  assert.deepEqual([...sliced.layers.keys()], ['l']);
  assert.deepEqual(sliced.layers.get('l')!.features.map(({ id, properties }) => ({ id, properties })), [{ id: 7, properties: { name: 'east' } }]);
  assert.equal(sliced.layers.get('l')!.extent, 4096);
});

test('two levels down the scale is 4; the buffer grows with the extent', () => {
  const tile = vectorTile({ l: [line([[0, 8000], [8192, 8000]])] }, 8192);
  // Child (2, 3) of four: scaled y 32000 - 3 × 8192 = 7424; x clipped to [-256, 8448].
  assert.deepEqual(rings(sliceVectorTile(tile, parent, { z: 16, x: 402, y: 803 })), [[[-256, 7424, 8448, 7424]]]);
});
