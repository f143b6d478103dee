import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildWorld } from '../src/tools/world/build.js';
import { importExtract } from '../src/tools/osm/import.js';
import { root } from './instance.js';
import { OAKLAND } from '../test/peers.js';

/**
 * The maps folder holding `world` for the static-map benchmarks: MERIDIAN_BENCH_MAPS_DIR, else the
 * quick start's data/maps, else one built for the run (`temporary`: the caller removes it).
 */
export async function worldMaps(): Promise<{ dir: string; temporary: boolean }> {
  const existing = process.env.MERIDIAN_BENCH_MAPS_DIR ?? path.join(root, 'data/maps');
  if (existsSync(path.join(existing, 'world.json'))) return { dir: existing, temporary: false };
  const dir = mkdtempSync(path.join(tmpdir(), 'meridian-bench-maps-'));
  console.log('building the world map (no data/maps/world.json yet)…');
  await buildWorld(dir);
  return { dir, temporary: true };
}

/**
 * The streets map `west-oakland` in the maps folder (the quick start imports it; imported here when
 * it is missing): its id, the published style file and the folder of its archive and sprite.
 */
export async function streetMaps(mapsDir: string): Promise<{ id: string; style: string; folder: string }> {
  const id = 'west-oakland';
  const definition = path.join(mapsDir, `${id}.json`);
  if (!existsSync(definition)) {
    console.log(`importing ${OAKLAND} as ${id} (no ${definition} yet)…`);
    await importExtract(OAKLAND, { mapsDir, id });
  }
  const style = path.join(mapsDir, (JSON.parse(readFileSync(definition, 'utf8')) as { style: string }).style);
  return { id, style, folder: path.dirname(style) };
}
