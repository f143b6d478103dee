import type { Geometry } from './grib/grid.js';
import type { GriddedField, LonLatBounds } from './tiler.js';

/**
 * From a decoded GRIB2 field on its grid to what the tiler samples: values laid out row by row
 * (`j * width + i`), reduced grids resampled to their longest row, and the grid's bounds in the
 * tiler's convention (west > east across the antimeridian).
 */

const earthRadius = 6_371_229;

function normalizeLongitude(lon: number): number {
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

export function tilerBounds(geometry: Geometry): LonLatBounds {
  const { west, south, east, north } = geometry.bounds;
  if (geometry.wraps || east - west >= 360 - 1e-9) return { west: -180, south, east: 180, north };
  return { west: normalizeLongitude(west), south, east: normalizeLongitude(east), north };
}

/** Row-major values; a reduced row is interpolated linearly, around its circle, to the longest row's length. */
function layOut(geometry: Geometry, values: Float32Array): Float32Array {
  const { width, height, rows } = geometry;
  const out = new Float32Array(width * height);
  for (let j = 0; j < height; j++) {
    const length = rows ? rows[j]! : width;
    for (let i = 0; i < width; i++) {
      if (length === width) {
        out[j * width + i] = values[geometry.index(i, j)]!;
        continue;
      }
      const at = (i * length) / width;
      const i0 = Math.floor(at);
      const i1 = geometry.wraps ? (i0 + 1) % length : Math.min(i0 + 1, length - 1);
      const f = at - i0;
      out[j * width + i] = values[geometry.index(i0, j)]! * (1 - f) + values[geometry.index(i1, j)]! * f;
    }
  }
  return out;
}

/** The field's channels ready for the tiler; `channels` are decoded values in file order. */
export function griddedField(geometry: Geometry, channels: Float32Array[]): GriddedField {
  const { width, rows } = geometry;
  const bounds = tilerBounds(geometry);
  const locate = (lon: number, lat: number) => {
    const position = geometry.locate(lon, lat);
    if (!position) return { i: Number.NaN, j: Number.NaN };
    if (!rows) return { i: position.i, j: position.j };
    // In a resampled reduced row, the position scales with the row's length.
    return { i: (position.i * width) / rows[Math.floor(position.j)]!, j: position.j };
  };
  // Regular lat/lon and Gaussian grids: columns follow longitude and rows latitude alone.
  const separable =
    (geometry.template === 0 || geometry.template === 40) && !rows
      ? {
          column: (lon: number) => locate(lon, (bounds.south + bounds.north) / 2).i,
          row: (lat: number) => locate(bounds.west + 1e-9, lat).j,
        }
      : null;
  return {
    width,
    height: geometry.height,
    channels: channels.map((values) => layOut(geometry, values)),
    wrapsI: geometry.wraps,
    bounds,
    separable,
    locate,
  };
}

/** Distance between neighbouring points at the middle of the grid, in metres, and the latitude there. */
export function gridSpacing(geometry: Geometry): { metres: number; latitude: number } {
  const i = Math.floor(geometry.width / 2);
  const j = Math.floor(geometry.height / 2);
  const [lon1, lat1] = geometry.lonLat(geometry.index(Math.min(i, (geometry.rows?.[j] ?? geometry.width) - 2), j));
  const [lon2, lat2] = geometry.lonLat(geometry.index(Math.min(i, (geometry.rows?.[j] ?? geometry.width) - 2) + 1, j));
  const rad = Math.PI / 180;
  const a =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return { metres: 2 * earthRadius * Math.asin(Math.min(1, Math.sqrt(a))), latitude: lat1 };
}
