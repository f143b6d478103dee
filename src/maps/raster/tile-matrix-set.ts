/**
 * The WMTS tile matrix sets a map's raster tiles form: `GoogleMapsCompatible`, the 256-px Web
 * Mercator pyramid of OGC WMTS 1.0.0 Annex E.4 (the XYZ tiles of `/maps/{mapId}/256/...`), and
 * `WebMercatorQuad512`, the same quad tree in 512-px tiles (the tiles of `/maps/{mapId}/...`, the
 * static images' zooms). Both are in EPSG:3857 with the origin at the north-west corner of the
 * square world; matrix z is 2^z tiles wide and high.
 *
 * A scale denominator is the ground length of one pixel over the "standardized rendering pixel
 * size" of 0.28 mm (WMTS 1.0.0, 6.1): the equator's length in metres over the pixels across the
 * world at that matrix, over 0.00028. A 512-px tile at z covers what a 256-px tile does at z, in
 * twice the pixels, so its denominator is half.
 */

import { HALF_WORLD_METRES, xOfLongitude, yOfLatitude } from '../../platform/web-mercator.js';
import type { LoadedMap } from '../registry.js';
import type { RasterTileSize } from './metatile.js';
import { rasterZooms } from './raster-routes.js';

/** The standardized rendering pixel size of WMTS 1.0.0 and SE 1.1, metres. */
export const STANDARD_PIXEL_METRES = 0.00028;
export const EPSG_3857_URN = 'urn:ogc:def:crs:EPSG::3857';
/** The north-west corner of the square world in EPSG:3857 metres, x then y (the CRS's axis order). */
export const TOP_LEFT_CORNER: readonly [number, number] = [-HALF_WORLD_METRES, HALF_WORLD_METRES];

export interface TileMatrixSetKind {
  identifier: string;
  tileSize: RasterTileSize;
  title: string;
  /** The well-known scale set the matrices follow, if any. */
  wellKnownScaleSet?: string;
}

export const TILE_MATRIX_SETS: readonly TileMatrixSetKind[] = [
  {
    identifier: 'GoogleMapsCompatible',
    tileSize: 256,
    title: 'Web Mercator in 256-px tiles (the XYZ tiles of /256/)',
    wellKnownScaleSet: 'urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible',
  },
  { identifier: 'WebMercatorQuad512', tileSize: 512, title: 'Web Mercator in 512-px tiles (the zooms of the static images)' },
];

export interface TileMatrix {
  /** The zoom, as text: what `{TileMatrix}` in a tile URL stands for. */
  identifier: string;
  z: number;
  scaleDenominator: number;
  tileSize: RasterTileSize;
  /** Tiles across and down: 2^z. */
  matrixSize: number;
}

/** The scale denominator of matrix z of `tileSize`-px tiles. */
export function scaleDenominator(z: number, tileSize: number): number {
  const metresPerPixel = (2 * HALF_WORLD_METRES) / (tileSize * 2 ** z);
  return metresPerPixel / STANDARD_PIXEL_METRES;
}

export function tileMatrixSetOf(identifier: string): TileMatrixSetKind | undefined {
  return TILE_MATRIX_SETS.find((set) => set.identifier === identifier);
}

/** The matrices of a set that a map serves: its raster zooms for that tile size. */
export function tileMatrices(map: Pick<LoadedMap, 'minzoom' | 'maxzoom'>, set: TileMatrixSetKind): TileMatrix[] {
  const { minzoom, maxzoom } = rasterZooms(map, set.tileSize);
  const matrices: TileMatrix[] = [];
  // A map's zooms may be fractional; tiles exist at the whole zooms within them.
  for (let z = Math.ceil(minzoom); z <= Math.floor(maxzoom); z++) {
    matrices.push({ identifier: String(z), z, scaleDenominator: scaleDenominator(z, set.tileSize), tileSize: set.tileSize, matrixSize: 2 ** z });
  }
  return matrices;
}

/** The columns and rows of matrix z that a box of west, south, east, north degrees touches (WMTS's TileMatrixLimits). */
export interface TileRange {
  minCol: number;
  maxCol: number;
  minRow: number;
  maxRow: number;
}

export function tileRange([west, south, east, north]: readonly [number, number, number, number], z: number): TileRange {
  const n = 2 ** z;
  const index = (fraction: number) => Math.min(n - 1, Math.max(0, Math.floor(fraction * n)));
  // A box across the antimeridian touches columns at both edges of the world: WMTS limits are one range, so all of them.
  const [minCol, maxCol] = west > east ? [0, n - 1] : [index(xOfLongitude(west)), index(xOfLongitude(east))];
  return { minCol, maxCol, minRow: index(yOfLatitude(north)), maxRow: index(yOfLatitude(south)) };
}
