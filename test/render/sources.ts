/**
 * In-memory tile sources and pixel helpers for the renderer's tests: hand-made vector features,
 * GeoJSON through geojson-vt, PNG tiles drawn with @napi-rs/canvas.
 */

import { GeoJSONVT } from '@maplibre/geojson-vt';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { FeatureCollection } from 'geojson';
import type { RasterTile, SourceKind, Tile, TileFeature, TileRing, TileSource, VectorTile } from '../../src/render/source/source.js';
import { sliceVectorTile } from '../../src/render/source/overzoom.js';
import { compileStyle } from '../../src/render/style/style.js';
import { renderMap } from '../../src/render/renderer.js';
import type { Viewport } from '../../src/render/view/viewport.js';

export interface SourceOptions {
  kind?: SourceKind;
  tileSize?: number;
  minzoom?: number;
  maxzoom?: number;
  bounds?: [number, number, number, number];
  encoding?: 'terrarium' | 'mapbox';
}

/**
 * A source answering from a map of "z/x/y" to tiles; records what it was asked for. As a vector
 * source must, it answers for tiles deeper than its maxzoom with cuts of the maxzoom tile.
 */
export class MemorySource implements TileSource {
  readonly kind: SourceKind;
  readonly tileSize: number;
  readonly minzoom: number;
  readonly maxzoom: number;
  readonly bounds: [number, number, number, number];
  readonly attribution = undefined;
  readonly encoding: 'terrarium' | 'mapbox' | undefined;
  readonly requests: string[] = [];

  constructor(
    private readonly tiles: ReadonlyMap<string, Tile> | ((z: number, x: number, y: number) => Tile | null),
    options: SourceOptions = {},
  ) {
    this.kind = options.kind ?? 'vector';
    this.tileSize = options.tileSize ?? 512;
    this.minzoom = options.minzoom ?? 0;
    this.maxzoom = options.maxzoom ?? 22;
    this.bounds = options.bounds ?? [-180, -85.051129, 180, 85.051129];
    this.encoding = options.encoding;
  }

  async getTile(z: number, x: number, y: number): Promise<Tile | null> {
    this.requests.push(`${z}/${x}/${y}`);
    if (this.kind === 'vector' && z > this.maxzoom) {
      const dz = z - this.maxzoom;
      const from = { z: this.maxzoom, x: x >> dz, y: y >> dz };
      const tile = this.stored(from.z, from.x, from.y);
      return tile?.kind === 'vector' ? sliceVectorTile(tile, from, { z, x, y }) : null;
    }
    return this.stored(z, x, y);
  }

  private stored(z: number, x: number, y: number): Tile | null {
    return typeof this.tiles === 'function' ? this.tiles(z, x, y) : (this.tiles.get(`${z}/${x}/${y}`) ?? null);
  }

  async close(): Promise<void> {}
}

/** One vector tile with one layer per entry. */
export function vectorTile(layers: Record<string, TileFeature[]>, extent = 4096): VectorTile {
  return { kind: 'vector', layers: new Map(Object.entries(layers).map(([name, features]) => [name, { extent, features }])) };
}

/** A closed ring of tile coordinates from [x, y] pairs. */
export function ring(points: [number, number][]): TileRing {
  return Int32Array.from([...points, points[0]!].flat());
}

export function polygon(points: [number, number][], properties: TileFeature['properties'] = {}): TileFeature {
  return { type: 3, properties, geometry: [ring(points)] };
}

export function line(points: [number, number][], properties: TileFeature['properties'] = {}): TileFeature {
  return { type: 2, properties, geometry: [Int32Array.from(points.flat())] };
}

export function point(x: number, y: number, properties: TileFeature['properties'] = {}): TileFeature {
  return { type: 1, properties, geometry: [Int32Array.of(x, y)] };
}

/** A GeoJSON source's tiles, cut by geojson-vt (extent 8192, as MapLibre does) on demand. */
export function geojsonSource(data: FeatureCollection, options: SourceOptions = {}): MemorySource {
  const index = new GeoJSONVT(data as never, { maxZoom: options.maxzoom ?? 18, extent: 8192, buffer: 128, tolerance: 0 } as never);
  return new MemorySource(
    (z, x, y) => {
      const tile = (index as unknown as { getTile(z: number, x: number, y: number): { features: { type: 1 | 2 | 3; geometry: unknown; tags: Record<string, string | number | boolean | null> }[] } | null }).getTile(z, x, y);
      if (!tile) return null;
      const features: TileFeature[] = tile.features.map((feature) => {
        const geometry = feature.type === 1 ? (feature.geometry as [number, number][]).map((at) => Int32Array.from(at)) : (feature.geometry as [number, number][][]).map((part) => Int32Array.from(part.flat()));
        return { type: feature.type, properties: feature.tags ?? {}, geometry };
      });
      return vectorTile({ geojson: features }, 8192);
    },
    { ...options, kind: 'geojson', tileSize: 512 },
  );
}

/** A raster tile whose pixels are drawn by `paint` on a width × height canvas. */
export async function rasterTile(width: number, height: number, paint: (ctx: ReturnType<Canvas['getContext']>) => void): Promise<RasterTile> {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  paint(ctx);
  const image = await loadImage(await canvas.encode('png'));
  const pixels = ctx.getImageData(0, 0, width, height).data;
  return { kind: 'raster', image, width, height, pixels: () => pixels };
}

export function view(zoom: number, center: [number, number] = [0, 0], width = 512, height = 512, pixelRatio: 1 | 2 = 1): Viewport {
  return { center, zoom, width, height, pixelRatio };
}

/** Compiles and renders a style over the given sources. */
export async function render(style: Omit<StyleSpecification, 'version'>, sources: Record<string, TileSource>, viewport: Viewport): Promise<Canvas> {
  const compiled = compileStyle({ version: 8, ...style } as StyleSpecification);
  return renderMap(compiled, new Map(Object.entries(sources)), viewport);
}

/** The style sources block a test needs: one entry per source id, of the right type. */
export function sourceSpecs(sources: Record<string, TileSource>): StyleSpecification['sources'] {
  return Object.fromEntries(
    Object.entries(sources).map(([id, source]) => [id, source.kind === 'geojson' ? { type: 'geojson', data: { type: 'FeatureCollection', features: [] } } : { type: source.kind, tiles: ['memory://{z}/{x}/{y}'] }]),
  ) as StyleSpecification['sources'];
}

export type Pixel = [r: number, g: number, b: number, a: number];

export function pixel(canvas: Canvas, x: number, y: number): Pixel {
  const data = canvas.getContext('2d').getImageData(x, y, 1, 1).data;
  return [data[0]!, data[1]!, data[2]!, data[3]!];
}

/** How many pixels of the canvas satisfy `test`. */
export function countPixels(canvas: Canvas, test: (pixel: Pixel) => boolean): number {
  const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
  let count = 0;
  for (let i = 0; i < data.length; i += 4) if (test([data[i]!, data[i + 1]!, data[i + 2]!, data[i + 3]!])) count++;
  return count;
}

/** Alpha values along a row, from x0 to x1 inclusive. */
export function alphaRow(canvas: Canvas, y: number, x0: number, x1: number): number[] {
  const data = canvas.getContext('2d').getImageData(x0, y, x1 - x0 + 1, 1).data;
  return Array.from({ length: x1 - x0 + 1 }, (_, i) => data[i * 4 + 3]!);
}

export function near(actual: number, expected: number, tolerance: number): boolean {
  return Math.abs(actual - expected) <= tolerance;
}
