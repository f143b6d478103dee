import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { decodeRaster, decodeVector, isGzip } from '../../../src/render/source/decode.js';
import { collection, point, solidImage } from './fixtures.js';

const data = collection(
  point(0, 0, { name: 'origin', rank: 3, capital: true }, 7),
  { geometry: { type: 'LineString', coordinates: [[-90, 0], [90, 0]] }, properties: { kind: 'equator', ref: 'E1' } },
  { geometry: { type: 'Polygon', coordinates: [[[-10, -10], [10, -10], [10, 10], [-10, 10], [-10, -10]]] }, properties: { kind: 'box' } },
);

function mvt(extent: number): Uint8Array {
  const tile = new GeoJSONVT(data, { maxZoom: 0, extent, buffer: 0 }).getTile(0, 0, 0);
  return fromGeojsonVt({ world: tile }, { version: 2, extent });
}

test('an MVT decodes into layers of features with loaded geometry, gzipped or not', async () => {
  const bytes = mvt(4096);
  assert.equal(isGzip(bytes), false);
  assert.equal(isGzip(gzipSync(bytes)), true);
  for (const input of [bytes, gzipSync(bytes)]) {
    const tile = await decodeVector(input);
    assert.equal(tile.kind, 'vector');
    const layer = tile.layers.get('world')!;
    assert.equal(layer.extent, 4096);
    assert.equal(layer.features.length, 3);
    const [origin, equator, box] = layer.features;
    assert.deepEqual({ id: origin!.id, type: origin!.type, properties: { ...origin!.properties } }, { id: 7, type: 1, properties: { name: 'origin', rank: 3, capital: true } });
    assert.deepEqual(origin!.geometry.map((ring) => [...ring]), [[2048, 2048]]);
    assert.equal(equator!.type, 2);
    assert.deepEqual([...equator!.geometry[0]!], [1024, 2048, 3072, 2048]);
    assert.equal(box!.type, 3);
    assert.equal(box!.geometry[0]!.length, 5 * 2, 'a closed ring of 5 points');
  }
});

test('the layer extent is the tile’s own, and promoteId picks the feature id from a property', async () => {
  const tile = await decodeVector(mvt(8192), { world: 'ref' });
  const layer = tile.layers.get('world')!;
  assert.equal(layer.extent, 8192);
  assert.equal(layer.features[1]!.id, 'E1');
  assert.equal(layer.features[0]!.id, 7, 'features without the property keep their id');
  const everywhere = await decodeVector(mvt(8192), 'kind');
  assert.equal(everywhere.layers.get('world')!.features[2]!.id, 'box');
});

test('PNG, JPEG and WebP decode into drawable images whose pixels are read on demand', async () => {
  for (const format of ['png', 'jpeg', 'webp'] as const) {
    const tile = await decodeRaster(solidImage('rgb(200, 100, 50)', format, 64));
    assert.equal(tile.kind, 'raster');
    assert.equal(tile.width, 64);
    assert.equal(tile.height, 64);
    assert.equal(tile.image.width, 64);
    const pixels = tile.pixels();
    assert.equal(pixels.length, 64 * 64 * 4);
    const tolerance = format === 'png' ? 0 : 3;
    const [r, g, b, a] = pixels.subarray(32 * 64 * 4, 32 * 64 * 4 + 4);
    assert.ok(Math.abs(r! - 200) <= tolerance && Math.abs(g! - 100) <= tolerance && Math.abs(b! - 50) <= tolerance && a === 255, `${format}: ${[r, g, b, a]}`);
    assert.equal(tile.pixels(), pixels, 'decoded once');
  }
});

test('bytes that are no image are an error', async () => {
  await assert.rejects(decodeRaster(Buffer.from('not an image')));
});
