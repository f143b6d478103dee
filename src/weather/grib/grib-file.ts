/**
 * A GRIB2 file as providers publish it: plain, or compressed whole with bzip2 (DWD's open data,
 * `.grib2.bz2`) or gzip. Recognised by its first bytes, not its name, and decompressed in memory
 * for the decoder; bzip2 by Debian's `bzip2` (Node has no bzip2 of its own).
 */

import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';

export class GribFileError extends Error {
  override name = 'GribFileError';
}

function bunzip2(file: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('bzip2', ['-dc', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', (error) => reject(new GribFileError(`${file}: cannot run bzip2 to decompress it (${error.message})`)));
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(chunks));
      else reject(new GribFileError(`${file}: not a readable bzip2 file (${stderr.trim().split('\n').at(-1) ?? `bzip2 exited with ${code}`})`));
    });
  });
}

/** The file's GRIB bytes; a GribFileError naming the file when its compression cannot be undone. */
export async function readGribFile(file: string): Promise<Uint8Array> {
  const data = await readFile(file);
  if (data[0] === 0x42 && data[1] === 0x5a && data[2] === 0x68) return bunzip2(file);
  if (data[0] === 0x1f && data[1] === 0x8b) {
    try {
      return await promisify(gunzip)(data);
    } catch (error) {
      throw new GribFileError(`${file}: not a readable gzip file (${(error as Error).message})`);
    }
  }
  return data;
}
