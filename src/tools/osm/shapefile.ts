/**
 * A polygon shapefile (ESRI Shapefile Technical Description, 1998): the `.shp` geometry, its `.shx`
 * index and a `.dbf` table of one numeric `id` column, which is what tilemaker reads shapes from.
 * Outer rings are written clockwise and holes counter-clockwise, as the format requires.
 */

import { writeFile } from 'node:fs/promises';
import type { Polygon, Position } from 'geojson';
import { ringBounds, signedArea } from '../ring.js';

const FILE_CODE = 9994;
const VERSION = 1000;
const POLYGON = 5;
const HEADER = 100;
const RECORD_HEADER = 8;
const ID_WIDTH = 10;

type Box = [number, number, number, number];


function oriented(ring: readonly Position[], clockwise: boolean): Position[] {
  return signedArea(ring) > 0 === clockwise ? [...ring].reverse() : [...ring];
}

/** The shared 100-byte header of `.shp` and `.shx`; lengths are in 16-bit words. */
function header(bytes: number, box: Box): Buffer {
  const out = Buffer.alloc(HEADER);
  out.writeInt32BE(FILE_CODE, 0);
  out.writeInt32BE(bytes / 2, 24);
  out.writeInt32LE(VERSION, 28);
  out.writeInt32LE(POLYGON, 32);
  box.forEach((value, i) => out.writeDoubleLE(Number.isFinite(value) ? value : 0, 36 + 8 * i));
  return out;
}

function record(polygon: Polygon): Buffer {
  const rings = polygon.coordinates.map((ring, i) => oriented(ring, i === 0));
  const points = rings.flat();
  const out = Buffer.alloc(44 + 4 * rings.length + 16 * points.length);
  out.writeInt32LE(POLYGON, 0);
  ringBounds(points).forEach((value, i) => out.writeDoubleLE(value, 4 + 8 * i));
  out.writeInt32LE(rings.length, 36);
  out.writeInt32LE(points.length, 40);
  let start = 0;
  rings.forEach((ring, i) => {
    out.writeInt32LE(start, 44 + 4 * i);
    start += ring.length;
  });
  const base = 44 + 4 * rings.length;
  points.forEach(([x, y], i) => {
    out.writeDoubleLE(x!, base + 16 * i);
    out.writeDoubleLE(y!, base + 16 * i + 8);
  });
  return out;
}

function dbf(count: number): Buffer {
  const fields = 1;
  const headerLength = 32 + 32 * fields + 1;
  const recordLength = 1 + ID_WIDTH;
  const out = Buffer.alloc(headerLength + recordLength * count + 1, 0x20);
  out.fill(0, 0, headerLength);
  const now = new Date();
  out.writeUInt8(0x03, 0);
  out.writeUInt8(now.getUTCFullYear() - 1900, 1);
  out.writeUInt8(now.getUTCMonth() + 1, 2);
  out.writeUInt8(now.getUTCDate(), 3);
  out.writeUInt32LE(count, 4);
  out.writeUInt16LE(headerLength, 8);
  out.writeUInt16LE(recordLength, 10);
  out.write('id', 32, 'latin1');
  out.write('N', 43, 'latin1');
  out.writeUInt8(ID_WIDTH, 48);
  out.writeUInt8(0x0d, headerLength - 1);
  for (let i = 0; i < count; i++) out.write(String(i + 1).padStart(ID_WIDTH), headerLength + recordLength * i + 1, 'latin1');
  out.writeUInt8(0x1a, out.length - 1);
  return out;
}

/** Writes `<base>.shp`, `<base>.shx` and `<base>.dbf`. */
export async function writePolygonShapefile(base: string, polygons: readonly Polygon[]): Promise<void> {
  const records = polygons.map(record);
  const box = ringBounds(polygons.flatMap((polygon) => polygon.coordinates[0]!));
  const shpLength = HEADER + records.reduce((sum, content) => sum + RECORD_HEADER + content.length, 0);
  const shp: Buffer[] = [header(shpLength, box)];
  const shx: Buffer[] = [header(HEADER + 8 * records.length, box)];
  let offset = HEADER;
  records.forEach((content, i) => {
    const head = Buffer.alloc(RECORD_HEADER);
    head.writeInt32BE(i + 1, 0);
    head.writeInt32BE(content.length / 2, 4);
    shp.push(head, content);
    const index = Buffer.alloc(8);
    index.writeInt32BE(offset / 2, 0);
    index.writeInt32BE(content.length / 2, 4);
    shx.push(index);
    offset += RECORD_HEADER + content.length;
  });
  await Promise.all([
    writeFile(`${base}.shp`, Buffer.concat(shp)),
    writeFile(`${base}.shx`, Buffer.concat(shx)),
    writeFile(`${base}.dbf`, dbf(records.length)),
  ]);
}
