import { rename, writeFile } from 'node:fs/promises';

/**
 * Writes JSON (indented, with a final newline) by a rename, so that a reader (a server loading
 * its maps) sees the old file or the new one, never a part.
 */
export async function writeJson(file: string, value: unknown): Promise<void> {
  await writeFile(`${file}.partial`, `${JSON.stringify(value, null, 2)}\n`);
  await rename(`${file}.partial`, file);
}
