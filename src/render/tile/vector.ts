/**
 * Vector tiles as the layer painters see them: each covered tile with its transform to device
 * pixels and its clip square, and per source layer the features' paths, shared by every style layer
 * that draws them (a land fill and a coastline line of the same features) and by every render of
 * the tile; so are the features each style layer selects at a tile zoom and the merged paths of its
 * batches, in tile coordinates, which painters draw under the tile's transform.
 *
 * Features go through a layer the way MapLibre builds a bucket: hidden at the tile's zoom (with the
 * layer's minzoom floored) means nothing is drawn, the filter is evaluated at the tile's zoom,
 * features keep their order in the tile unless a sort key reorders them (stable, ascending).
 */

import { Path2D } from '@napi-rs/canvas';
import type { Feature, ICanonicalTileID } from '@maplibre/maplibre-gl-style-spec';
import { addDerivedBytes } from '../source/cache.js';
import { ringPoints, type TileFeature, type TileLayer, type VectorTile } from '../source/source.js';
import { layoutValue, type EvaluationZooms } from '../style/properties.js';
import { tileClip, tileTransform, type PixelRect, type TileTransform, type ViewTransform } from '../view/projection.js';
import type { RenderLayer } from '../style/style.js';
import type { CoveredTile } from '../view/tile-cover.js';

/** MapLibre's internal tile extent; `within`/`distance` expressions expect geometry in it. */
const EXTENT = 8192;

/** A canonical tile id as the expression evaluator wants it. */
function canonicalId(z: number, x: number, y: number): ICanonicalTileID {
  return { z, x, y, key: `${z}/${x}/${y}` } as unknown as ICanonicalTileID;
}

export class VectorTileView {
  readonly transform: TileTransform;
  readonly clip: PixelRect;
  readonly canonical: ICanonicalTileID;
  private readonly layers = new Map<string, SourceLayerView | null>();

  constructor(
    readonly cover: CoveredTile,
    private readonly tile: VectorTile,
    private readonly view: ViewTransform,
    /** GeoJSON tiles have one layer, which every style layer of the source draws whatever its source-layer. */
    private readonly geojson = false,
  ) {
    this.clip = tileClip(view, cover);
    this.canonical = canonicalId(cover.z, cover.x, cover.y);
    // Transform for extent 1; each source layer scales it to its own extent.
    this.transform = tileTransform(view, cover, 1);
  }

  sourceLayer(name: string | undefined): SourceLayerView | null {
    const key = this.geojson ? '' : name;
    if (key === undefined) return null;
    let layer = this.layers.get(key);
    if (layer === undefined) {
      const data = this.geojson ? this.tile.layers.values().next().value : this.tile.layers.get(key);
      layer = data && data.features.length > 0 ? new SourceLayerView(data, this.transform, this.tile) : null;
      this.layers.set(key, layer);
    }
    return layer;
  }

  /** The zooms a layer's properties are evaluated at on this tile. */
  zooms(globalState: Readonly<Record<string, unknown>>): EvaluationZooms {
    return { viewZoom: this.view.zoom, tileZoom: this.cover.overscaledZ, globalState };
  }
}

/**
 * Each feature's geometry as a Path2D in its tile's coordinates, built once for as long as the
 * tile lives (sources cache their tiles): a render only transforms it into place, in native code,
 * instead of handing Skia every vertex again. Counted with the tile in its cache.
 */
const tilePaths = new WeakMap<TileFeature, Path2D>();

/**
 * What a Path2D of `points` points holds, as measured in resident memory: about 750 bytes of its
 * own (the JS object, Skia's path and path data records, their allocations) and 12 a point (the
 * point, its verb, the arrays' spare room).
 */
export function pathBytes(points: number): number {
  return 750 + points * 12;
}

/** Adds a feature's rings (closed) or lines (open) in tile coordinates to a path; returns its point count. */
function appendGeometry(path: Path2D, feature: TileFeature): number {
  const closed = feature.type === 3;
  let points = 0;
  for (const ring of feature.geometry) {
    points += ring.length / 2;
    if (ring.length < 4) continue;
    path.moveTo(ring[0]!, ring[1]!);
    for (let i = 2; i < ring.length; i += 2) path.lineTo(ring[i]!, ring[i + 1]!);
    if (closed) path.closePath();
  }
  return points;
}

/** A feature's own path in tile coordinates; points have none. */
function tilePath(feature: TileFeature, owner: VectorTile): Path2D {
  let path = tilePaths.get(feature);
  if (!path) {
    path = new Path2D();
    const points = appendGeometry(path, feature);
    tilePaths.set(feature, path);
    addDerivedBytes(owner, pathBytes(points));
  }
  return path;
}

