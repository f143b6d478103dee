import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Writes a file so that a reader sees the old content or the new, never a part: to a temporary
 * name of its own beside it, then renamed. Its folder is made when missing. The temporary name is
 * random, not the process id alone: instances on other machines sharing the folder may have the same.
 */
export function writeFileAtomically(file: string, data: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}-${randomUUID()}.partial`;
  writeFileSync(partial, data);
  renameSync(partial, file);
}
