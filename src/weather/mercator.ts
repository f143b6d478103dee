/**
 * Web Mercator (EPSG:3857) tile math for the weather pyramids: 512-px tiles, XYZ scheme (y down
 * from the north), so zoom 0 is the whole world in one 512-px tile.
 */
import { HALF_WORLD_METRES, latitudeOfY, longitudeOfX, xOfLongitude, yOfLatitude } from '../platform/web-mercator.js';

export const tileSize = 512;
/** Half the width of the world in EPSG:3857 metres. */
export const originShift = HALF_WORLD_METRES;

/** Longitude of the centre of pixel column `px` of a world `2^z * 512` pixels wide. */
export function pixelLongitude(px: number, zoom: number): number {
  return longitudeOfX((px + 0.5) / (tileSize * 2 ** zoom));
}

/** Latitude of the centre of pixel row `py` (0 at the north edge). */
export function pixelLatitude(py: number, zoom: number): number {
  return latitudeOfY((py + 0.5) / (tileSize * 2 ** zoom));
}

/** The tile column holding a longitude, and the tile row holding a latitude, at a zoom. */
export function tileX(lon: number, zoom: number): number {
  const n = 2 ** zoom;
  return Math.min(n - 1, Math.max(0, Math.floor(xOfLongitude(lon) * n)));
}

export function tileY(lat: number, zoom: number): number {
  const n = 2 ** zoom;
  return Math.min(n - 1, Math.max(0, Math.floor(yOfLatitude(lat) * n)));
}

export interface LonLatBounds {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** Tiles of one zoom that intersect the bounds (west > east: the bounds cross the antimeridian). */
export function tilesCovering(bounds: LonLatBounds, zoom: number): { x: number; y: number }[] {
  const columns: number[] = [];
  const n = 2 ** zoom;
  const first = tileX(bounds.west, zoom);
  const last = tileX(bounds.east, zoom);
  if (bounds.west <= bounds.east) {
    for (let x = first; x <= last; x++) columns.push(x);
  } else {
    for (let x = first; x < n; x++) columns.push(x);
    for (let x = 0; x <= last && x < first; x++) columns.push(x);
  }
  const tiles: { x: number; y: number }[] = [];
  for (let y = tileY(bounds.north, zoom); y <= tileY(bounds.south, zoom); y++) {
    for (const x of columns) tiles.push({ x, y });
  }
  return tiles;
}


/**
 * The smallest zoom whose pixels are no larger than the source grid's spacing (metres, measured
 * at a latitude), capped at `limit`: deeper zooms would only interpolate.
 */
export function zoomForResolution(spacingMetres: number, latitude: number, limit = 12): number {
  const groundWidth = 2 * originShift * Math.cos((latitude * Math.PI) / 180);
  const zoom = Math.ceil(Math.log2(groundWidth / (tileSize * spacingMetres)));
  return Math.max(0, Math.min(limit, zoom));
}
