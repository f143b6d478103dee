import { createHash } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { PMTiles, zxyToTileId, type RangeResponse, type Source } from 'pmtiles';

/**
 * PMTiles v3 archives: a writer (npm has none; the format is small) and a reader on a local file
 * through the `pmtiles` package. Directories are written uncompressed and tiles as given (vector
 * tiles, usually gzipped, or PNG, JPEG, WebP), clustered in tile-id order; identical tiles are stored
 * once. The reader hands tiles back decompressed.
 */

export interface Tile {
  z: number;
  x: number;
  y: number;
  data: Uint8Array;
}

export interface ArchiveOptions {
  tileType: TileType;
  /** How the tiles are compressed, as given: vector tiles are usually gzipped. Default none. */
  tileCompression?: 'none' | 'gzip';
  minZoom: number;
  maxZoom: number;
  /** West, south, east, north in degrees. */
  bounds: [number, number, number, number];
  center: [number, number, number];
  metadata: Record<string, unknown>;
}

const headerLength = 127;
const rootLimit = 16_384 - headerLength;
export type TileType = 'mvt' | 'png' | 'jpg' | 'webp';
const tileTypes = { mvt: 1, png: 2, jpg: 3, webp: 4 } as const;
const compressions = { none: 1, gzip: 2 } as const;
const compressionNone = compressions.none;

interface Entry {
  tileId: number;
  offset: number;
  length: number;
  runLength: number;
}

