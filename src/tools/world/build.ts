import { mkdir, readFile, stat } from 'node:fs/promises';
import type { Feature, Point } from 'geojson';
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { writeArchive, type Tile } from '../../platform/pmtiles.js';
import { writeJson } from '../write-json.js';
import { readGshhg, type Gshhg, type GshhgResolution } from '../gshhg.js';
import {
  gshhgBands,
  gshhgFeatures,
  layerSpecs,
  naturalEarthBands,
  naturalEarthFeatures,
  type Band,
} from './layers.js';
import { countryLabelFeatures, marineFeatures, placeFeatures, readCities, type LabelProperties } from './labels.js';
import type { PartTask } from './tile-worker.js';
import { countryColors, readNaturalEarth, type NaturalEarth, type NaturalEarthScale } from './natural-earth.js';
import { PART_UNITS, partsOf, type LayerFeatures } from './tiles.js';
import { silentProgress, type Progress } from '../../platform/progress.js';
import { MAX_LATITUDE } from '../../platform/web-mercator.js';

/**
 * Builds the default `world` map: Natural Earth and GSHHG into a PMTiles archive of vector tiles,
 * zooms 0 to 8, with the committed style and the map definition that points at it.
 */

export interface BuildOptions {
  /** The archive's last zoom (default 8); clients over-zoom past it. */
  maxzoom?: number;
  progress?: Progress;
}

export interface BuiltWorld {
  /** `<outDir>/world.json`, the map definition. */
  definition: string;
  style: string;
  archive: string;
  tiles: number;
  /** The archive's size. */
  bytes: number;
}

const attribution = '© Natural Earth; GSHHG; GeoNames';

const tileColors = 5;
const youngGenerationMb = 192;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The committed style, in the sources (tsc does not copy JSON into dist). */
export const stylePath = path.join(root, 'src/tools/world/style.json');

/** The bands that reach zooms up to maxzoom, the last cut at it. */
function bandsTo<T>(bands: readonly Band<T>[], maxzoom: number): Band<T>[] {
  return bands.filter((band) => band.minzoom <= maxzoom).map((band) => ({ ...band, maxzoom: Math.min(band.maxzoom, maxzoom) }));
}

/** Cuts the parts in worker threads, one per core, while this thread clips the next parts. */
async function cutAll(layers: LayerFeatures[], maxzoom: number, progress: Progress): Promise<Tile[]> {
  const pool = new Piscina<PartTask, Tile[]>({
    filename: new URL('./tile-worker.js', import.meta.url).href,
    maxThreads: availableParallelism(),
    // Cutting makes many short-lived arrays: a large young generation scavenges them less often.
    resourceLimits: { maxYoungGenerationSizeMb: youngGenerationMb },
  });
  const tiles: Tile[] = [];
  const jobs: Promise<void>[] = [];
  let done = 0;
  progress.phase('Cutting tiles', PART_UNITS);
  try {
    for (const [part, features, units] of partsOf(layers, maxzoom)) {
      jobs.push(
        pool.run({ part, layers: features }).then((cut) => {
          tiles.push(...cut);
          done += units;
          progress.update(done);
        }),
      );
      // Let the pool hand the part to a thread before clipping the next.
      await new Promise(setImmediate);
    }
    await Promise.all(jobs);
    progress.update(PART_UNITS);
  } finally {
    await Promise.allSettled(jobs);
    await pool.destroy();
  }
  return tiles;
}

/**
 * Writes `<outDir>/world.json`, `<outDir>/world/style.json` and `<outDir>/world/world.pmtiles`,
 * the definition last, so that a map is never found half-built.
 */
export async function buildWorld(outDir: string, options: BuildOptions = {}): Promise<BuiltWorld> {
  const maxzoom = options.maxzoom ?? 8;
  if (!Number.isInteger(maxzoom) || maxzoom < 0 || maxzoom > 8) throw new RangeError('maxzoom must be an integer from 0 to 8');
  const progress = options.progress ?? silentProgress;
  progress.phase('Reading Natural Earth and GSHHG');
  const neBands = bandsTo(naturalEarthBands, maxzoom);
  const gsBands = bandsTo(gshhgBands, maxzoom);
  // gmt dumps GSHHG in other processes while this one reads Natural Earth.
  const dumps = Promise.all(gsBands.map(async ({ data }) => [data, await readGshhg(data)] as const));
  const naturalEarth = new Map<NaturalEarthScale, NaturalEarth>(neBands.map(({ data }) => [data, readNaturalEarth(data)]));
  const colors = countryColors(tileColors);
  const gshhg = new Map<GshhgResolution, Gshhg>(await dumps);
  const finest = naturalEarth.get(neBands.at(-1)!.data)!;
  const labels = (id: string): Feature<Point, LabelProperties>[] => {
    if (id === 'marine') return marineFeatures(maxzoom);
    if (id === 'country_labels') return countryLabelFeatures(finest, maxzoom);
    return placeFeatures(readCities(), maxzoom);
  };
  const layers: LayerFeatures[] = layerSpecs.map((spec) => ({
    spec,
    bands: spec.from === 'labels' ? [{ minzoom: 0, maxzoom, features: labels(spec.id) }] : (spec.from === 'naturalEarth' ? neBands : gsBands).map((band) => ({
      minzoom: band.minzoom,
      maxzoom: band.maxzoom,
      features:
        spec.from === 'naturalEarth'
          ? naturalEarthFeatures(spec.id, naturalEarth.get(band.data as NaturalEarthScale)!, colors)
          : gshhgFeatures(spec.id, gshhg.get(band.data as GshhgResolution)!, band.maxzoom),
    })),
  }));
  const tiles = await cutAll(layers, maxzoom, progress);
  progress.phase('Writing the archive');

  const folder = path.join(outDir, 'world');
  await mkdir(folder, { recursive: true });
  const archive = path.join(folder, 'world.pmtiles');
  await writeArchive(archive, tiles, {
    tileType: 'mvt',
    tileCompression: 'gzip',
    minZoom: 0,
    maxZoom: maxzoom,
    bounds: [-180, -MAX_LATITUDE, 180, MAX_LATITUDE],
    center: [0, 20, Math.min(2, maxzoom)],
    metadata: {
      name: 'world',
      description: `Countries, borders, coastlines, lakes, rivers, places and sea names of the world, zooms 0 to ${maxzoom}`,
      attribution,
      type: 'baselayer',
      format: 'pbf',
      vector_layers: layerSpecs
        .filter((spec) => spec.minzoom <= maxzoom)
        .map((spec) => ({ id: spec.id, description: spec.description, minzoom: spec.minzoom, maxzoom, fields: spec.fields })),
    },
  });

  const style = JSON.parse(await readFile(stylePath, 'utf8')) as { sources: Record<string, Record<string, unknown>> };
  for (const source of Object.values(style.sources)) {
    if (source.type === 'vector') Object.assign(source, { maxzoom, attribution });
  }
  const stylePathOut = path.join(folder, 'style.json');
  await writeJson(stylePathOut, style);
  const definition = path.join(outDir, 'world.json');
  await writeJson(definition, { style: 'world/style.json', formats: ['png', 'jpg', 'webp'], attribution, minzoom: 0, maxzoom: 22 });
  progress.end();
  return {
    definition,
    style: stylePathOut,
    archive,
    tiles: tiles.length,
    bytes: (await stat(archive)).size,
  };
}
