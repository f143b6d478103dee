/**
 * tilemaker (Debian's tilemaker 2.2) run over a PBF extract with Meridian's OpenMapTiles profile
 * (profile/config.json and profile/process.lua, in the sources: tsc copies no JSON or Lua into
 * dist), writing an MBTiles file. The config is written per run: the zoom range, and the water
 * polygons' path. Its progress lines ("Block i/n" while reading, "writing tile i of n") are passed on.
 */

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTool } from '../child-processes.js';
import type { Region } from '../gshhg.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
export const profileDir = path.join(root, 'src/tools/osm/profile');

/** The deepest zoom the OpenMapTiles schema defines; clients over-zoom past it. */
export const SCHEMA_MAXZOOM = 14;

export interface TilemakerRun {
  input: string;
  output: string;
  /** The folder the run's config is written to. */
  workDir: string;
  /** `<base>.shp` of the sea's polygons. */
  water: string;
  minzoom: number;
  maxzoom: number;
  /**
   * The area tiled: the extract and the margin its sea is made over. tilemaker clips shapes to it,
   * so that the tiles at the extract's edge have the sea beyond the extract too.
   */
  bbox: Region;
  /** tilemaker's `--store`: its temporary storage for nodes and ways, on disk. */
  store?: string;
  onProgress: (stage: 'reading' | 'writing', done: number, total: number) => void;
}

interface Config {
  layers: Record<string, { minzoom: number; maxzoom: number; source?: string }>;
  settings: Record<string, unknown>;
}

/** The profile's config for a zoom range, reading the sea from `water`. */
export async function configFor(minzoom: number, maxzoom: number, water: string): Promise<Config> {
  const config = JSON.parse(await readFile(path.join(profileDir, 'config.json'), 'utf8')) as Config;
  for (const layer of Object.values(config.layers)) {
    if (layer.source) layer.source = `${water}.shp`;
    layer.maxzoom = Math.min(layer.maxzoom, maxzoom);
    layer.minzoom = Math.min(Math.max(layer.minzoom, minzoom), layer.maxzoom);
  }
  Object.assign(config.settings, { minzoom, maxzoom, basezoom: maxzoom, combine_below: maxzoom });
  return config;
}

export async function runTilemaker(options: TilemakerRun): Promise<void> {
  const configFile = path.join(options.workDir, 'config.json');
  await writeFile(configFile, JSON.stringify(await configFor(options.minzoom, options.maxzoom, options.water)));
  const args = ['--input', options.input, '--output', options.output, '--config', configFile, '--process', path.join(profileDir, 'process.lua'), '--bbox', options.bbox.join(',')];
  if (options.store !== undefined) args.push('--store', options.store);
  const child = spawnTool('tilemaker', args, { cwd: options.workDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const watch = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    tail = (tail + text).slice(-4000);
    for (const line of text.split(/[\r\n]+/)) {
      const block = /Block (\d+)\/(\d+)/.exec(line);
      if (block) options.onProgress('reading', Number(block[1]), Number(block[2]));
      const tile = /writing tile (\d+) of (\d+)/.exec(line);
      if (tile) options.onProgress('writing', Number(tile[1]), Number(tile[2]));
    }
  };
  child.stdout!.on('data', watch);
  child.stderr!.on('data', watch);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error("tilemaker not found: importing needs Debian's tilemaker package (scripts/setup.sh installs it)") : error),
    );
    child.once('close', resolve);
  });
  if (code !== 0) {
    const last = tail.split(/[\r\n]+/).filter((line) => line.trim() !== '').slice(-3).join('; ');
    throw new Error(`tilemaker failed (exit ${code}): ${last}`);
  }
}
