import { gzipSync } from 'node:zlib';
import { GeoJSONVT, type GeoJSONVTFeature, type GeoJSONVTTile } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { Feature, Geometry } from 'geojson';
import type { Tile } from '../../platform/pmtiles.js';
import { clipFeature, shiftFeature, type LonLatBox } from './clip.js';
import { minzoomKey, type LayerSpec } from './layers.js';
import { latitudeOfY } from '../../platform/web-mercator.js';

/**
 * Cutting layers into gzipped vector tiles. The pyramid is cut in parts: the top zooms in one, and
 * from `regionZoom` on each tile's subtree on its own, from only what lies in it. A tile index keeps
 * every tile it cuts, so an index per part holds a part's worth and goes when the part is done: the
 * whole pyramid never sits in memory at once, and parts can be cut in parallel.
 */

const extent = 4096;
/** 64 of 4096 units: 8 pixels of a 512-pixel tile, room for the widest line the style draws. */
const buffer = 64;
/** Douglas-Peucker tolerance in tile units: 4 of 4096 is half a pixel of a 512-pixel tile. */
const tolerance = 4;
/** Zooms below are one part; from it on, each tile's subtree is a part. */
const regionZoom = 3;

type Properties = Record<string, string | number>;

export interface BandFeatures {
  minzoom: number;
  maxzoom: number;
  features: Feature<Geometry, Properties>[];
}

export interface LayerFeatures {
  spec: LayerSpec;
  bands: BandFeatures[];
}

/** A part of the pyramid: the subtree of one tile, down to `maxzoom`. */
export interface Part {
  z: number;
  x: number;
  y: number;
  maxzoom: number;
}

function latitude(y: number): number {
  if (y <= 0) return 90;
  if (y >= 1) return -90;
  return latitudeOfY(y);
}

/** The part's tile and its buffer, in degrees: what its tiles can show. */
function partBox(part: Part): LonLatBox {
  const size = 1 / 2 ** part.z;
  const margin = (size * buffer) / extent;
  const [x0, y0, x1, y1] = [part.x * size - margin, part.y * size - margin, (part.x + 1) * size + margin, (part.y + 1) * size + margin];
  return [(x0 - 0.5) * 360, latitude(y1), (x1 - 0.5) * 360, latitude(y0)];
}

function extend(coordinates: unknown, box: LonLatBox): void {
  if (typeof (coordinates as unknown[])[0] === 'number') {
    const [lon, lat] = coordinates as [number, number];
    box[0] = Math.min(box[0], lon);
    box[1] = Math.min(box[1], lat);
    box[2] = Math.max(box[2], lon);
    box[3] = Math.max(box[3], lat);
  } else {
    for (const inner of coordinates as unknown[]) extend(inner, box);
  }
}

const boxes = new WeakMap<Feature, LonLatBox>();

function featureBox(feature: Feature<Geometry>): LonLatBox {
  let box = boxes.get(feature);
  if (!box) {
    box = [Infinity, Infinity, -Infinity, -Infinity];
    if ('coordinates' in feature.geometry) extend(feature.geometry.coordinates, box);
    boxes.set(feature, box);
  }
  return box;
}

/** What of the features lies in the box, with what lies across the antimeridian brought over. */
function featuresIn(features: readonly Feature<Geometry, Properties>[], box: LonLatBox): Feature<Geometry, Properties>[] {
  const out: Feature<Geometry, Properties>[] = [];
  for (const feature of features) {
    const own = featureBox(feature);
    for (const shift of [-360, 0, 360]) {
      const [w, s, e, n] = [own[0] + shift, own[1], own[2] + shift, own[3]];
      if (w > box[2] || e < box[0] || s > box[3] || n < box[1]) continue;
      const shifted = shift ? shiftFeature(feature, shift) : feature;
      if (w >= box[0] && e <= box[2] && s >= box[1] && n <= box[3]) {
        out.push(shifted);
        if (shift) boxes.set(shifted, [w, s, e, n]);
        continue;
      }
      const clipped = clipFeature(shifted, box);
      if (clipped) out.push(clipped);
    }
  }
  return out;
}

/** The layer's tile at z/x/y with the features drawn at z, their internal tags dropped. */
function layerTile(index: GeoJSONVT | undefined, z: number, x: number, y: number): GeoJSONVTTile | null {
  const tile = index?.getTile(z, x, y);
  if (!tile) return null;
  const features = (tile.features as GeoJSONVTFeature[]).flatMap((feature): GeoJSONVTFeature[] => {
    const tags = feature.tags ?? {};
    const minzoom = tags[minzoomKey] as number | undefined;
    if (minzoom === undefined) return [feature];
    if (minzoom > z) return [];
    const { [minzoomKey]: _, ...rest } = tags;
    return [{ ...feature, tags: rest }];
  });
  return features.length ? { ...tile, features } : null;
}

