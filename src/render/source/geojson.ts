/**
 * `geojson` sources, tiled on the fly with geojson-vt exactly as MapLibre's GeoJSON worker does:
 * extent 8192 in 512-px tiles, so buffer and tolerance are MapLibre's pixel values times 16,
 * maxzoom 18 unless the source says otherwise, the source's `filter` applied to the features of a
 * FeatureCollection before tiling, and clustering (`cluster`, `clusterRadius`, `clusterMaxZoom`,
 * `clusterMinPoints`, `clusterProperties`) with MapLibre's defaults. `data` is inline GeoJSON, an
 * http(s) URL, or a local file (a path relative to the style's folder, or a `file:` URL).
 *
 * In MapLibre a GeoJSON source has one unnamed layer that style layers reach without
 * `source-layer`; its tiles here hold that layer under the name `_geojson` (GEOJSON_LAYER).
 * Property values that are objects or arrays become their JSON text, as in a vector tile.
 *
 * The tile endpoints get the same tiles encoded as MVT (@maplibre/vt-pbf, as MapLibre's worker
 * encodes them), their one layer named `_geojson`.
 */

import { readFile } from 'node:fs/promises';
import { GeoJSONVT } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';
import { createExpression, type GeoJSONSourceSpecification, type StyleExpression } from '@maplibre/maplibre-gl-style-spec';
import type { Feature, GeoJSON } from 'geojson';
import type { TileCache } from './cache.js';
import { inPyramid, storedTile } from './encoded.js';
import { fetchJson, type HttpOptions } from './http.js';
import type { MapSource, TileData, TileFeature, TileLayer, TileRing, VectorLayer, VectorTile } from './source.js';
import { isHttpUrl, localPath } from './template.js';
import { DEFAULT_SOURCE_BOUNDS } from '../../platform/web-mercator.js';

export const GEOJSON_LAYER = '_geojson';
export const GEOJSON_EXTENT = 8192;
const TILE_SIZE = 512;
/** MapLibre's pixels to tile units. */
const SCALE = GEOJSON_EXTENT / TILE_SIZE;

let sources = 0;

// The package's declarations do not resolve under NodeNext (extensionless imports): the shapes used here.
type SlicedFeature =
  | { id?: number | string; type: 1; tags: Record<string, unknown> | null; geometry: [number, number][] }
  | { id?: number | string; type: 2 | 3; tags: Record<string, unknown> | null; geometry: [number, number][][] };
interface SlicedTile {
  features: SlicedFeature[];
}
interface ClusterReducers {
  map?: (properties: Record<string, unknown> | null) => Record<string, unknown>;
  reduce?: (accumulated: Record<string, unknown>, properties: Record<string, unknown>) => void;
}

type Properties = TileFeature['properties'];

function primitives(tags: Record<string, unknown> | null): Properties {
  const properties: Properties = {};
  for (const [key, value] of Object.entries(tags ?? {})) {
    if (value === undefined) continue;
    properties[key] = value === null || typeof value !== 'object' ? (value as Properties[string]) : JSON.stringify(value);
  }
  return properties;
}

/** Ids as MapLibre's GeoJSON wrapper takes them: numbers, and strings that are numbers. */
function idOf(id: number | string | undefined): number | string | undefined {
  if (typeof id !== 'string') return id;
  const number = parseInt(id, 10);
  return Number.isNaN(number) ? id : number;
}

function toTileFeature(feature: SlicedFeature): TileFeature {
  const geometry: TileRing[] = feature.type === 1 ? feature.geometry.map((point) => Int32Array.from(point)) : feature.geometry.map((ring) => Int32Array.from(ring.flat()));
  const id = idOf(feature.id);
  return { ...(id === undefined ? {} : { id }), type: feature.type, properties: primitives(feature.tags), geometry };
}

function compile(expression: unknown, key: string, type: 'boolean' | null): StyleExpression {
  const spec = type ? { type, 'property-type': 'data-driven', overridable: false, transition: false } : null;
  const compiled = createExpression(expression, key, spec as Parameters<typeof createExpression>[2]);
  if (compiled.result === 'error') throw new Error(compiled.value.map((error) => `${error.key}: ${error.message}`).join(', '));
  return compiled.value;
}

function evaluationFeature(feature: Feature): Parameters<StyleExpression['evaluate']>[1] {
  const type = feature.geometry && feature.geometry.type !== 'GeometryCollection' ? feature.geometry.type : 'Unknown';
  return { type, id: feature.id, properties: feature.properties ?? {} };
}

/** The source's `filter`, applied as MapLibre does: to a FeatureCollection's features, at zoom 0. */
function filtered(data: GeoJSON, filter: unknown, name: string): GeoJSON {
  if (data.type !== 'FeatureCollection' || (typeof filter !== 'boolean' && !(filter as unknown[] | undefined)?.length)) return data;
  const predicate = compile(filter, `${name}.filter`, 'boolean');
  return { ...data, features: data.features.filter((feature) => predicate.evaluate({ zoom: 0 }, evaluationFeature(feature))) };
}

