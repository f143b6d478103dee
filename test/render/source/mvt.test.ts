import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { VectorTile } from '@mapbox/vector-tile';
import { PbfReader, PbfWriter } from 'pbf';
import { isGzip } from '../../../src/render/source/decode.js';
import { readMvt } from '../../../src/render/source/mvt.js';
import { openPmtiles } from '../../../src/render/source/pmtiles.js';
import { tileRangeOfBounds } from '../../../src/render/view/tile-cover.js';
import { fixturesDir } from '../suite/cases.js';

/** What @mapbox/vector-tile, MapLibre's own reader, makes of a tile: the independent reference. */
function reference(bytes: Uint8Array) {
  const tile = new VectorTile(new PbfReader(bytes));
  return Object.entries(tile.layers).map(([name, layer]) => {
    const features = [];
    for (let i = 0; i < layer.length; i++) {
      const feature = layer.feature(i);
      if (feature.type === 0) continue;
      features.push({ id: feature.id, type: feature.type, properties: { ...feature.properties }, geometry: feature.loadGeometry().map((ring) => ring.flatMap((p) => [p.x, p.y])) });
    }
    return { name, extent: layer.extent, features };
  });
}

function ours(bytes: Uint8Array) {
  return [...readMvt(bytes)].map(([name, layer]) => ({
    name,
    extent: layer.extent,
    features: layer.features.map((f) => ({ id: f.id, type: f.type, properties: { ...f.properties }, geometry: f.geometry.map((ring) => [...ring]) })),
  }));
}

/** Every tile of a fixture archive within its bounds, gunzipped. */
async function archiveTiles(file: string): Promise<Uint8Array[]> {
  const { store, info } = await openPmtiles(file, fixturesDir);
  const tiles: Uint8Array[] = [];
  try {
    for (let z = info.minzoom!; z <= info.maxzoom!; z++) {
      const { minX, minY, maxX, maxY } = tileRangeOfBounds(info.bounds!, z);
      for (let x = minX; x < maxX; x++) {
        for (let y = minY; y < maxY; y++) {
          const bytes = await store.read(z, x, y);
          if (bytes) tiles.push(isGzip(bytes) ? new Uint8Array(gunzipSync(bytes)) : bytes);
        }
      }
    }
  } finally {
    await store.close();
  }
  return tiles;
}

test('the fixture archives read as @mapbox/vector-tile reads them, feature by feature and point by point', async () => {
  const archives = ['_data/town/openmaptiles.pmtiles', '_data/town/protomaps.pmtiles', '_data/streets/oakland.pmtiles'];
  let features = 0;
  for (const archive of archives) {
    const tiles = await archiveTiles(archive);
    assert.ok(tiles.length > 10, archive);
    for (const tile of tiles) {
      const expected = reference(tile);
      assert.deepEqual(ours(tile), expected);
      features += expected.reduce((n, layer) => n + layer.features.length, 0);
    }
  }
  assert.ok(features > 10_000, `${features} features compared`);
});

// Hand-written tiles for what the archives do not hold.
const command = (id: number, count: number) => (count << 3) | id;
const zigzag = (n: number) => (n << 1) ^ (n >> 31);

function tile(layers: { name: string; extent?: number; keys?: string[]; values?: ((pbf: PbfWriter) => void)[]; features: { id?: number; type?: number; tags?: number[]; geometry?: number[] }[] }[]): Uint8Array {
  const pbf = new PbfWriter();
  for (const layer of layers) {
    pbf.writeMessage(3, () => {
      pbf.writeVarintField(15, 2);
      pbf.writeStringField(1, layer.name);
      for (const feature of layer.features) {
        pbf.writeMessage(2, () => {
          if (feature.id !== undefined) pbf.writeVarintField(1, feature.id);
          if (feature.tags) pbf.writePackedVarint(2, feature.tags);
          if (feature.type !== undefined) pbf.writeVarintField(3, feature.type);
          if (feature.geometry) pbf.writePackedVarint(4, feature.geometry);
        }, undefined);
      }
      for (const key of layer.keys ?? []) pbf.writeStringField(3, key);
      for (const value of layer.values ?? []) pbf.writeMessage(4, () => value(pbf), undefined);
      if (layer.extent !== undefined) pbf.writeVarintField(5, layer.extent);
    }, undefined);
  }
  return pbf.finish();
}

