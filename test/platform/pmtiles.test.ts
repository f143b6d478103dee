import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { bytesToHeader } from 'pmtiles';
import { ArchiveWriter, openArchive, writeArchive, type Tile } from '../../src/platform/pmtiles.js';
import { tempDir } from '../scratch.js';

const options = {
  tileType: 'png' as const,
  minZoom: 0,
  maxZoom: 3,
  bounds: [-180, -85, 180, 85] as [number, number, number, number],
  center: [0, 0, 1] as [number, number, number],
  metadata: { name: 'test' },
};

const headerOf = (file: string) => bytesToHeader(Uint8Array.from(readFileSync(file).subarray(0, 127)).buffer);

function pyramid(maxZoom: number, content: (z: number, x: number, y: number) => Uint8Array): Tile[] {
  const tiles: Tile[] = [];
  for (let z = 0; z <= maxZoom; z++) {
    for (let x = 0; x < 2 ** z; x++) for (let y = 0; y < 2 ** z; y++) tiles.push({ z, x, y, data: content(z, x, y) });
  }
  return tiles;
}

test('every tile written is read back by the pmtiles library, and absent tiles are null', async () => {
  const file = path.join(tempDir(), 'a.pmtiles');
  const tiles = pyramid(3, (z, x, y) => Buffer.from(`tile ${z}/${x}/${y}`));
  await writeArchive(file, tiles, options);
  const archive = await openArchive(file);
  try {
    for (const tile of tiles) assert.deepEqual(Buffer.from((await archive.tile(tile.z, tile.x, tile.y))!), Buffer.from(tile.data));
    assert.equal(await archive.tile(4, 0, 0), null);
  } finally {
    await archive.close();
  }
  const head = headerOf(file);
  assert.equal(head.specVersion, 3);
  assert.equal(head.maxZoom, 3);
  assert.equal(head.numAddressedTiles, tiles.length);
  assert.equal(head.tileType, 2);
});

test('identical tiles are stored once', async () => {
  const directory = tempDir();
  const same = pyramid(3, () => Buffer.alloc(1000, 7));
  await writeArchive(path.join(directory, 'same.pmtiles'), same, options);
  const size = readFileSync(path.join(directory, 'same.pmtiles')).length;
  assert.ok(size < 1000 + 1000, `archive of ${size} bytes`);
  const archive = await openArchive(path.join(directory, 'same.pmtiles'));
  assert.equal((await archive.tile(3, 5, 6))!.length, 1000);
  await archive.close();
});

test('archives too large for one root directory get leaf directories', async () => {
  const file = path.join(tempDir(), 'big.pmtiles');
  const tiles = pyramid(7, (z, x, y) => Buffer.from(`${z}/${x}/${y}`));
  await writeArchive(file, tiles, { ...options, maxZoom: 7 });
  const head = headerOf(file);
  assert.ok((head.leafDirectoryLength ?? 0) > 0);
  assert.ok(head.rootDirectoryLength <= 16384 - 127);
  const archive = await openArchive(file);
  for (const [z, x, y] of [[0, 0, 0], [7, 0, 0], [7, 127, 127], [7, 64, 3], [5, 17, 30]] as const) {
    assert.equal(Buffer.from((await archive.tile(z, x, y))!).toString(), `${z}/${x}/${y}`);
  }
  await archive.close();
});

test('gzipped vector tiles are read back decompressed, with the type, compression and bounds of the header', async () => {
  const file = path.join(tempDir(), 'v.pmtiles');
  const tiles = pyramid(1, (z, x, y) => gzipSync(Buffer.from(`vector ${z}/${x}/${y}`)));
  await writeArchive(file, tiles, { ...options, tileType: 'mvt', tileCompression: 'gzip' });
  const archive = await openArchive(file);
  try {
    assert.equal(archive.tileType, 'mvt');
    assert.equal(archive.tileCompression, 'gzip');
    assert.deepEqual(archive.bounds, options.bounds);
    assert.deepEqual(await archive.metadata(), { name: 'test' });
    assert.equal(Buffer.from((await archive.tile(1, 1, 0))!).toString(), 'vector 1/1/0');
  } finally {
    await archive.close();
  }
});

test('the streaming writer takes tiles in any order, spools identical ones once and leaves no spool', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'streamed.pmtiles');
  const writer = new ArchiveWriter(file);
  // Reversed tile-id order, with big tiles so the spool is written in several batches; odd tiles share content.
  const tiles = pyramid(3, (z, x, y) => new Uint8Array(700_000).fill((z * 64 + x * 8 + y) % 2 === 1 ? 1 : z + x + y + 2)).reverse();
  for (const tile of tiles) await writer.add(tile);
  await writer.finish(options);
  assert.deepEqual(readdirSync(dir), ['streamed.pmtiles']);
  const header = headerOf(file);
  assert.equal(header.clustered, true);
  assert.equal(header.numAddressedTiles, tiles.length);
  const distinct = new Set(tiles.map((tile) => tile.data[0])).size;
  assert.equal(header.numTileContents, distinct);
  const archive = await openArchive(file);
  for (const tile of tiles) assert.equal((await archive.tile(tile.z, tile.x, tile.y))?.[0], tile.data[0], `${tile.z}/${tile.x}/${tile.y}`);
  await archive.close();
});
