import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildWorld } from '../src/tools/world/build.js';
import { root } from './instance.js';

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
