/**
 * Web Mercator (EPSG:3857) tile math for the weather pyramids: 512-px tiles, XYZ scheme (y down
 * from the north), so zoom 0 is the whole world in one 512-px tile.
 */
export const tileSize = 512;
export const earthRadius = 6378137;
/** Half the width of the world in EPSG:3857 metres. */
export const originShift = Math.PI * earthRadius;
export const maxLatitude = 85.0511287798066;

/** Longitude of the centre of pixel column `px` of a world `2^z * 512` pixels wide. */
export function pixelLongitude(px: number, zoom: number): number {
  return ((px + 0.5) / (tileSize * 2 ** zoom)) * 360 - 180;
}

/** Latitude of the centre of pixel row `py` (0 at the north edge). */
export function pixelLatitude(py: number, zoom: number): number {
  const n = Math.PI * (1 - (2 * (py + 0.5)) / (tileSize * 2 ** zoom));
  return (Math.atan(Math.sinh(n)) * 180) / Math.PI;
}

/** The tile column holding a longitude, and the tile row holding a latitude, at a zoom. */
export function tileX(lon: number, zoom: number): number {
  const n = 2 ** zoom;
  return Math.min(n - 1, Math.max(0, Math.floor(((lon + 180) / 360) * n)));
}

export function tileY(lat: number, zoom: number): number {
  const n = 2 ** zoom;
  const clamped = Math.max(-maxLatitude, Math.min(maxLatitude, lat));
  const rad = (clamped * Math.PI) / 180;
  const y = ((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n;
  return Math.min(n - 1, Math.max(0, Math.floor(y)));
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

/** EPSG:3857 metres of a longitude and a latitude. */
export function mercatorX(lon: number): number {
  return (lon * originShift) / 180;
}

export function mercatorY(lat: number): number {
  const clamped = Math.max(-maxLatitude, Math.min(maxLatitude, lat));
  return earthRadius * Math.log(Math.tan(Math.PI / 4 + (clamped * Math.PI) / 360));
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
