/**
 * Tiles in a folder, found through a path template: `tiles: ["tiles/{z}/{x}/{y}.pbf"]` relative to
 * the style's folder, an absolute path, or a `file:` URL. A missing file is a missing tile; the
 * folder the template starts in must exist, so that a mistyped path fails when the map loads
 * rather than drawing an empty map.
 */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { TileStore } from './encoded.js';
import { expandTemplate, localPath, type Scheme } from './template.js';

export class FolderTileStore implements TileStore {
  readonly key: string;
  private readonly templates: readonly string[];

  constructor(templates: readonly string[], private readonly scheme: Scheme, baseDir: string) {
    // Tokens survive path.resolve; file: URLs are turned into paths once expanded.
    this.templates = templates.map((template) => (/^file:/i.test(template) ? template : path.resolve(baseDir, template)));
    for (const template of this.templates) {
      const fixed = template.slice(0, template.search(/{|$/));
      const folder = localPath(fixed.endsWith('/') ? fixed : path.posix.dirname(fixed), baseDir);
      if (!existsSync(folder)) throw new Error(`no folder ${folder} for the tiles ${template}`);
    }
    this.key = `folder ${scheme} ${this.templates.join(' ')}`;
  }

  async read(z: number, x: number, y: number): Promise<Uint8Array | null> {
    const file = localPath(expandTemplate(this.templates, this.scheme, z, x, y), '/');
    try {
      return await readFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw error;
    }
  }

  async close(): Promise<void> {}
}
