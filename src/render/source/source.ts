/**
 * What the renderer asks of a style's source: decoded tiles by z/x/y in the source's own pyramid.
 * Every kind of storage (PMTiles, MBTiles, a folder of z/x/y files, an http(s) template, GeoJSON)
 * answers through this one interface, so the renderer never knows where tiles come from.
 */

import type { Image } from '@napi-rs/canvas';

/**
 * A ring, a line or a feature's points in tile coordinates, as interleaved integers x0, y0, x1,
 * y1, …: 0..extent across the tile, beyond it inside the tile's buffer. Eight bytes a point, where
 * an array of {x, y} objects takes about sixty, so the tile cache holds several times the tiles.
 */
export type TileRing = Int32Array;

/** A TileRing's points as objects, each coordinate times `scale` and rounded (to another extent). */
export function ringPoints(ring: TileRing, scale = 1): { x: number; y: number }[] {
  const points: { x: number; y: number }[] = [];
  for (let i = 0; i < ring.length; i += 2) points.push({ x: Math.round(ring[i]! * scale), y: Math.round(ring[i + 1]! * scale) });
  return points;
}

/** A ring of `points` as a TileRing. */
export function tileRing(points: readonly { readonly x: number; readonly y: number }[]): TileRing {
  const ring = new Int32Array(points.length * 2);
  points.forEach((point, i) => {
    ring[i * 2] = point.x;
    ring[i * 2 + 1] = point.y;
  });
  return ring;
}

/** One feature of a vector tile, geometry already decoded into rings, lines or points. */
export interface TileFeature {
  id?: number | string;
  /** MVT geometry type: 1 point, 2 line string, 3 polygon. */
  type: 1 | 2 | 3;
  properties: Record<string, string | number | boolean | null>;
  /** Points (type 1: one point per ring), lines (type 2) or rings (type 3), in tile coordinates. */
  geometry: TileRing[];
}

export interface TileLayer {
  /** Tile coordinates span 0..extent (4096 in most MVT, 8192 for GeoJSON as in MapLibre). */
  extent: number;
  features: TileFeature[];
}

export interface VectorTile {
  kind: 'vector';
  layers: ReadonlyMap<string, TileLayer>;
}

export interface RasterTile {
  kind: 'raster';
  /** Decoded image, ready for drawImage. */
  image: Image;
  width: number;
  height: number;
  /** RGBA pixels, row-major, decoded on first call (raster-dem needs them, plain raster does not). */
  pixels(): Uint8ClampedArray;
}

export type Tile = VectorTile | RasterTile;

export type SourceKind = 'vector' | 'raster' | 'raster-dem' | 'geojson';

export interface TileSource {
  readonly kind: SourceKind;
  /** 512 or 256: the tile size in CSS pixels that decides which zoom of the source is drawn. */
  readonly tileSize: number;
  readonly minzoom: number;
  /**
   * The deepest stored zoom. Beyond it raster sources are over-zoomed (the renderer scales the
   * maxzoom tile); vector sources answer for deeper tiles too, cut from the maxzoom tile.
   */
  readonly maxzoom: number;
  /** West, south, east, north in degrees; tiles outside are never asked for. */
  readonly bounds: [number, number, number, number];
  readonly attribution: string | undefined;
  /** raster-dem only: how heights are encoded in RGB. */
  readonly encoding: 'terrarium' | 'mapbox' | undefined;
  /**
   * The decoded tile at z/x/y (xyz scheme, minzoom <= z <= maxzoom, or any z >= minzoom for a
   * `vector` source; 0 <= x, y < 2^z), or null when the source has no tile there. Tiles are cached
   * (bounded), so asking twice is cheap.
   */
  getTile(z: number, x: number, y: number): Promise<Tile | null>;
  close(): Promise<void>;
}

/** The extension of a source's tile URLs: `pbf` for vector and GeoJSON sources, else the image format. */
export type TileFormat = 'pbf' | 'png' | 'jpg' | 'webp';

/** A layer of a vector source, as TileJSON 3.0.0 describes it. */
export interface VectorLayer {
  id: string;
  /** Attribute names to their types (`String`, `Number`, `Boolean`), as far as the archive says. */
  fields: Record<string, string>;
  description?: string;
  minzoom?: number;
  maxzoom?: number;
}

/** A tile as the source stores it, ready to be sent to a client. */
export interface TileData {
  data: Uint8Array;
  contentType: string;
  /** `gzip` when the bytes are gzip-compressed (vector tiles usually are). */
  contentEncoding?: 'gzip';
}

/**
 * What the tile endpoints ask of a source: its tiles as stored, never decoded, and what a TileJSON
 * document says of them. Every source a map opens answers this as well as TileSource.
 */
export interface ServedTiles {
  readonly format: TileFormat;
  /** Vector sources: the layers the archive or TileJSON lists; undefined when it says nothing. */
  readonly vectorLayers: readonly VectorLayer[] | undefined;
  /**
   * The tile at z/x/y as stored (xyz scheme), or null when the source has none there or z is
   * outside its zoom range; throws when the tile cannot be read.
   */
  getTileData(z: number, x: number, y: number): Promise<TileData | null>;
}

export type MapSource = TileSource & ServedTiles;