/**
 * What style layers derive from a tile layer and keep for as long as the tile lives: the features
 * each selects at a tile zoom, the merged paths of its batches. Keyed by the compiled layer, so two
 * styles drawing the same tiles never share an entry. Its memory is counted with the tile's in the
 * tile cache (addDerivedBytes), which evicts both together.
 */
const derived = new WeakMap<TileLayer, Map<RenderLayer, Map<string, unknown>>>();

function memoOf(data: TileLayer, layer: RenderLayer): Map<string, unknown> {
  let byLayer = derived.get(data);
  if (!byLayer) derived.set(data, (byLayer = new Map()));
  let memo = byLayer.get(layer);
  if (!memo) byLayer.set(layer, (memo = new Map()));
  return memo;
}

/** The features of one source layer of one tile, placed in device pixels on demand. */
export class SourceLayerView {
  readonly features: readonly TileFeature[];
  /** Device pixels per tile unit. */
  readonly scale: number;
  readonly originX: number;
  readonly originY: number;
  readonly extent: number;
  /** Tile coordinates to device pixels. */
  readonly matrix: { a: number; b: number; c: number; d: number; e: number; f: number };
  private readonly evaluation: (Feature | undefined)[];
  private readonly paths: (Path2D | undefined)[];

  constructor(
    private readonly data: TileLayer,
    transform: TileTransform,
    /** The decoded tile: what painters keep for as long as it lives is counted with it (addDerivedBytes). */
    readonly owner: VectorTile,
  ) {
    this.features = data.features;
    this.extent = data.extent;
    this.scale = transform.scale / data.extent;
    this.originX = transform.x;
    this.originY = transform.y;
    this.matrix = { a: this.scale, b: 0, c: 0, d: this.scale, e: this.originX, f: this.originY };
    this.evaluation = new Array(data.features.length);
    this.paths = new Array(data.features.length);
  }

  /** The feature as expressions see it; with its geometry (in MapLibre's 8192 extent) when asked. */
  evaluationFeature(index: number, needGeometry = false): Feature {
    let feature = this.evaluation[index];
    if (feature === undefined || (needGeometry && !('geometry' in feature))) {
      const source = this.features[index]!;
      const base: { type: 1 | 2 | 3; properties: TileFeature['properties']; id?: number | string; geometry?: { x: number; y: number }[][] } = {
        type: source.type,
        properties: source.properties,
      };
      if (source.id !== undefined) base.id = source.id;
      if (needGeometry) {
        const scale = EXTENT / this.extent;
        base.geometry = source.geometry.map((ring) => ringPoints(ring, scale));
      }
      feature = base as Feature;
      this.evaluation[index] = feature;
    }
    return feature;
  }

  /** Appends the feature's geometry, in device pixels, to a batch path. */
  addTo(batch: Path2D, index: number): void {
    batch.addPath(tilePath(this.features[index]!, this.owner), this.matrix);
  }

  /** The feature's geometry in tile coordinates (draw it under `matrix`), kept with the tile. */
  tilePath(index: number): Path2D {
    return tilePath(this.features[index]!, this.owner);
  }

  /**
   * A value a style layer derives from this tile layer, made once per tile and key and kept with
   * the tile; `bytes` is what it holds beyond what the tile already counts.
   */
  derive<T>(layer: RenderLayer, key: string, make: () => { value: T; bytes: number }): T {
    const memo = memoOf(this.data, layer);
    if (memo.has(key)) return memo.get(key) as T;
    const { value, bytes } = make();
    memo.set(key, value);
    // And the memo's own entry.
    addDerivedBytes(this.owner, bytes + 64);
    return value;
  }

  /** The features' geometry as one path in tile coordinates, made for this render only. */
  joinedTilePath(indices: readonly number[]): Path2D {
    const path = new Path2D();
    for (const index of indices) path.addPath(this.tilePath(index));
    return path;
  }

  /**
   * The joined tile-coordinate path of `indices` (a batch of a style layer), kept with the tile;
   * made from the geometry itself, so its features need no paths of their own.
   */
  mergedTilePath(layer: RenderLayer, key: string, indices: readonly number[]): Path2D {
    return this.derive(layer, `path|${key}`, () => {
      const path = new Path2D();
      let points = 0;
      for (const index of indices) points += appendGeometry(path, this.features[index]!);
      return { value: path, bytes: pathBytes(points) };
    });
  }

