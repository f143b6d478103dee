/**
 * An OpenStreetMap extract as `maps import` takes it: PBF, or XML plain or compressed with bzip2
 * or gzip (what Geofabrik, BBBike, osmium and the OSM API hand out). The format is told from the
 * file's first bytes, not its name, and osmium-tool reads it once to check it whole and learn its
 * extent; tilemaker reads PBF only, so XML is converted by osmium first.
 *
 * The extent is that of the data (osmium's `data.bbox`, every node's location), never the box the
 * header declares: an extract's ways reach past its declared box (West-Oakland.osm.bz2 declares
 * -122.30258,37.80615,-122.29825,37.80914 and holds -122.3143312,37.8040142,-122.290784,37.8175832),
 * and a map's bounds must hold all it draws, since clients leave tiles outside a source's bounds
 * empty.
 */

import { open, stat } from 'node:fs/promises';
import path from 'node:path';
import { runTool, type ToolError } from '../child-processes.js';
import type { Region } from '../gshhg.js';

export type ExtractFormat = 'pbf' | 'osm' | 'osm.bz2' | 'osm.gz';

/** A file that cannot be imported: the message names the file and the problem. */
export class ExtractError extends Error {}

/** osmium is not installed: a problem of the machine, passed on as it is, not blamed on the file. */
class OsmiumMissingError extends ExtractError {}

export interface Extract {
  file: string;
  format: ExtractFormat;
  bytes: number;
  /** The extent of its data: west, south, east, north of its nodes. */
  bounds: Region;
  nodes: number;
  ways: number;
  relations: number;
}

/** The format of a file from its first bytes; null when it is none of them. */
export function sniffFormat(head: Uint8Array): ExtractFormat | null {
  if (head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68) return 'osm.bz2';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'osm.gz';
  const text = Buffer.from(head).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
  if (text.startsWith('<?xml') || text.startsWith('<osm')) return 'osm';
  // PBF: a 4-byte big-endian BlobHeader length, then a BlobHeader whose type is "OSMHeader".
  const length = head.length >= 4 ? Buffer.from(head).readUInt32BE(0) : 0;
  if (length > 0 && length < 64 * 1024 && Buffer.from(head.subarray(4, 4 + 20)).includes('OSMHeader')) return 'pbf';
  return null;
}

async function osmium(args: string[]): Promise<string> {
  try {
    return (await runTool('osmium', args, { maxBuffer: 64 << 20 })).stdout;
  } catch (error) {
    if ((error as ToolError).code === 'ENOENT') throw new OsmiumMissingError("osmium not found: importing needs Debian's osmium-tool package (scripts/setup.sh installs it)");
    throw new ExtractError(((error as ToolError).stderr || (error as Error).message).trim().split('\n').at(-1)!);
  }
}

interface FileInfo {
  data?: { bbox?: number[]; count?: { nodes?: number; ways?: number; relations?: number } };
}

/** Checks an extract and reads its extent; throws ExtractError naming the file and the problem. */
export async function inspectExtract(file: string): Promise<Extract> {
  const name = path.basename(file);
  let bytes: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ExtractError(`${file} is not a file`);
    bytes = info.size;
  } catch (error) {
    if (error instanceof ExtractError) throw error;
    throw new ExtractError(`${file} cannot be read: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (bytes === 0) throw new ExtractError(`${file} is empty`);
  const handle = await open(file, 'r');
  const head = Buffer.alloc(64);
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  const format = sniffFormat(head.subarray(0, Math.min(bytes, head.length)));
  if (!format) throw new ExtractError(`${file} is not an OpenStreetMap extract (expected PBF, or OSM XML plain, .bz2 or .gz)`);

  let info: FileInfo;
  try {
    info = JSON.parse(await osmium(['fileinfo', '--extended', '--json', '-F', format, file])) as FileInfo;
  } catch (error) {
    const message = (error as Error).message;
    // osmium cannot compute the extent of data without a single located node.
    if (/Invalid location/.test(message)) throw new ExtractError(`${file} holds no OpenStreetMap data (no node with a location)`);
    if (error instanceof OsmiumMissingError) throw error;
    throw new ExtractError(`${file} cannot be read as ${format === 'pbf' ? 'PBF' : 'OSM XML'}: ${message}${/EOF|end of file|truncat/i.test(message) ? ' (is it truncated?)' : ''}`);
  }
  const count = info.data?.count ?? {};
  const nodes = count.nodes ?? 0;
  if (nodes === 0) throw new ExtractError(`${file} holds no OpenStreetMap data (no nodes)`);
  const box = info.data?.bbox;
  if (!box || box.length !== 4 || !box.every(Number.isFinite)) throw new ExtractError(`${name}: osmium reported no extent`);
  return {
    file,
    format,
    bytes,
    bounds: box as Region,
    nodes,
    ways: count.ways ?? 0,
    relations: count.relations ?? 0,
  };
}

/** The extract as PBF: the file itself, or a conversion written to `out`. */
export async function asPbf(extract: Extract, out: string): Promise<string> {
  if (extract.format === 'pbf') return extract.file;
  try {
    await osmium(['cat', '-F', extract.format, extract.file, '-o', out, '-O']);
  } catch (error) {
    throw new ExtractError(`${extract.file} cannot be converted to PBF: ${(error as Error).message}`);
  }
  return out;
}
