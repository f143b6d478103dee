/**
 * A keyframe's values on its source grid: the GRIB2 field after unit conversion (and, for totals,
 * de-accumulation), exactly as the tiler received it before quantisation, kept beside the
 * keyframe's PMTiles archive so that point forecasts interpolate the model's own values.
 *
 * One file per keyframe, named after its archive (`<id>.grid` beside `<id>.pmtiles`), so that the
 * catalog needs no new column: it is written before the run is published and removed with the
 * archive. Layout, little-endian:
 *
 *   8 bytes   "MRDGRID1"
 *   4 bytes   uint32, length n of the header
 *   n bytes   JSON header: { grid: the GRIB2 grid definition, points, channels }, padded with
 *             spaces so that the values start on a multiple of 4
 *   values    float32, point by point in the order of the file (ecCodes' `values` order), the
 *             channels of a point side by side (u then v): one point of a wind field is 8 bytes
 *
 * Float32 is what the decoder produces, so nothing is lost; a 0.25° global field is 4.2 MB per
 * channel. Points are side by side so that a point forecast reads each neighbour row with one small
 * read, whatever the number of channels.
 */

import { open, writeFile, type FileHandle } from 'node:fs/promises';
import type { GridDefinition } from './grib/grib2.js';

const MAGIC = 'MRDGRID1';

export interface SourceGridHeader {
  grid: GridDefinition;
  points: number;
  channels: number;
}

/** The source-grid file of the keyframe whose archive is `archive`. */
export function sourceGridFile(archive: string): string {
  return archive.replace(/\.pmtiles$/, '.grid');
}

export async function writeSourceGrid(file: string, grid: GridDefinition, channels: readonly Float32Array[]): Promise<void> {
  const points = channels[0]!.length;
  const n = channels.length;
  const json = Buffer.from(JSON.stringify({ grid, points, channels: n } satisfies SourceGridHeader));
  const start = MAGIC.length + 4;
  const header = json.length + ((4 - ((start + json.length) % 4)) % 4);
  const bytes = Buffer.alloc(start + header + points * n * 4, ' ');
  bytes.write(MAGIC, 0, 'latin1');
  bytes.writeUInt32LE(header, MAGIC.length);
  json.copy(bytes, start);
  let at = start + header;
  for (let k = 0; k < points; k++) {
    for (let c = 0; c < n; c++) at = bytes.writeFloatLE(channels[c]![k]!, at);
  }
  await writeFile(file, bytes);
}

/** An open source-grid file: its header, and reads of the values of runs of consecutive points. */
export class SourceGrid {
  private reading = 0;
  private closing = false;

  private constructor(
    private readonly handle: FileHandle,
    readonly header: SourceGridHeader,
    /** The header as written, which identifies the grid (keyframes of a run share it). */
    readonly gridKey: string,
    private readonly valuesOffset: number,
  ) {}

  static async open(file: string): Promise<SourceGrid> {
    const handle = await open(file, 'r');
    try {
      const prefix = Buffer.alloc(MAGIC.length + 4);
      await handle.read(prefix, 0, prefix.length, 0);
      if (prefix.toString('latin1', 0, MAGIC.length) !== MAGIC) throw new Error(`${file} is not a source-grid file`);
      const length = prefix.readUInt32LE(MAGIC.length);
      const json = Buffer.alloc(length);
      await handle.read(json, 0, length, prefix.length);
      const header = JSON.parse(json.toString('utf8')) as SourceGridHeader;
      return new SourceGrid(handle, header, JSON.stringify(header.grid), prefix.length + length);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The channels of `count` consecutive points from value index `first`, point by point. */
  async read(first: number, count: number): Promise<Float32Array> {
    const n = this.header.channels;
    const bytes = Buffer.alloc(count * n * 4);
    this.reading++;
    try {
      const { bytesRead } = await this.handle.read(bytes, 0, bytes.length, this.valuesOffset + first * n * 4);
      if (bytesRead !== bytes.length) throw new Error(`source grid truncated at point ${first}`);
    } finally {
      this.reading--;
      if (this.reading === 0 && this.closing) void this.handle.close();
    }
    return Float32Array.from({ length: count * n }, (_, k) => bytes.readFloatLE(k * 4));
  }

  /** Closed, or closing: a holder must open the file again. */
  get closed(): boolean {
    return this.closing;
  }

  /** Closes the file once the reads under way are done (a cache may drop it while a request reads). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.reading === 0) await this.handle.close();
  }
}
