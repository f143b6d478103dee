/**
 * Web Mercator (EPSG:3857) on the sphere, the one place its math lives. Positions are given in
 * degrees, in world fractions (0..1 across the square world, from its top-left corner: what tile
 * pyramids multiply by their size at a zoom), or in EPSG:3857 metres.
 */

export type LonLat = [lon: number, lat: number];

export const EARTH_RADIUS = 6378137;
/** Half the width of the world in EPSG:3857 metres. */
export const HALF_WORLD_METRES = Math.PI * EARTH_RADIUS;
/** Latitude where the square world ends: atan(sinh(pi)). */
export const MAX_LATITUDE = 85.0511287798066;
/** West, south, east, north of a tile source that states none: the style specification's default (MAX_LATITUDE rounded). */
export const DEFAULT_SOURCE_BOUNDS: readonly [number, number, number, number] = [-180, -85.051129, 180, 85.051129];

export function xOfLongitude(lon: number): number {
  return (lon + 180) / 360;
}

/** Latitudes beyond the square world are clamped to its edge. */
export function yOfLatitude(lat: number): number {
  const clamped = Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat));
  const phi = (clamped * Math.PI) / 180;
  return (1 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) / Math.PI) / 2;
}

export function longitudeOfX(x: number): number {
  return x * 360 - 180;
}

export function latitudeOfY(y: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - 2 * y))) * 180) / Math.PI;
}

/** World pixel coordinates of a point in a world `worldSize` pixels wide, from its top-left corner. */
export function project(lon: number, lat: number, worldSize: number): [x: number, y: number] {
  return [xOfLongitude(lon) * worldSize, yOfLatitude(lat) * worldSize];
}

/** Inverse of `project`. */
export function unproject(x: number, y: number, worldSize: number): LonLat {
  return [longitudeOfX(x / worldSize), latitudeOfY(y / worldSize)];
}

/** EPSG:3857 metres of a longitude. */
export function metresOfLongitude(lon: number): number {
  return (lon * HALF_WORLD_METRES) / 180;
}

/** EPSG:3857 metres of a latitude (clamped to the square world). */
export function metresOfLatitude(lat: number): number {
  return (0.5 - yOfLatitude(lat)) * 2 * HALF_WORLD_METRES;
}

/** Longitude into [-180, 180). */
export function wrapLongitude(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}
