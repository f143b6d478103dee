import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { decodeVector } from '../../../src/render/source/decode.js';
import { resolveSource } from '../../../src/render/source/resolve.js';
import type { RasterTile, VectorTile } from '../../../src/render/source/source.js';
import { tempDir } from '../../scratch.js';
import { bigCache, collection, httpServer, MemoryLog, mvtPyramid, point, solidImage, writePmtiles } from './fixtures.js';

const places = collection(point(-120, 40, { name: 'west' }), point(120, -40, { name: 'east' }));

async function vectorArchive(gzip: boolean): Promise<{ dir: string; file: string }> {
  const dir = tempDir();
  const file = path.join(dir, 'places.pmtiles');
  const tiles = mvtPyramid(places, 3).map((tile) => ({ ...tile, data: gzip ? gzipSync(tile.data) : tile.data }));
  await writePmtiles(file, tiles, 'mvt', { attribution: '© Places', vector_layers: [{ id: 'places' }] }, gzip ? 'gzip' : 'none');
  return { dir, file };
}

const options = (baseDir: string) => ({ baseDir, cache: bigCache(), log: new MemoryLog(), mapName: 'map "test"' });

test('a pmtiles:// vector source takes zoom range, bounds and attribution from the archive', async () => {
  for (const gzip of [false, true]) {
    const { dir } = await vectorArchive(gzip);
    const source = await resolveSource('places', { type: 'vector', url: 'pmtiles://places.pmtiles' }, options(dir));
    try {
      assert.deepEqual(
        { kind: source.kind, tileSize: source.tileSize, minzoom: source.minzoom, maxzoom: source.maxzoom, attribution: source.attribution },
        { kind: 'vector', tileSize: 512, minzoom: 0, maxzoom: 3, attribution: '© Places' },
      );
      assert.deepEqual(source.bounds, [-170, -80, 170, 80]);
      const tile = (await source.getTile(1, 0, 0)) as VectorTile;
      const [west] = tile.layers.get('places')!.features;
      assert.equal(west!.properties.name, 'west');
      assert.equal(tile.layers.get('places')!.extent, 4096);
      assert.equal(await source.getTile(1, 1, 0), null, 'no tile where the archive has none');
      assert.equal(await source.getTile(1, 2, 0), null, 'nothing outside the pyramid');
    } finally {
      await source.close();
    }
  }
});

test('beyond its maxzoom a vector source cuts its maxzoom tile, as geojson-vt cuts the data at that zoom', async () => {
  const { dir } = await vectorArchive(true);
  const source = await resolveSource('places', { type: 'vector', url: 'pmtiles://places.pmtiles' }, options(dir));
  try {
    // "west" (-120, 40) lies in tile 5/5/12 and, one level up, in the archive's 3/1/3.
    const cut = (await source.getTile(5, 5, 12)) as VectorTile;
    const [ours] = cut.layers.get('places')!.features;
    const deeper = mvtPyramid(places, 5).find((tile) => tile.z === 5 && tile.x === 5 && tile.y === 12)!;
    const theirs = (await decodeVector(deeper.data)).layers.get('places')!.features[0]!;
    assert.equal(ours!.properties.name, 'west');
    // geojson-vt rounds the point at zoom 5, the archive at zoom 3: a unit or two at zoom 5.
    assert.ok(Math.abs(ours!.geometry[0]![0]! - theirs.geometry[0]![0]!) <= 4 && Math.abs(ours!.geometry[0]![1]! - theirs.geometry[0]![1]!) <= 4);
    assert.equal(((await source.getTile(5, 4, 12)) as VectorTile).layers.size, 0, 'a cut with nothing in it is an empty tile');
    assert.equal(await source.getTile(5, 0, 0), null, 'no tile where the archive has no maxzoom tile');
  } finally {
    await source.close();
  }
});

test('the style’s own fields win over the archive’s, and absolute paths and file: URLs work', async () => {
  const { file } = await vectorArchive(false);
  for (const url of [`pmtiles://${file}`, `pmtiles://file://${file}`]) {
    const source = await resolveSource('places', { type: 'vector', url, minzoom: 1, maxzoom: 2, bounds: [0, 0, 10, 10], attribution: 'Mine' }, options('/nowhere'));
    assert.deepEqual([source.minzoom, source.maxzoom, source.attribution, source.bounds], [1, 2, 'Mine', [0, 0, 10, 10]]);
    assert.equal(await source.getTile(0, 0, 0), null, 'below minzoom');
    assert.ok(await source.getTile(2, 0, 1));
    await source.close();
  }
});

