/**
 * The bytes of one sprite file, from a local file (a path or a `file:` URL) or over http(s), never
 * more than a size limit and, over http, within a time limit: a sprite is read while a map loads
 * and must not hang it or fill its memory. A file that is not there is `null`, so that a missing
 * `@2x` file can fall back to the 1x one; every other failure is an Error naming the file.
 */

import { open } from 'node:fs/promises';
import { redactUrl } from '../../platform/logging.js';
import { hasScheme, isHttpUrl, localPath } from '../source/template.js';

const USER_AGENT = 'Meridian static maps';

function tooLarge(name: string, limit: number): Error {
  return new Error(`${name} is larger than ${limit} bytes`);
}

/** Up to `limit` bytes of the file at `reference`; null when there is no such file. */
export async function readLimited(reference: string, limit: number, timeoutMs: number): Promise<Uint8Array | null> {
  if (hasScheme(reference) && !isHttpUrl(reference) && !/^file:/i.test(reference)) {
    throw new Error(`${reference.slice(0, reference.indexOf(':'))}: URLs are not supported (http, https, file or a path)`);
  }
  return isHttpUrl(reference) ? fetchLimited(reference, limit, timeoutMs) : readFileLimited(localPath(reference, process.cwd()), limit);
}

async function readFileLimited(file: string, limit: number): Promise<Uint8Array | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  try {
    const { size } = await handle.stat();
    if (size > limit) throw tooLarge(file, limit);
    // Read one byte past the limit: a file that grew since stat() is still refused.
    const buffer = Buffer.alloc(size + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > size) throw tooLarge(file, limit);
    }
    return new Uint8Array(buffer.buffer, buffer.byteOffset, length);
  } catch (error) {
    if ((error as Error).message.startsWith(file)) throw error;
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  } finally {
    await handle.close();
  }
}

async function fetchLimited(url: string, limit: number, timeoutMs: number): Promise<Uint8Array | null> {
  const shown = redactUrl(url);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, { signal, headers: { 'user-agent': USER_AGENT } });
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get('content-length'));
    if (declared > limit) {
      await response.body?.cancel();
      throw tooLarge('the response', limit);
    }
    const chunks: Uint8Array[] = [];
    let length = 0;
    if (response.body) {
      for await (const chunk of response.body) {
        length += chunk.byteLength;
        if (length > limit) throw tooLarge('the response', limit);
        chunks.push(chunk);
      }
    }
    return new Uint8Array(Buffer.concat(chunks, length));
  } catch (error) {
    const reason = signal.aborted ? `timed out after ${timeoutMs} ms` : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
    throw new Error(`GET ${shown}: ${reason}`);
  }
}
