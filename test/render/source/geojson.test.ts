import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { GeoJSONSourceSpecification } from '@maplibre/maplibre-gl-style-spec';
import { GEOJSON_EXTENT, GEOJSON_LAYER, geojsonVtOptions } from '../../../src/render/source/geojson.js';
import { resolveSource } from '../../../src/render/source/resolve.js';
import type { VectorTile } from '../../../src/render/source/source.js';
import { tempDir } from '../../scratch.js';
import { bigCache, collection, httpServer, MemoryLog, point } from './fixtures.js';

const options = (baseDir = '/nowhere') => ({ baseDir, cache: bigCache(), log: new MemoryLog(), mapName: 'map "test"' });

const data = collection(
  point(0, 0, { name: 'origin', tags: ['a', 'b'], nested: { deep: 1 }, empty: null }, '42'),
  { geometry: { type: 'LineString', coordinates: [[-45, 0], [45, 0]] }, properties: { kind: 'equator' } },
);

async function layerOf(spec: GeoJSONSourceSpecification, z: number, x: number, y: number, baseDir?: string) {
  const source = await resolveSource('g', spec, options(baseDir));
  const tile = (await source.getTile(z, x, y)) as VectorTile | null;
  return { source, layer: tile?.layers.get(GEOJSON_LAYER) };
}

test('inline GeoJSON is tiled into one "_geojson" layer of extent 8192 in 512-px tiles', async () => {
  const { source, layer } = await layerOf({ type: 'geojson', data, attribution: 'G' }, 0, 0, 0);
  assert.deepEqual([source.kind, source.tileSize, source.minzoom, source.maxzoom, source.attribution, source.encoding], ['geojson', 512, 0, 18, 'G', undefined]);
  assert.equal(layer!.extent, GEOJSON_EXTENT);
  const [origin, equator] = layer!.features;
  assert.deepEqual(origin!.geometry.map((ring) => [...ring]), [[4096, 4096]]);
  assert.equal(origin!.type, 1);
  assert.equal(origin!.id, 42, 'numeric string ids become numbers, as in MapLibre');
  assert.deepEqual(origin!.properties, { name: 'origin', tags: '["a","b"]', nested: '{"deep":1}', empty: null });
  assert.equal(equator!.type, 2);
  assert.deepEqual([...equator!.geometry[0]!], [3072, 4096, 5120, 4096]);
});

test('tiles follow the pyramid: 90°E on the equator is the middle of the top edge of tile 1/1/1', async () => {
  const { source, layer } = await layerOf({ type: 'geojson', data: collection(point(90, 0, { n: 1 })) }, 1, 1, 1);
  assert.deepEqual(layer!.features[0]!.geometry.map((ring) => [...ring]), [[4096, 0]]);
  assert.equal(await source.getTile(1, 0, 1), null, 'an empty tile is none');
  assert.equal(await source.getTile(19, 0, 0), null, 'nothing beyond maxzoom');
});

test('geojson-vt gets MapLibre’s options: pixel values times 16, maxzoom honoured', () => {
  const defaults = geojsonVtOptions({ type: 'geojson', data }, 'sources.g');
  assert.deepEqual(
    { maxZoom: defaults.maxZoom, extent: defaults.extent, buffer: defaults.buffer, tolerance: defaults.tolerance, cluster: defaults.cluster },
    { maxZoom: 18, extent: 8192, buffer: 2048, tolerance: 6, cluster: false },
  );
  const custom = geojsonVtOptions({ type: 'geojson', data, maxzoom: 12, buffer: 64, tolerance: 1, clusterRadius: 30 }, 'sources.g');
  const cluster = custom.clusterOptions as Record<string, unknown>;
  assert.deepEqual([custom.maxZoom, custom.buffer, custom.tolerance, cluster.radius, cluster.maxZoom, cluster.minPoints], [12, 1024, 16, 480, 11, 2]);
});

test('the source’s filter drops features before tiling', async () => {
  const { layer } = await layerOf({ type: 'geojson', data, filter: ['==', ['get', 'kind'], 'equator'] }, 0, 0, 0);
  assert.deepEqual(layer!.features.map((feature) => feature.properties.kind), ['equator']);
  const { layer: byType } = await layerOf({ type: 'geojson', data, filter: ['==', ['geometry-type'], 'Point'] }, 0, 0, 0);
  assert.deepEqual(byType!.features.map((feature) => feature.type), [1]);
});

test('clustering joins close points, with clusterProperties', async () => {
  const points = collection(point(10, 10, { n: 2 }), point(10.01, 10.01, { n: 3 }), point(-100, -40, { n: 5 }));
  const { layer } = await layerOf({ type: 'geojson', data: points, cluster: true, clusterProperties: { total: ['+', ['get', 'n']] } }, 0, 0, 0);
  const clusters = layer!.features.filter((feature) => feature.properties.cluster === true);
  assert.equal(clusters.length, 1);
  assert.equal(clusters[0]!.properties.point_count, 2);
  assert.equal(clusters[0]!.properties.total, 5);
  assert.equal(layer!.features.length, 2);
});

test('data from a file relative to the style, or over http', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'places.geojson'), JSON.stringify(data));
  const { layer } = await layerOf({ type: 'geojson', data: 'places.geojson' }, 0, 0, 0, dir);
  assert.equal(layer!.features.length, 2);

  const server = await httpServer((_request, response) => {
    response.end(JSON.stringify(data));
  });
  try {
    const { layer: remote } = await layerOf({ type: 'geojson', data: `${server.url}/places.geojson` }, 0, 0, 0);
    assert.equal(remote!.features.length, 2);
  } finally {
    await server.close();
  }
  await assert.rejects(resolveSource('g', { type: 'geojson', data: 'missing.geojson' }, options(dir)), /cannot read GeoJSON .*missing\.geojson/);
  await assert.rejects(resolveSource('g', { type: 'geojson', data: 42 as never }, options(dir)), /not GeoJSON/);
});