/**
 * Cuts and encodes every tile of a part that has something, walking down only where data goes on.
 * The layers hold what lies in the part (see `partsOf`).
 */
export function cutPart(layers: readonly LayerFeatures[], part: Part): Tile[] {
  // One index per layer and band, split down to the part's tile.
  const indexes = layers.map((layer) =>
    layer.bands
      .filter((band) => band.maxzoom >= part.z && band.minzoom <= part.maxzoom && band.maxzoom >= layer.spec.minzoom)
      .map(({ minzoom, maxzoom, features }) => {
        const index = features.length
          ? new GeoJSONVT(
              { type: 'FeatureCollection', features },
              // maxZoom one past the band keeps its last zoom simplified like the others.
              { maxZoom: maxzoom + 1, indexMaxZoom: part.z, indexMaxPoints: 0, tolerance, extent, buffer },
            )
          : undefined;
        return { minzoom, maxzoom, index };
      }),
  );
  const at = (layer: number, z: number) => indexes[layer]!.find((band) => band.minzoom <= z && z <= band.maxzoom)?.index;

  const tiles: Tile[] = [];
  let level: [number, number][] = [[part.x, part.y]];
  for (let z = part.z; z <= part.maxzoom && level.length; z++) {
    const next: [number, number][] = [];
    for (const [x, y] of level) {
      const content: Record<string, GeoJSONVTTile> = {};
      layers.forEach((layer, i) => {
        const tile = z >= layer.spec.minzoom ? layerTile(at(i, z), z, x, y) : null;
        if (tile) content[layer.spec.id] = tile;
      });
      if (Object.keys(content).length) {
        tiles.push({ z, x, y, data: gzipSync(fromGeojsonVt(content, { version: 2, extent })) });
      }
      if (z === part.maxzoom) continue;
      // The next zoom may draw from another band, so ask that band whether anything is here.
      const goesOn = layers.some((_, i) => (at(i, z + 1)?.getTile(z, x, y)?.features.length ?? 0) > 0);
      if (goesOn) next.push([2 * x, 2 * y], [2 * x + 1, 2 * y], [2 * x, 2 * y + 1], [2 * x + 1, 2 * y + 1]);
    }
    level = next;
  }
  return tiles;
}

/** Layers with only the bands that draw at zooms from..to, and only what lies in the box. */
function within(layers: readonly LayerFeatures[], from: number, to: number, box: LonLatBox | null): LayerFeatures[] {
  return layers.map(({ spec, bands }) => ({
    spec,
    bands: bands
      .filter((band) => band.maxzoom >= from && band.minzoom <= to)
      .map((band) => ({ ...band, features: box ? featuresIn(band.features, box) : band.features })),
  }));
}

/** What `partsOf` divides the work into: the top part, and each tile at `regionZoom`. */
export const PART_UNITS = 1 + 4 ** regionZoom;

/**
 * The parts of the pyramid down to maxzoom, each with what lies in it: the zooms above
 * `regionZoom` as one part, then each tile's subtree at `regionZoom`. Features are clipped level by
 * level (each tile's from its parent's), so a large feature is not clipped whole for every part.
 * Each part comes with the units of work (of `PART_UNITS`) it stands for: its own, and those of the
 * empty subtrees passed over since the previous part, so that counting them tells the progress.
 */
export function* partsOf(layers: readonly LayerFeatures[], maxzoom: number): Generator<[Part, LayerFeatures[], number]> {
  const top = Math.min(maxzoom, regionZoom - 1);
  if (maxzoom < regionZoom) {
    yield [{ z: 0, x: 0, y: 0, maxzoom: top }, within(layers, 0, top, null), PART_UNITS];
    return;
  }
  yield [{ z: 0, x: 0, y: 0, maxzoom: top }, within(layers, 0, top, null), 1];
  let passed = 0;
  function* descend(z: number, x: number, y: number, parent: LayerFeatures[]): Generator<[Part, LayerFeatures[], number]> {
    const part = { z, x, y, maxzoom };
    const own = within(parent, regionZoom, maxzoom, partBox(part));
    if (own.every((layer) => layer.bands.every((band) => band.features.length === 0))) {
      passed += 4 ** (regionZoom - z);
      return;
    }
    if (z === regionZoom) {
      yield [part, own, 1 + passed];
      passed = 0;
      return;
    }
    for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) yield* descend(z + 1, 2 * x + dx, 2 * y + dy, own);
  }
  const world = within(layers, regionZoom, maxzoom, null);
  for (const [x, y] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) yield* descend(1, x, y, world);
}