/** `clusterProperties`: `{ name: [reduce operator or expression, map expression] }`, as in MapLibre. */
function clusterReducers(clusterProperties: unknown, name: string): ClusterReducers {
  if (!clusterProperties) return {};
  const names = Object.keys(clusterProperties);
  const maps: Record<string, StyleExpression> = {};
  const reduces: Record<string, StyleExpression> = {};
  for (const key of names) {
    const [operator, map] = (clusterProperties as Record<string, [unknown, unknown]>)[key]!;
    maps[key] = compile(map, `${name}.clusterProperties.${key}[1]`, null);
    reduces[key] = compile(typeof operator === 'string' ? [operator, ['accumulated'], ['get', key]] : operator, `${name}.clusterProperties.${key}[0]`, null);
  }
  const feature = { type: 'Point' as const, properties: {} as Record<string, unknown> };
  return {
    map(pointProperties) {
      feature.properties = pointProperties ?? {};
      const properties: Record<string, unknown> = {};
      for (const key of names) properties[key] = maps[key]!.evaluate({ zoom: 0 }, feature);
      return properties;
    },
    reduce(accumulated, clusterProps) {
      feature.properties = clusterProps;
      for (const key of names) accumulated[key] = reduces[key]!.evaluate({ zoom: 0, accumulated: accumulated[key] as never }, feature);
    },
  };
}

export function geojsonVtOptions(spec: GeoJSONSourceSpecification, name: string): Record<string, unknown> {
  const maxzoom = spec.maxzoom ?? 18;
  const generateId = spec.generateId ?? false;
  return {
    maxZoom: maxzoom,
    extent: GEOJSON_EXTENT,
    buffer: (spec.buffer ?? 128) * SCALE,
    tolerance: (spec.tolerance ?? 0.375) * SCALE,
    lineMetrics: spec.lineMetrics ?? false,
    generateId,
    promoteId: typeof spec.promoteId === 'string' ? spec.promoteId : null,
    cluster: spec.cluster ?? false,
    clusterOptions: {
      maxZoom: spec.clusterMaxZoom ? Math.round(spec.clusterMaxZoom) : maxzoom - 1,
      minPoints: Math.max(2, spec.clusterMinPoints || 2),
      extent: GEOJSON_EXTENT,
      radius: (spec.clusterRadius || 50) * SCALE,
      log: false,
      generateId,
      ...clusterReducers(spec.clusterProperties, name),
    },
  };
}

async function loadData(data: unknown, baseDir: string, http: HttpOptions): Promise<GeoJSON> {
  if (typeof data !== 'string') return data as GeoJSON;
  if (isHttpUrl(data)) return (await fetchJson(data, http.timeoutMs)) as GeoJSON;
  const file = localPath(data, baseDir);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as GeoJSON;
  } catch (error) {
    throw new Error(`cannot read GeoJSON ${file}: ${(error as Error).message}`);
  }
}

export class GeoJsonSource implements MapSource {
  readonly kind = 'geojson';
  readonly tileSize = TILE_SIZE;
  readonly minzoom = 0;
  readonly maxzoom: number;
  readonly bounds: [number, number, number, number] = [...DEFAULT_SOURCE_BOUNDS];
  readonly attribution: string | undefined;
  readonly encoding = undefined;
  readonly format = 'pbf';
  readonly vectorLayers: readonly VectorLayer[];
  /** The cache key of this source's tiles: data given inline has no other identity. */
  private readonly key = `geojson ${++sources}`;

  private constructor(
    spec: GeoJSONSourceSpecification,
    private readonly index: GeoJSONVT,
    private readonly cache: TileCache,
    /** The local file the data was read from; undefined for inline data and http(s) URLs. */
    readonly dataFile: string | undefined,
  ) {
    this.maxzoom = spec.maxzoom ?? 18;
    this.attribution = spec.attribution;
    this.vectorLayers = [{ id: GEOJSON_LAYER, fields: {}, minzoom: 0, maxzoom: this.maxzoom }];
  }

  /** `name` prefixes the style-spec keys of errors, e.g. `sources.places`. */
  static async open(name: string, spec: GeoJSONSourceSpecification, baseDir: string, cache: TileCache, http: HttpOptions): Promise<GeoJsonSource> {
    const data = await loadData(spec.data, baseDir, http);
    if (typeof data !== 'object' || data === null || typeof data.type !== 'string') throw new Error('the data is not GeoJSON');
    const dataFile = typeof spec.data === 'string' && !isHttpUrl(spec.data) ? localPath(spec.data, baseDir) : undefined;
    return new GeoJsonSource(spec, new GeoJSONVT(filtered(data, spec.filter, name), geojsonVtOptions(spec, name)), cache, dataFile);
  }

  async getTile(z: number, x: number, y: number): Promise<VectorTile | null> {
    if (!inPyramid(z, x, y) || z > this.maxzoom) return null;
    const tile = await this.cache.get(`${this.key}/${z}/${x}/${y}`, async () => {
      const sliced = this.index.getTile(z, x, y) as SlicedTile | null;
      if (!sliced || sliced.features.length === 0) return null;
      const layer: TileLayer = { extent: GEOJSON_EXTENT, features: sliced.features.map(toTileFeature) };
      return { kind: 'vector', layers: new Map([[GEOJSON_LAYER, layer]]) };
    });
    return tile as VectorTile | null;
  }

  async getTileData(z: number, x: number, y: number): Promise<TileData | null> {
    if (!inPyramid(z, x, y) || z > this.maxzoom) return null;
    const sliced = this.index.getTile(z, x, y) as SlicedTile | null;
    if (!sliced || sliced.features.length === 0) return null;
    const bytes = fromGeojsonVt({ [GEOJSON_LAYER]: sliced } as Parameters<typeof fromGeojsonVt>[0], { version: 2, extent: GEOJSON_EXTENT });
    return storedTile(this.kind, bytes);
  }

  async close(): Promise<void> {}
}