test('commands as the spec writes them: multipoints, several rings, ClosePath, empty commands', () => {
  const bytes = tile([
    {
      name: 'shapes',
      extent: 512,
      features: [
        // A multipoint: one MoveTo of three points, each its own ring.
        { type: 1, geometry: [command(1, 3), zigzag(5), zigzag(6), zigzag(1), zigzag(1), zigzag(-2), zigzag(0)] },
        // A polygon with a hole; ClosePath repeats each ring's first point and leaves the cursor where it was; a zero-count command is skipped.
        {
          id: 9,
          type: 3,
          geometry: [
            command(1, 1), zigzag(0), zigzag(0), command(2, 0), command(2, 3), zigzag(10), zigzag(0), zigzag(0), zigzag(10), zigzag(-10), zigzag(0), command(7, 1),
            command(1, 1), zigzag(2), zigzag(2), command(2, 2), zigzag(1), zigzag(0), zigzag(0), zigzag(1), command(7, 1),
          ],
        },
        // LineTo before any MoveTo draws nothing but moves the cursor, as in @mapbox/vector-tile.
        { type: 2, geometry: [command(2, 1), zigzag(3), zigzag(3), command(1, 1), zigzag(1), zigzag(1), command(2, 1), zigzag(4), zigzag(0)] },
      ],
    },
  ]);
  const [layer] = ours(bytes);
  assert.equal(layer!.extent, 512);
  assert.deepEqual(layer!.features.map((f) => f.geometry), [
    [[5, 6], [6, 7], [4, 7]],
    [[0, 0, 10, 0, 10, 10, 0, 10, 0, 0], [2, 12, 3, 12, 3, 13, 2, 12]],
    [[4, 4, 8, 4]],
  ]);
  assert.equal(layer!.features[1]!.id, 9);
  assert.deepEqual(ours(bytes), reference(bytes));
});

test('property values of every type, keys such as __proto__, and promoteId', () => {
  const bytes = tile([
    {
      name: 'places',
      keys: ['name', 'rank', 'height', 'big', 'negative', 'capital', '__proto__', 'ref'],
      values: [
        (pbf) => pbf.writeStringField(1, 'Sursee'),
        (pbf) => pbf.writeFloatField(2, 1.5),
        (pbf) => pbf.writeDoubleField(3, 431.25),
        (pbf) => pbf.writeVarintField(4, 2 ** 40),
        (pbf) => pbf.writeSVarintField(6, -7),
        (pbf) => pbf.writeBooleanField(7, true),
        (pbf) => pbf.writeVarintField(5, 12),
      ],
      features: [{ id: 3, type: 1, tags: [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 0, 7, 6], geometry: [command(1, 1), 2, 2] }],
    },
  ]);
  const feature = readMvt(bytes).get('places')!.features[0]!;
  assert.deepEqual({ ...feature.properties }, { name: 'Sursee', rank: 1.5, height: 431.25, big: 2 ** 40, negative: -7, capital: true, ['__proto__']: 'Sursee', ref: 12 });
  assert.equal(Object.getPrototypeOf(feature.properties), null);
  assert.equal(feature.id, 3);
  assert.deepEqual(ours(bytes), reference(bytes));
  assert.equal(readMvt(bytes, 'ref').get('places')!.features[0]!.id, 12);
  assert.equal(readMvt(bytes, { places: 'name' }).get('places')!.features[0]!.id, 'Sursee');
  assert.equal(readMvt(bytes, { roads: 'name' }).get('places')!.features[0]!.id, 3, 'promoteId of another layer');
  assert.equal(readMvt(bytes, 'capital').get('places')!.features[0]!.id, 3, 'a boolean is no id');
});

test('features of unknown geometry type and empty layers are left out; the default extent is 4096', () => {
  const bytes = tile([
    { name: 'empty', features: [] },
    { name: 'odd', features: [{ type: 0, geometry: [command(1, 1), 2, 2] }, { type: 4, geometry: [command(1, 1), 2, 2] }, { type: 1, geometry: [command(1, 1), 2, 2] }] },
  ]);
  const layers = readMvt(bytes);
  assert.deepEqual([...layers.keys()], ['odd']);
  assert.equal(layers.get('odd')!.extent, 4096);
  assert.deepEqual(layers.get('odd')!.features.map((f) => f.type), [1]);
});

test('broken tiles fail as they fail in @mapbox/vector-tile', () => {
  const unknownCommand = tile([{ name: 'l', features: [{ type: 2, geometry: [command(1, 1), 0, 0, command(3, 1), 0, 0] }] }]);
  assert.throws(() => readMvt(unknownCommand), /unknown command 3/);
  assert.throws(() => reference(unknownCommand), /unknown command 3/);
  const noGeometry = tile([{ name: 'l', features: [{ type: 1 }] }]);
  assert.throws(() => readMvt(noGeometry), /feature has no geometry/);
  const noValue = tile([{ name: 'l', values: [(pbf) => pbf.writeVarintField(9, 1)], features: [] }]);
  assert.throws(() => readMvt(noValue), /unknown feature value/);
});

test('rings longer than the reused buffer come out whole', () => {
  const points = 5000;
  const geometry = [command(1, 1), 0, 0, command(2, points - 1), ...Array.from({ length: (points - 1) * 2 }, (_, i) => (i % 2 === 0 ? zigzag(1) : 0))];
  const bytes = tile([{ name: 'long', features: [{ type: 2, geometry }, { type: 1, geometry: [command(1, 1), 4, 6] }] }]);
  const [line, point] = readMvt(bytes).get('long')!.features;
  assert.deepEqual([...line!.geometry[0]!], Array.from({ length: points * 2 }, (_, i) => (i % 2 === 0 ? i / 2 : 0)));
  assert.deepEqual([...point!.geometry[0]!], [2, 3]);
});