  /** The feature's geometry alone as a Path2D in device pixels: rings closed, lines open. */
  path(index: number): Path2D {
    let path = this.paths[index];
    if (path === undefined) {
      // Path2D.transform() would change the shared tile path in place.
      path = new Path2D();
      path.addPath(tilePath(this.features[index]!, this.owner), this.matrix);
      this.paths[index] = path;
    }
    return path;
  }

  /** The feature's geometry as flat device-pixel coordinates, one array per ring or line. */
  pixels(index: number): Float64Array[] {
    const { scale, originX, originY } = this;
    return this.features[index]!.geometry.map((ring) => {
      const out = new Float64Array(ring.length);
      for (let i = 0; i < ring.length; i += 2) {
        out[i] = originX + ring[i]! * scale;
        out[i + 1] = originY + ring[i + 1]! * scale;
      }
      return out;
    });
  }
}

/** A tile of a vector style layer, with the features the layer draws of it. */
export interface LayerTile {
  readonly tile: VectorTileView;
  readonly source: SourceLayerView;
  readonly zooms: EvaluationZooms;
  readonly selected: readonly number[];
}

/**
 * The tiles a vector style layer draws, each with its selected features (`selectFeatures`): tiles
 * without the layer's source layer, without a bucket at their zoom, or with nothing selected are
 * passed over.
 */
export function* layerTiles(
  tiles: readonly VectorTileView[],
  layer: RenderLayer,
  globalState: Readonly<Record<string, unknown>>,
  accepts: (type: 1 | 2 | 3) => boolean,
  sortKey?: string,
): Generator<LayerTile> {
  for (const tile of tiles) {
    const source = tile.sourceLayer(layer.sourceLayer);
    if (!source) continue;
    const zooms = tile.zooms(globalState);
    if (!builtAtTileZoom(layer, zooms.tileZoom)) continue;
    const selected = selectFeatures(layer, source, zooms, tile.canonical, accepts, sortKey);
    if (selected.length > 0) yield { tile, source, zooms, selected };
  }
}

/** Whether MapLibre builds a layer's bucket for a tile at this zoom (`isHidden(zoom, true)`). */
export function builtAtTileZoom(layer: RenderLayer, tileZoom: number): boolean {
  if (layer.minzoom && tileZoom < Math.floor(layer.minzoom)) return false;
  if (layer.maxzoom && tileZoom >= layer.maxzoom) return false;
  return true;
}

/**
 * The features of a source layer that a style layer draws, in drawing order: filtered at the
 * tile's zoom, limited to the geometry types the layer type draws, stably sorted by `sortKey` when
 * the layer has a data-driven one.
 */
export function selectFeatures(
  layer: RenderLayer,
  source: SourceLayerView,
  zooms: EvaluationZooms,
  canonical: ICanonicalTileID,
  accepts: (type: 1 | 2 | 3) => boolean,
  sortKey?: string,
): readonly number[] {
  // Filters and sort keys are evaluated at the tile's zoom only: the choice is the tile's to keep.
  const types = (accepts(1) ? 1 : 0) | (accepts(2) ? 2 : 0) | (accepts(3) ? 4 : 0);
  return source.derive(layer, `select|${zooms.tileZoom}|${types}|${sortKey ?? ''}`, () => {
    const value = evaluateSelection(layer, source, zooms, canonical, accepts, sortKey);
    return { value, bytes: value.length * 8 };
  });
}

function evaluateSelection(
  layer: RenderLayer,
  source: SourceLayerView,
  zooms: EvaluationZooms,
  canonical: ICanonicalTileID,
  accepts: (type: 1 | 2 | 3) => boolean,
  sortKey?: string,
): number[] {
  const selected: number[] = [];
  const { filter } = layer;
  const needGeometry = filter.needGeometry;
  const globals = { zoom: zooms.tileZoom, globalState: zooms.globalState };
  const features = source.features;
  for (let i = 0; i < features.length; i++) {
    if (!accepts(features[i]!.type)) continue;
    if (filter.filter(globals, source.evaluationFeature(i, needGeometry), canonical)) selected.push(i);
  }
  const key = sortKey ? layer.layout[sortKey] : undefined;
  if (key && key.kind !== 'constant' && key.kind !== 'camera') {
    const keys = new Map<number, number>();
    for (const i of selected) keys.set(i, Number(layoutValue(key, zooms, source.evaluationFeature(i), canonical)));
    selected.sort((a, b) => keys.get(a)! - keys.get(b)!);
  }
  return selected;
}