test('a raster archive serves images, and a vector source refuses it', async () => {
  const dir = tempDir();
  await writePmtiles(path.join(dir, 'r.pmtiles'), [{ z: 0, x: 0, y: 0, data: solidImage('red') }], 'png');
  const raster = await resolveSource('r', { type: 'raster', url: 'pmtiles://r.pmtiles', tileSize: 256 }, options(dir));
  const tile = (await raster.getTile(0, 0, 0)) as RasterTile;
  assert.deepEqual([raster.tileSize, tile.kind, tile.width], [256, 'raster', 256]);
  assert.equal(await raster.getTile(1, 0, 0), null, 'a raster source has nothing beyond its maxzoom');
  await raster.close();
  await assert.rejects(resolveSource('r', { type: 'vector', url: 'pmtiles://r.pmtiles' }, options(dir)), /vector source cannot use png tiles/);
  await assert.rejects(resolveSource('r', { type: 'vector', url: 'pmtiles://missing.pmtiles' }, options(dir)), /ENOENT/);
});

test('a remote archive is read with range requests', async () => {
  const { file } = await vectorArchive(true);
  const handle = await open(file);
  const { size } = await handle.stat();
  const server = await httpServer(async (request, response) => {
    const [, start, end] = /bytes=(\d+)-(\d+)/.exec(request.headers.range ?? '') ?? [];
    const from = Number(start);
    const to = Math.min(Number(end), size - 1);
    const body = Buffer.alloc(to - from + 1);
    await handle.read(body, 0, body.length, from);
    response.writeHead(206, { 'content-range': `bytes ${from}-${to}/${size}`, 'content-length': body.length });
    response.end(body);
  });
  try {
    const source = await resolveSource('places', { type: 'vector', url: `pmtiles://${server.url}/places.pmtiles` }, options('/nowhere'));
    assert.equal(source.maxzoom, 3);
    const tile = (await source.getTile(1, 1, 1)) as VectorTile;
    assert.equal(tile.layers.get('places')!.features[0]!.properties.name, 'east');
    await source.close();
  } finally {
    await server.close();
    await handle.close();
  }
});

/** A server of one archive: strict about ranges past the end (416), with an ETag that can change, or ignoring ranges. */
async function archiveServer(file: string, behaviour: { etag?: () => string; ignoreRanges?: boolean }) {
  const handle = await open(file);
  const { size } = await handle.stat();
  const ranges: string[] = [];
  const server = await httpServer(async (request, response) => {
    ranges.push(request.headers.range ?? '');
    const headers: Record<string, string | number> = behaviour.etag ? { etag: behaviour.etag() } : {};
    if (behaviour.ignoreRanges) {
      const body = Buffer.alloc(size);
      await handle.read(body, 0, size, 0);
      response.writeHead(200, headers); // chunked: no length announced
      response.end(body);
      return;
    }
    const [, start, end] = /bytes=(\d+)-(\d+)/.exec(request.headers.range ?? '') ?? [];
    if (Number(end) >= size) return void response.writeHead(416, { ...headers, 'content-range': `bytes */${size}` }).end();
    const body = Buffer.alloc(Number(end) - Number(start) + 1);
    await handle.read(body, 0, body.length, Number(start));
    response.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${end}/${size}`, 'content-length': body.length }).end(body);
  });
  return { server, ranges, size, close: async () => (await server.close(), await handle.close()) };
}

test('a remote archive shorter than the first read is asked again for its size; a changed ETag has the header read again', async () => {
  const { file } = await vectorArchive(true);
  let etag = '"one"';
  const remote = await archiveServer(file, { etag: () => etag });
  try {
    assert.ok(remote.size < 16384, 'smaller than the first read of the pmtiles library');
    const source = await resolveSource('places', { type: 'vector', url: `pmtiles://${remote.server.url}/places.pmtiles` }, options('/nowhere'));
    assert.deepEqual(remote.ranges.slice(0, 2), ['bytes=0-16383', `bytes=0-${remote.size - 1}`]);
    etag = '"two"';
    remote.ranges.length = 0;
    const tile = (await source.getTile(1, 1, 1)) as VectorTile;
    assert.equal(tile.layers.get('places')!.features[0]!.properties.name, 'east');
    assert.ok(remote.ranges.includes(`bytes=0-${remote.size - 1}`), 'the header was read again');
    await source.close();
  } finally {
    await remote.close();
  }
});

test('a server that ignores ranges is refused, not downloaded whole', async () => {
  const { file } = await vectorArchive(true);
  const remote = await archiveServer(file, { ignoreRanges: true });
  try {
    await assert.rejects(
      resolveSource('places', { type: 'vector', url: `pmtiles://${remote.server.url}/places.pmtiles` }, options('/nowhere')),
      /cannot read the PMTiles archive .*: Server returned no content-length header or content-length exceeding request/,
    );
  } finally {
    await remote.close();
  }
});
