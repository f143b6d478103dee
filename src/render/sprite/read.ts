/**
 * The bytes of one sprite file, from a local file (a path or a `file:` URL) or over http(s) (the
 * platform's HTTP client, as map sources), never more than a size limit and, over http, within a
 * time limit: a sprite is read while a map loads and must not hang it or fill its memory. A file
 * that is not there is `null`, so that a missing `@2x` file can fall back to the 1x one; every
 * other failure is an Error naming the file.
 */

import { open } from 'node:fs/promises';
import { HttpClientError } from '../../platform/http/http-client.js';
import { redactUrl } from '../../platform/logging.js';
import { failureReason, sourceClient } from '../source/http.js';
import { hasScheme, isHttpUrl, localPath } from '../source/template.js';

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
  try {
    const response = await sourceClient.request(url, {
      timeoutMs,
      maxBytes: limit,
      inspect: ({ status }) => {
        if (status === 404) return false;
        if (status < 200 || status > 299) throw new Error(`HTTP ${status}`);
      },
    });
    return response.status === 404 ? null : response.body;
  } catch (error) {
    const reason =
      error instanceof HttpClientError && error.code === 'too-large' ? tooLarge('the response', limit).message
      : error instanceof HttpClientError && (error.code === 'timeout' || error.code === 'connect-timeout') ? `timed out after ${timeoutMs} ms`
      : failureReason(error);
    throw new Error(`GET ${redactUrl(url)}: ${reason}`);
  }
}