function pushVarint(out: number[], value: number): void {
  let v = value;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

/** A directory as the spec lays it out: count, then id deltas, run lengths, lengths and offsets. */
function serializeDirectory(entries: readonly Entry[]): Uint8Array {
  const out: number[] = [];
  pushVarint(out, entries.length);
  let lastId = 0;
  for (const entry of entries) {
    pushVarint(out, entry.tileId - lastId);
    lastId = entry.tileId;
  }
  for (const entry of entries) pushVarint(out, entry.runLength);
  for (const entry of entries) pushVarint(out, entry.length);
  entries.forEach((entry, i) => {
    const previous = entries[i - 1];
    // 0 means "right after the previous entry", which keeps clustered archives small.
    pushVarint(out, previous && entry.offset === previous.offset + previous.length ? 0 : entry.offset + 1);
  });
  return Uint8Array.from(out);
}

/** The root directory, and leaf directories when all entries do not fit in the first 16 KiB. */
function buildDirectories(entries: readonly Entry[]): { root: Uint8Array; leaves: Uint8Array } {
  const whole = serializeDirectory(entries);
  if (whole.length <= rootLimit) return { root: whole, leaves: new Uint8Array(0) };
  for (let perLeaf = 4096; ; perLeaf *= 2) {
    const leafParts: Uint8Array[] = [];
    const pointers: Entry[] = [];
    let offset = 0;
    for (let i = 0; i < entries.length; i += perLeaf) {
      const leaf = serializeDirectory(entries.slice(i, i + perLeaf));
      pointers.push({ tileId: entries[i]!.tileId, offset, length: leaf.length, runLength: 0 });
      leafParts.push(leaf);
      offset += leaf.length;
    }
    const root = serializeDirectory(pointers);
    if (root.length <= rootLimit) return { root, leaves: Buffer.concat(leafParts) };
  }
}

function header(fields: {
  rootOffset: number;
  rootLength: number;
  metadataOffset: number;
  metadataLength: number;
  leavesOffset: number;
  leavesLength: number;
  dataOffset: number;
  dataLength: number;
  addressed: number;
  entries: number;
  contents: number;
  options: ArchiveOptions;
}): Buffer {
  const b = Buffer.alloc(headerLength);
  b.write('PMTiles', 0, 'latin1');
  b.writeUInt8(3, 7);
  const u64 = [
    fields.rootOffset, fields.rootLength, fields.metadataOffset, fields.metadataLength, fields.leavesOffset,
    fields.leavesLength, fields.dataOffset, fields.dataLength, fields.addressed, fields.entries, fields.contents,
  ];
  u64.forEach((value, i) => b.writeBigUInt64LE(BigInt(value), 8 + i * 8));
  const { options } = fields;
  b.writeUInt8(1, 96);
  b.writeUInt8(compressionNone, 97);
  b.writeUInt8(compressions[options.tileCompression ?? 'none'], 98);
  b.writeUInt8(tileTypes[options.tileType], 99);
  b.writeUInt8(options.minZoom, 100);
  b.writeUInt8(options.maxZoom, 101);
  const e7 = (degrees: number) => Math.round(degrees * 1e7);
  b.writeInt32LE(e7(options.bounds[0]), 102);
  b.writeInt32LE(e7(options.bounds[1]), 106);
  b.writeInt32LE(e7(options.bounds[2]), 110);
  b.writeInt32LE(e7(options.bounds[3]), 114);
  b.writeUInt8(options.center[2], 118);
  b.writeInt32LE(e7(options.center[0]), 119);
  b.writeInt32LE(e7(options.center[1]), 123);
  return b;
}

/** Tile data the writer has spooled: where it is in the spool, and in the archive once placed. */
interface Content {
  spoolOffset: number;
  length: number;
  offset: number;
}

/** Spooled data is written in batches of this many bytes. */
const spoolBatch = 4 << 20;

/**
 * Writes an archive tile by tile, in any order, without holding the tiles in memory: their data is
 * spooled to a file beside the archive, identical tiles once, and `finish` writes the archive in
 * tile-id order (clustered) to a temporary name and renames it into place, so a reader never sees
 * a half-written archive. Memory is a few dozen bytes per tile.
 */
export class ArchiveWriter {
  private readonly spoolFile: string;
  private spool: FileHandle | undefined;
  private spoolLength = 0;
  private pending: Uint8Array[] = [];
  private pendingLength = 0;
  private readonly contents = new Map<string, Content>();
  private readonly tiles: { tileId: number; content: Content }[] = [];

  constructor(private readonly file: string) {
    this.spoolFile = `${file}.spool`;
  }

  /** Tiles added so far. */
  get count(): number {
    return this.tiles.length;
  }

  async add(tile: Tile): Promise<void> {
    // 96 bits of SHA-256 tell identical tiles apart with no collision in any real archive.
    const digest = createHash('sha256').update(tile.data).digest('base64').slice(0, 16);
    let content = this.contents.get(digest);
    if (!content) {
      content = { spoolOffset: this.spoolLength + this.pendingLength, length: tile.data.length, offset: -1 };
      this.contents.set(digest, content);
      this.pending.push(tile.data);
      this.pendingLength += tile.data.length;
      if (this.pendingLength >= spoolBatch) await this.flush();
    }
    this.tiles.push({ tileId: zxyToTileId(tile.z, tile.x, tile.y), content });
  }

  private async flush(): Promise<void> {
    if (this.pendingLength === 0) return;
    this.spool ??= await open(this.spoolFile, 'w+');
    await this.spool.writev(this.pending, this.spoolLength);
    this.spoolLength += this.pendingLength;
    this.pending = [];
    this.pendingLength = 0;
  }

  async finish(options: ArchiveOptions): Promise<void> {
    await this.flush();
    this.tiles.sort((a, b) => a.tileId - b.tileId);
    // Contents are placed in the order their first tile comes, so the data is clustered.
    const placed: Content[] = [];
    let dataLength = 0;
    const entries: Entry[] = [];
    for (const { tileId, content } of this.tiles) {
      if (content.offset < 0) {
        content.offset = dataLength;
        dataLength += content.length;
        placed.push(content);
      }
      const last = entries.at(-1);
      if (last && last.offset === content.offset && last.tileId + last.runLength === tileId) last.runLength++;
      else entries.push({ tileId, offset: content.offset, length: content.length, runLength: 1 });
    }
    const { root, leaves } = buildDirectories(entries);
    const metadata = Buffer.from(JSON.stringify(options.metadata), 'utf8');
    const rootOffset = headerLength;
    const metadataOffset = rootOffset + root.length;
    const leavesOffset = metadataOffset + metadata.length;
    const dataOffset = leavesOffset + leaves.length;
    const head = header({
      rootOffset,
      rootLength: root.length,
      metadataOffset,
      metadataLength: metadata.length,
      leavesOffset,
      leavesLength: leaves.length,
      dataOffset,
      dataLength,
      addressed: this.tiles.length,
      entries: entries.length,
      contents: placed.length,
      options,
    });
    const partial = `${this.file}.partial`;
    const handle = await open(partial, 'w');
    try {
      await handle.writev([head, root, metadata, leaves]);
      let position = dataOffset;
      for (let i = 0; i < placed.length; ) {
        const batch: Uint8Array[] = [];
        let bytes = 0;
        for (; i < placed.length && bytes < spoolBatch; i++) {
          const content = placed[i]!;
          const data = Buffer.alloc(content.length);
          await this.spool!.read(data, 0, content.length, content.spoolOffset);
          batch.push(data);
          bytes += content.length;
        }
        await handle.writev(batch, position);
        position += bytes;
      }
      await handle.sync();
    } catch (error) {
      await handle.close();
      await rm(partial, { force: true });
      await this.abort();
      throw error;
    }
    await handle.close();
    await this.abort();
    await rename(partial, this.file);
  }

  /** Drops the spool (after finish, or instead of it). */
  async abort(): Promise<void> {
    await this.spool?.close();
    this.spool = undefined;
    await rm(this.spoolFile, { force: true });
  }
}

/** Writes an archive of the given tiles (see ArchiveWriter). */
export async function writeArchive(file: string, tiles: Iterable<Tile>, options: ArchiveOptions): Promise<void> {
  const writer = new ArchiveWriter(file);
  try {
    for (const tile of tiles) await writer.add(tile);
  } catch (error) {
    await writer.abort();
    throw error;
  }
  await writer.finish(options);
}

/** A `pmtiles` Source over a local file. */
export class LocalFile implements Source {
  constructor(
    private readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  getKey(): string {
    return this.path;
  }

  async getBytes(offset: number, length: number): Promise<RangeResponse> {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await this.handle.read(buffer, 0, length, offset);
    return { data: buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + bytesRead) };
  }
}

/** An open archive: tiles by z/x/y, null where the archive has none. */
export interface Archive {
  minZoom: number;
  maxZoom: number;
  tileType: TileType | 'other';
  tileCompression: 'none' | 'gzip' | 'other';
  /** West, south, east, north in degrees. */
  bounds: [number, number, number, number];
  metadata(): Promise<unknown>;
  tile(z: number, x: number, y: number): Promise<Uint8Array | null>;
  close(): Promise<void>;
}

export async function openArchive(file: string): Promise<Archive> {
  const handle = await open(file, 'r');
  const archive = new PMTiles(new LocalFile(file, handle));
  let head;
  try {
    head = await archive.getHeader();
  } catch (error) {
    await handle.close();
    throw error;
  }
  return {
    minZoom: head.minZoom,
    maxZoom: head.maxZoom,
    tileType: (Object.keys(tileTypes) as TileType[]).find((type) => tileTypes[type] === head.tileType) ?? 'other',
    tileCompression: head.tileCompression === compressions.none ? 'none' : head.tileCompression === compressions.gzip ? 'gzip' : 'other',
    bounds: [head.minLon, head.minLat, head.maxLon, head.maxLat],
    metadata: () => archive.getMetadata(),
    async tile(z, x, y) {
      const found = await archive.getZxy(z, x, y);
      return found ? new Uint8Array(found.data) : null;
    },
    close: () => handle.close(),
  };
}
