/**
 * Writes test/fixtures/render/_data/streets, the real OpenStreetMap data the street render cases
 * draw, from the samples Debian ships in python-osmnx-doc:
 *   oakland.pmtiles, kirchberg.pmtiles  West-Oakland.osm.bz2 and the Kirchberg an der Iller extract
 *                             imported by `importExtract` (what `meridian maps import` does)
 *   world.pmtiles             the world map (`meridian maps build-world`, read from WORLD_MAP or
 *                             data/maps/world) cut to the tiles of zooms 0-8 within CUT_MARGIN
 *                             degrees of each sample: all the street cases need of it
 *   sprite*                   the street sprite, as the import publishes it
 *   <sample>-<style>.json     the streets, light and dark styles as the import publishes them
 *                             (the extract's bounds on the `openmaptiles` source), the archives
 *                             and fonts referred to relatively, as the other cases' styles are
 *   <sample>-streets-<language>.json  the streets style through `language=<language>`
 *
 * Run: npm run render:street-fixtures (then npm run render:references for the cases over them)
 */

import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { localizeStyle } from '../../../src/maps/language.js';
import { openArchive, writeArchive, type Tile } from '../../../src/platform/pmtiles.js';
import { importExtract } from '../../../src/tools/osm/import.js';
import { OPENMAPTILES_MAPS } from '../../../src/tools/osm/openmaptiles-maps.js';
import { project, TILE_SIZE } from '../../../src/render/view/viewport.js';
import { tempDir } from '../../scratch.js';
import { fixturesDir, repoRoot } from './cases.js';
import { KIRCHBERG, OAKLAND } from '../../peers.js';

const STREET_SAMPLES = {
  oakland: { file: OAKLAND, language: 'fr' },
  kirchberg: { file: KIRCHBERG, language: 'en' },
} as const;
/** The world tiles kept around each sample reach this far beyond its bounds (a zoom-12 tile is 0.09°). */
const CUT_MARGIN = 0.2;
const WORLD_MAXZOOM = 8;

const outDir = path.join(fixturesDir, '_data/streets');
const worldMap = process.env.WORLD_MAP ?? path.join(repoRoot, 'data/maps/world/world.pmtiles');

async function main(): Promise<void> {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  // The import finds the world map beside the maps it publishes.
  const mapsDir = tempDir();
  mkdirSync(path.join(mapsDir, 'world'));
  symlinkSync(worldMap, path.join(mapsDir, 'world/world.pmtiles'));
  const regions: [number, number, number, number][] = [];
  for (const [sample, { file, language }] of Object.entries(STREET_SAMPLES)) {
    const result = await importExtract(file, { mapsDir, id: sample });
    regions.push(result.bounds);
    const published = path.dirname(result.archive);
    copyFileSync(result.archive, path.join(outDir, `${sample}.pmtiles`));
    for (const name of readdirSync(published).filter((name) => name.startsWith('sprite'))) copyFileSync(path.join(published, name), path.join(outDir, name));
    for (const { style: name } of OPENMAPTILES_MAPS) {
      const style = JSON.parse(readFileSync(path.join(published, `${name}.json`), 'utf8')) as StyleSpecification;
      style.sources.openmaptiles = { ...style.sources.openmaptiles, url: `pmtiles://${sample}.pmtiles` } as StyleSpecification['sources'][string];
      style.sources.world = { type: 'vector', url: 'pmtiles://world.pmtiles' };
      style.glyphs = 'fonts/{fontstack}/{range}.pbf';
      writeStyle(`${sample}-${name}.json`, style);
      if (name === 'streets') writeStyle(`${sample}-streets-${language}.json`, localizeStyle(style, language));
    }
    console.log(`${sample}: ${result.tiles} tiles, ${result.bytes} bytes`);
  }
  rmSync(mapsDir, { recursive: true, force: true });
  console.log(`world: ${await cutWorld(regions)} tiles`);
}

function writeStyle(name: string, style: StyleSpecification): void {
  writeFileSync(path.join(outDir, name), `${JSON.stringify(style)}\n`);
}

/** The world map's tiles of zooms 0-8 near the regions, with its header's zooms and bounds. */
async function cutWorld(regions: readonly [number, number, number, number][]): Promise<number> {
  const world = await openArchive(worldMap);
  try {
    if (world.maxZoom !== WORLD_MAXZOOM) throw new Error(`${worldMap}: maxzoom ${world.maxZoom}, want ${WORLD_MAXZOOM}`);
    const tiles: Tile[] = [];
    const keys = new Set<string>();
    for (let z = 0; z <= WORLD_MAXZOOM; z++) {
      for (const [west, south, east, north] of regions) {
        const [x0, y0] = project(west - CUT_MARGIN, north + CUT_MARGIN, z).map((v) => Math.floor(v / TILE_SIZE)) as [number, number];
        const [x1, y1] = project(east + CUT_MARGIN, south - CUT_MARGIN, z).map((v) => Math.floor(v / TILE_SIZE)) as [number, number];
        for (let x = x0; x <= x1; x++) {
          for (let y = y0; y <= y1; y++) {
            const key = `${z}/${x}/${y}`;
            const data = keys.has(key) ? null : await world.tile(z, x, y);
            keys.add(key);
            if (data) tiles.push({ z, x, y, data });
          }
        }
      }
    }
    const [west, south, east, north] = world.bounds;
    await writeArchive(path.join(outDir, 'world.pmtiles'), tiles, {
      tileType: 'mvt',
      // The archive reader hands tiles over decompressed.
      tileCompression: 'none',
      minZoom: world.minZoom,
      maxZoom: world.maxZoom,
      bounds: world.bounds,
      center: [(west + east) / 2, (south + north) / 2, 0],
      metadata: (await world.metadata()) as Record<string, unknown>,
    });
    return tiles.length;
  } finally {
    await world.close();
  }
}

await main();
