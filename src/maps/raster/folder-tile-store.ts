/**
 * Raster tiles as files: `<dir>/<mapId>/<revision>/<tile>`, written to a temporary name and renamed,
 * so a reader (another instance on the same volume) sees a whole tile or none.
 */

import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RasterTileStore } from './tile-store.js';

export class FolderTileStore implements RasterTileStore {
  constructor(private readonly dir: string) {}

  async get(mapId: string, revision: string, tile: string): Promise<Buffer | null> {
    try {
      return await readFile(path.join(this.dir, mapId, revision, tile));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async put(mapId: string, revision: string, tiles: readonly { tile: string; bytes: Buffer }[]): Promise<void> {
    for (const { tile, bytes } of tiles) {
      const file = path.join(this.dir, mapId, revision, tile);
      await mkdir(path.dirname(file), { recursive: true });
      const partial = `${file}.${randomUUID()}.partial`;
      await writeFile(partial, bytes);
      await rename(partial, file);
    }
  }

  async dropOtherRevisions(mapId: string, revision: string): Promise<void> {
    const folder = path.join(this.dir, mapId);
    const revisions = await readdir(folder).catch(() => [] as string[]);
    await Promise.all(revisions.filter((name) => name !== revision).map((name) => rm(path.join(folder, name), { recursive: true, force: true })));
  }
}
