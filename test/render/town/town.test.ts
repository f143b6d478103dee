/**
 * The town's archives hold what their styles read: every source-layer of each style is in some tile,
 * and every layer's filter matches some feature at a zoom the layer shows at, but for the layers
 * listed in UNMATCHED with the reason the town has nothing for them. The committed archives are
 * what the generator makes, byte for byte.
 */

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { VectorTile } from '@mapbox/vector-tile';
import { featureFilter, type FilterSpecification, type LayerSpecification } from '@maplibre/maplibre-gl-style-spec';
import { PbfReader } from 'pbf';
import { openArchive } from '../../../src/platform/pmtiles.js';
import { fixturesDir } from '../suite/cases.js';
import { buildTown, MAX_ZOOM, MIN_ZOOM, tileX, tileY } from './build.js';

const townDir = path.join(fixturesDir, '_data/town');

/** Style layers that match nothing in the town, and why. */
const UNMATCHED: Record<string, Record<string, string>> = {
  openmaptiles: {
    'landcover-ice-shelf': 'no ice on the Swiss plateau',
    'landcover-glacier': 'no glacier',
    landcover_sand: 'no sand',
    landuse: 'class "agriculture" is not an OpenMapTiles v3 class (farmland is landcover class farmland)',
    landuse_overlay_national_park: 'no national park',
    road_bridge_area: 'no bridge areas, only bridge lines',
    tunnel_minor: 'class "minor_road" is not an OpenMapTiles v3 class (minor roads are "minor")',
    'bridge_minor case': 'class "minor_road" is not an OpenMapTiles v3 class',
    bridge_minor: 'class "minor_road" is not an OpenMapTiles v3 class',
    'aeroway-area': 'the glider field has runway and taxiway lines, not areas',
    'waterway-bridge-case': 'no waterway on a bridge (aqueduct)',
    'waterway-bridge': 'no waterway on a bridge (aqueduct)',
    'airport-label': 'the glider field has an ICAO code, no IATA code',
    place_label_city: 'a town, no city',
    'country_label-other': 'no country label point in a 7-km town',
    country_label: 'no country label point in a 7-km town',
  },
  protomaps: {
    landuse_beach: 'no beach',
    landuse_zoo: 'no zoo',
    landuse_runway: 'runway and taxiway are lines, not areas',
    landuse_pedestrian: 'no pedestrian area or dam',
    roads_tunnels_minor_casing: 'no minor road in a tunnel',
    roads_tunnels_minor: 'no minor road in a tunnel',
    roads_tunnels_link_casing: 'no link road in a tunnel',
    roads_tunnels_link: 'no link road in a tunnel',
    roads_bridges_link_casing: 'no link road on a bridge',
    roads_bridges_link: 'no link road on a bridge',
    water_label_ocean: 'no sea',
    earth_label_islands: 'no island',
    places_region: 'no region label point in a 7-km town',
    places_country: 'no country label point in a 7-km town',
  },
};

interface Decoded {
  z: number;
  layers: Map<string, { type: 1 | 2 | 3; properties: Record<string, unknown>; id: number | undefined }[]>;
}

async function decodeArchive(file: string): Promise<Decoded[]> {
  const archive = await openArchive(file);
  try {
    const tiles: Decoded[] = [];
    const [west, south, east, north] = archive.bounds;
    const addresses: [number, number, number][] = [];
    for (let z = archive.minZoom; z <= archive.maxZoom; z++) {
      for (let y = tileY(north, z); y <= tileY(south, z); y++) {
        for (let x = tileX(west, z); x <= tileX(east, z); x++) addresses.push([z, x, y]);
      }
    }
    for (const [z, x, y] of addresses) {
      const data = await archive.tile(z, x, y);
      if (data === null) continue;
      const vt = new VectorTile(new PbfReader(data));
      const layers: Decoded['layers'] = new Map();
      for (const [name, layer] of Object.entries(vt.layers)) {
        layers.set(name, Array.from({ length: layer.length }, (_, i) => {
          const feature = layer.feature(i);
          return { type: feature.type as 1 | 2 | 3, properties: feature.properties, id: feature.id };
        }));
      }
      tiles.push({ z, layers });
    }
    return tiles;
  } finally {
    await archive.close();
  }
}

/**
 * The style's layers that read the archive but match no feature of a tile at a zoom they show at
 * (a layer's zoom range is met by tiles up to MAX_ZOOM, which are overzoomed beyond it).
 */
function unmatchedLayers(style: { layers: LayerSpecification[] }, tiles: readonly Decoded[]): { missingSourceLayers: string[]; unmatched: string[] } {
  const present = new Set(tiles.flatMap((tile) => [...tile.layers.keys()]));
  const missingSourceLayers: string[] = [];
  const unmatched: string[] = [];
  for (const layer of style.layers) {
    if (!('source-layer' in layer) || layer['source-layer'] === undefined) continue;
    const sourceLayer = layer['source-layer'];
    if (!present.has(sourceLayer)) missingSourceLayers.push(sourceLayer);
    const filter = featureFilter('filter' in layer ? (layer.filter as FilterSpecification) : undefined, `layers[${layer.id}].filter`);
    const [minzoom, maxzoom] = [layer.minzoom ?? 0, layer.maxzoom ?? 24];
    const matched = tiles.some(({ z, layers }) => {
      // A zoom-z tile is drawn from zoom z up to z + 1, and the last zoom's tiles at every zoom beyond.
      const zooms = z === MAX_ZOOM ? [Math.max(z, minzoom)] : [z];
      return zooms.some((zoom) => zoom >= minzoom && zoom < maxzoom && (layers.get(sourceLayer) ?? []).some((feature) => filter.filter({ zoom }, feature)));
    });
    if (!matched) unmatched.push(layer.id);
  }
  return { missingSourceLayers: [...new Set(missingSourceLayers)], unmatched };
}

for (const schema of ['openmaptiles', 'protomaps'] as const) {
  test(`the ${schema} archive holds every source layer its style reads, and matches all but the known-empty layers`, async () => {
    const style = JSON.parse(readFileSync(path.join(townDir, `${schema}-style.json`), 'utf8')) as { layers: LayerSpecification[] };
    const tiles = await decodeArchive(path.join(townDir, `${schema}.pmtiles`));
    assert.deepEqual(new Set(tiles.map((tile) => tile.z)), new Set(Array.from({ length: MAX_ZOOM - MIN_ZOOM + 1 }, (_, k) => MIN_ZOOM + k)));
    const { missingSourceLayers, unmatched } = unmatchedLayers(style, tiles);
    assert.deepEqual(missingSourceLayers, []);
    assert.deepEqual(unmatched.sort(), Object.keys(UNMATCHED[schema]!).sort());
  });
}

test('the committed town archives and styles are what the generator makes, byte for byte', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'town-'));
  try {
    await buildTown(dir);
    const sprite = ['', '@2x'].flatMap((ratio) => [`protomaps-sprite${ratio}.json`, `protomaps-sprite${ratio}.png`]);
    for (const file of ['openmaptiles.pmtiles', 'protomaps.pmtiles', 'openmaptiles-style.json', 'protomaps-style.json', ...sprite]) {
      assert.ok(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(townDir, file))), `${file} differs from a fresh build`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
