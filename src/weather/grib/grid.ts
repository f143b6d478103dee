/**
 * Geometry of GRIB2 grids (templates 3.0, 3.1, 3.10, 3.20, 3.30, 3.40): where each value lies, and where
 * a longitude/latitude falls in the grid, on the earth shape the grid declares.
 *
 * Grid positions (i, j): j is the row (0 = first row of the file), i the position along it in the
 * file's scanning direction, both in index units. `index(i, j)` gives the value index k and handles
 * the scanning mode (i/j direction, consecutive j, alternating rows). `locate` returns fractional
 * positions for interpolation:
 *  - regular grids: bilinear between (floor i, floor j) and the next column and row;
 *  - grids covering every longitude (`wraps`): i lies in [0, width) and a position in
 *    [width - 1, width) interpolates between column width - 1 and column 0 (wrap i + 1 to 0);
 *  - reduced grids (`rows` set): rows have different lengths; `i` is the position in row floor(j)
 *    and `iNextRow` the position at the same longitude in row floor(j) + 1, each wrapping by its row's
 *    length when the rows are full circles. For all other grids iNextRow equals i.
 * Longitudes returned by `lonLat` are in degrees, in the grid's own range (0..360 for most global
 * grids); `locate` accepts any longitude.
 */
import {
  GribError,
  type Earth,
  type GaussianGrid,
  type GridDefinition,
  type LambertGrid,
  type LatLonGrid,
  type MercatorGrid,
  type PolarStereographicGrid,
  type RotatedLatLonGrid,
  type Scanning,
} from './grib2.js';

export interface GridPosition {
  i: number;
  j: number;
  /** Position along row floor(j) + 1 at the same longitude (reduced grids); equal to i otherwise. */
  iNextRow: number;
}

export interface Bounds {
  /** Degrees; west < east, east may exceed 180 when the grid crosses the antimeridian. */
  west: number;
  south: number;
  east: number;
  north: number;
}

export interface Geometry {
  readonly template: number;
  /** Points along a row (the longest row of a reduced grid) and number of rows. */
  readonly width: number;
  readonly height: number;
  readonly numberOfPoints: number;
  /** Points of each row for reduced grids, null for regular ones. */
  readonly rows: readonly number[] | null;
  /** Rows are full circles of longitude: i wraps around. */
  readonly wraps: boolean;
  readonly bounds: Bounds;
  /** Value index of the integer grid position (i, j). */
  index(i: number, j: number): number;
  /** Integer grid position of value index k. */
  position(k: number): { i: number; j: number };
  /** [longitude, latitude] in degrees of value index k. */
  lonLat(k: number): [number, number];
  /** Fractional grid position of a point, or null outside the grid. */
  locate(lon: number, lat: number): GridPosition | null;
}

const RAD = Math.PI / 180;
/** Tolerance, in index units, for points on the grid's edge. */
const EDGE = 1e-6;

export function gridGeometry(source: GridDefinition | { grid: GridDefinition; numberOfPoints: number }): Geometry {
  const grid = 'grid' in source ? source.grid : source;
  switch (grid.template) {
    case 0:
    case 40:
      return latLonGeometry(grid);
    case 1:
      return rotatedGeometry(grid);
    case 10:
      return projectedGeometry(grid, mercator(grid));
    case 20:
      return projectedGeometry(grid, polarStereographic(grid));
    case 30:
      return projectedGeometry(grid, lambert(grid));
    default:
      throw new GribError(`unsupported grid definition template 3.${(grid as { template: number }).template}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Index mapping shared by all grids

interface Layout {
  width: number;
  height: number;
  rows: number[] | null;
  rowStart: number[] | null;
  index(i: number, j: number): number;
  position(k: number): { i: number; j: number };
}

function layout(scanning: Scanning, ni: number | null, nj: number, pl: number[] | null): Layout {
  if (pl) {
    const rowStart: number[] = [];
    let total = 0;
    for (const n of pl) {
      rowStart.push(total);
      total += n;
    }
    const flip = (i: number, j: number) => (scanning.alternateRows && j % 2 === 1 ? pl[j] - 1 - i : i);
    return {
      width: Math.max(...pl),
      height: nj,
      rows: pl,
      rowStart,
      index: (i, j) => rowStart[j] + flip(i, j),
      position: (k) => {
        let lo = 0;
        let hi = pl.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (rowStart[mid] <= k) lo = mid;
          else hi = mid - 1;
        }
        return { i: flip(k - rowStart[lo], lo), j: lo };
      },
    };
  }
  const width = ni!;
  const height = nj;
  if (scanning.jConsecutive) {
    // Columns are stored one after the other; alternating scanning reverses every other column.
    const flip = (j: number, i: number) => (scanning.alternateRows && i % 2 === 1 ? height - 1 - j : j);
    return {
      width,
      height,
      rows: null,
      rowStart: null,
      index: (i, j) => i * height + flip(j, i),
      position: (k) => {
        const i = Math.floor(k / height);
        return { i, j: flip(k - i * height, i) };
      },
    };
  }
  const flip = (i: number, j: number) => (scanning.alternateRows && j % 2 === 1 ? width - 1 - i : i);
  return {
    width,
    height,
    rows: null,
    rowStart: null,
    index: (i, j) => j * width + flip(i, j),
    position: (k) => {
      const j = Math.floor(k / width);
      return { i: flip(k - j * width, j), j };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Latitude/longitude and Gaussian grids

function latLonGeometry(grid: LatLonGrid | GaussianGrid): Geometry {
  const { scanning, nj } = grid;
  const lay = layout(scanning, grid.ni, nj, grid.pl);
  const lats = grid.template === 40 ? gaussianRows(grid) : regularRows(grid);
  const rowLongitudes = (n: number) => longitudes(grid, n);
  const rowLons = lay.rows ? lay.rows.map(rowLongitudes) : null;
  const lons = rowLons ? null : rowLongitudes(lay.width);
  const lonsOf = (j: number) => (rowLons ? rowLons[j] : lons!);
  // Rows without points (reduced grids may have some near the poles) take no part in extents.
  const filled = (rowLons ?? [lons!]).map((row, j) => ({ row, lat: rowLons ? lats[j] : null })).filter(({ row }) => row.count > 0);
  const wraps = filled.every(({ row }) => row.full);
  const filledLats = rowLons ? filled.map(({ lat }) => lat!) : lats;

  const geometry: Geometry = {
    template: grid.template,
    width: lay.width,
    height: lay.height,
    numberOfPoints: lay.rows ? lay.rows.reduce((a, b) => a + b, 0) : lay.width * lay.height,
    rows: lay.rows,
    wraps,
    bounds: latLonBounds(filledLats, filled.map(({ row }) => row)),
    index: lay.index,
    position: lay.position,
    lonLat(k) {
      const { i, j } = lay.position(k);
      const row = lonsOf(j);
      return [row.first + i * row.step, lats[j]];
    },
    locate(lon, lat) {
      const j = rowPosition(lats, lat);
      if (j === null) return null;
      const j0 = Math.min(Math.floor(j), lay.height - 1);
      const i = columnPosition(lonsOf(j0), lon);
      if (i === null) return null;
      if (j0 + 1 >= lay.height || !rowLons) return { i, j, iNextRow: i };
      const iNextRow = columnPosition(lonsOf(j0 + 1), lon);
      // Between rows of different extents, the next row may not reach this longitude: stay on this row.
      return iNextRow === null ? { i, j: j0, iNextRow: i } : { i, j, iNextRow };
    },
  };
  return geometry;
}

interface RowLongitudes {
  first: number;
  /** Signed step between consecutive points of the row, in degrees. */
  step: number;
  count: number;
  /** The row is a full circle: its last point is one step short of its first plus 360. */
  full: boolean;
}

/**
 * Longitudes of a row of n points from lo1 to lo2, as ecCodes computes them: the step is the span
 * over n - 1 (spans that go through the antimeridian add 360), and a row whose step times n is 360
 * is a full circle (reduced rows of a global grid then step 360 / n).
 */
function longitudes(grid: LatLonGrid | GaussianGrid, n: number): RowLongitudes {
  const negative = grid.scanning.iNegative;
  let span = negative ? grid.lo1 - grid.lo2 : grid.lo2 - grid.lo1;
  if (span < 0) span += 360;
  if (n <= 1) return { first: grid.lo1, step: 0, count: n, full: false };
  let step = span / (n - 1);
  let full = Math.abs(step * n - 360) < 1e-6 * 360;
  if (grid.pl) {
    // Rows of a global reduced grid: lo2 is one step of the longest row short of 360.
    const longest = Math.max(...grid.pl);
    const globalSpan = Math.abs(span + 360 / longest - 360) < 360 / longest / 2;
    if (globalSpan) {
      step = 360 / n;
      full = true;
    }
  }
  return { first: grid.lo1, step: negative ? -step : step, count: n, full };
}

/** Fractional position of lon along a row, or null outside it. */
function columnPosition(row: RowLongitudes, lon: number): number | null {
  if (row.count === 0) return null;
  if (row.count === 1) return Math.abs(wrap180(lon - row.first)) < 1e-9 ? 0 : null;
  let offset = (lon - row.first) / row.step;
  const period = 360 / Math.abs(row.step);
  offset = ((offset % period) + period) % period;
  if (row.full) return offset;
  if (offset > row.count - 1 + EDGE) {
    // Just before the first point (within rounding) counts as the first point.
    return period - offset < EDGE ? 0 : null;
  }
  return Math.min(offset, row.count - 1);
}

function regularRows(grid: LatLonGrid | GaussianGrid): number[] {
  const n = grid.nj;
  const step = n > 1 ? (grid.la2 - grid.la1) / (n - 1) : 0;
  return Array.from({ length: n }, (_, j) => grid.la1 + j * step);
}

function gaussianRows(grid: GaussianGrid): number[] {
  if (grid.n <= 0 || grid.n > 8000) throw new GribError(`invalid number of Gaussian parallels ${grid.n}`);
  const all = gaussianLatitudes(grid.n);
  // The first row is the Gaussian latitude nearest la1 (la1 is rounded to the template's unit).
  let first = 0;
  for (let k = 1; k < all.length; k++) if (Math.abs(all[k] - grid.la1) < Math.abs(all[first] - grid.la1)) first = k;
  const direction = grid.scanning.jPositive ? -1 : 1;
  const rows: number[] = [];
  for (let j = 0; j < grid.nj; j++) {
    const k = first + direction * j;
    if (k < 0 || k >= all.length) throw new GribError(`Gaussian grid of ${grid.nj} rows does not fit N${grid.n} from ${grid.la1}`);
    rows.push(all[k]);
  }
  return rows;
}

/**
 * The 2N Gaussian latitudes, north to south: roots of the Legendre polynomial P_2N found by Newton
 * iteration from the usual first guesses, to 1e-14 as ecCodes does.
 */
export function gaussianLatitudes(n: number): Float64Array {
  const count = 2 * n;
  const lats = new Float64Array(count);
  for (let k = 0; k < n; k++) {
    let x = Math.cos((Math.PI * (k + 0.75)) / (count + 0.5));
    for (let iteration = 0; iteration < 100; iteration++) {
      // P_count(x) and P_count-1(x) by the three-term recurrence.
      let previous = 1;
      let current = x;
      for (let l = 2; l <= count; l++) {
        const next = ((2 * l - 1) * x * current - (l - 1) * previous) / l;
        previous = current;
        current = next;
      }
      const derivative = (count * (previous - x * current)) / (1 - x * x);
      const delta = current / derivative;
      x -= delta;
      if (Math.abs(delta) < 1e-14) break;
    }
    lats[k] = Math.asin(x) / RAD;
    lats[count - 1 - k] = -lats[k];
  }
  return lats;
}

/** Fractional row of a latitude between row latitudes (monotonic, either direction), or null outside. */
function rowPosition(lats: number[], lat: number): number | null {
  const n = lats.length;
  if (n === 1) return Math.abs(lat - lats[0]) < 1e-9 ? 0 : null;
  const ascending = lats[n - 1] > lats[0];
  const low = ascending ? lats[0] : lats[n - 1];
  const high = ascending ? lats[n - 1] : lats[0];
  const tolerance = EDGE * Math.abs(lats[1] - lats[0]);
  if (lat < low - tolerance || lat > high + tolerance) return null;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (lat >= lats[mid] === ascending) lo = mid;
    else hi = mid;
  }
  const position = lo + (lat - lats[lo]) / (lats[hi] - lats[lo]);
  // A latitude on a row (to rounding) is that row, so that reduced grids pick the row's own points.
  const nearest = Math.round(position) || 0;
  return Math.abs(position - nearest) < 1e-9 ? nearest : Math.max(0, Math.min(n - 1, position));
}

function latLonBounds(lats: number[], rows: RowLongitudes[]): Bounds {
  let west = Infinity;
  let east = -Infinity;
  for (const row of rows) {
    const last = row.first + (row.count - 1) * row.step;
    const w = row.full ? row.first : Math.min(row.first, last);
    const e = row.full ? row.first + 360 : Math.max(row.first, last);
    west = Math.min(west, w);
    east = Math.max(east, e);
  }
  return { west, south: Math.min(...lats), east, north: Math.max(...lats) };
}

function wrap180(degrees: number): number {
  return ((((degrees + 180) % 360) + 360) % 360) - 180;
}

// ---------------------------------------------------------------------------------------------
// Rotated latitude/longitude grids

/**
 * Geographic ↔ rotated coordinates of a frame whose south pole lies at (southPoleLon, southPoleLat),
 * as ecCodes turns them (its `unrotate`): rotated vectors are turned about the z axis by the pole's
 * longitude and about the y axis by its latitude plus 90°.
 */
export function rotation(southPoleLat: number, southPoleLon: number): {
  toGeographic(lon: number, lat: number): [number, number];
  toRotated(lon: number, lat: number): [number, number];
} {
  const t = -(90 + southPoleLat) * RAD;
  const o = -southPoleLon * RAD;
  const [st, ct, so, co] = [Math.sin(t), Math.cos(t), Math.sin(o), Math.cos(o)];
  const vector = (lon: number, lat: number) => [Math.cos(lon * RAD) * Math.cos(lat * RAD), Math.sin(lon * RAD) * Math.cos(lat * RAD), Math.sin(lat * RAD)];
  const angles = (x: number, y: number, z: number): [number, number] => [Math.atan2(y, x) / RAD, Math.asin(Math.max(-1, Math.min(1, z))) / RAD];
  return {
    toGeographic(lon, lat) {
      const [x, y, z] = vector(lon, lat);
      return angles(ct * co * x + so * y + st * co * z, -ct * so * x + co * y - st * so * z, -st * x + ct * z);
    },
    // The transpose: the turn is orthogonal.
    toRotated(lon, lat) {
      const [x, y, z] = vector(lon, lat);
      return angles(ct * co * x - ct * so * y - st * z, so * x + co * y, st * co * x - st * so * y + ct * z);
    },
  };
}

/** A lat/lon grid of the rotated frame, whose points and positions are turned to and from geography. */
function rotatedGeometry(grid: RotatedLatLonGrid): Geometry {
  if (grid.rotation !== 0) throw new GribError(`rotated grids with an angle of rotation (${grid.rotation}°) are not supported`);
  const frame = rotation(grid.southPoleLat, grid.southPoleLon);
  const inner = latLonGeometry({ ...grid, template: 0 });
  const at = (i: number, j: number) => {
    const [lon, lat] = inner.lonLat(inner.index(Math.round(i), Math.round(j)));
    return frame.toGeographic(lon, lat);
  };
  const geometry: Geometry = {
    ...inner,
    template: 1,
    lonLat: (k) => {
      const [lon, lat] = inner.lonLat(k);
      return frame.toGeographic(lon, lat);
    },
    locate: (lon, lat) => {
      const [rlon, rlat] = frame.toRotated(lon, lat);
      return inner.locate(rlon, rlat);
    },
  };
  return { ...geometry, bounds: projectedBounds(geometry, at) };
}

// ---------------------------------------------------------------------------------------------
// Projected grids: a projection to metres, a first point and steps Dx, Dy

interface Projection {
  forward(lon: number, lat: number): [number, number] | null;
  inverse(x: number, y: number): [number, number];
}

type ProjectedGrid = MercatorGrid | PolarStereographicGrid | LambertGrid;

function projectedGeometry(grid: ProjectedGrid, projection: Projection): Geometry {
  const { scanning, ni, nj } = grid;
  const lay = layout(scanning, ni, nj, null);
  const origin = projection.forward(grid.lo1, grid.la1);
  if (!origin) throw new GribError('the first grid point cannot be projected');
  const [x0, y0] = origin;
  const dx = scanning.iNegative ? -grid.dx : grid.dx;
  const dy = scanning.jPositive ? grid.dy : -grid.dy;
  const at = (i: number, j: number) => projection.inverse(x0 + i * dx, y0 + j * dy);

  const geometry: Geometry = {
    template: grid.template,
    width: ni,
    height: nj,
    numberOfPoints: ni * nj,
    rows: null,
    wraps: false,
    bounds: { west: 0, south: 0, east: 0, north: 0 },
    index: lay.index,
    position: lay.position,
    lonLat(k) {
      const { i, j } = lay.position(k);
      return at(i, j);
    },
    locate(lon, lat) {
      const p = projection.forward(lon, lat);
      if (!p) return null;
      const i = (p[0] - x0) / dx;
      const j = (p[1] - y0) / dy;
      if (i < -EDGE || j < -EDGE || i > ni - 1 + EDGE || j > nj - 1 + EDGE) return null;
      const ic = Math.max(0, Math.min(ni - 1, i));
      return { i: ic, j: Math.max(0, Math.min(nj - 1, j)), iNextRow: ic };
    },
  };
  return { ...geometry, bounds: projectedBounds(geometry, at) };
}

/** Bounds from the grid's edge, widened to the whole circle of longitudes when a pole is inside. */
function projectedBounds(geometry: Geometry, at: (i: number, j: number) => [number, number]): Bounds {
  const { width, height } = geometry;
  const edge: [number, number][] = [];
  for (let i = 0; i < width; i++) edge.push(at(i, 0), at(i, height - 1));
  for (let j = 0; j < height; j++) edge.push(at(0, j), at(width - 1, j));
  const centre = at((width - 1) / 2, (height - 1) / 2)[0];
  let west = Infinity;
  let east = -Infinity;
  let south = Infinity;
  let north = -Infinity;
  for (const [lon, lat] of edge) {
    const l = centre + wrap180(lon - centre);
    west = Math.min(west, l);
    east = Math.max(east, l);
    south = Math.min(south, lat);
    north = Math.max(north, lat);
  }
  // A pole inside (both, for a rotated grid of the whole sphere) takes in every longitude.
  const northPole = geometry.locate(0, 90) !== null;
  const southPole = geometry.locate(0, -90) !== null;
  if (northPole || southPole) return { west: -180, south: southPole ? -90 : south, east: 180, north: northPole ? 90 : north };
  return { west, south, east, north };
}

/** Eccentricity and semi-major axis of the grid's earth. */
function ellipsoid(earth: Earth): { a: number; e: number } {
  return { a: earth.a, e: earth.a === earth.b ? 0 : Math.sqrt(1 - (earth.b * earth.b) / (earth.a * earth.a)) };
}

/** Isometric-latitude function t of Snyder (15-9), t = tan(pi/4 - phi/2) for a sphere. */
function tsfn(phi: number, e: number): number {
  const s = e * Math.sin(phi);
  return Math.tan(Math.PI / 4 - phi / 2) / ((1 - s) / (1 + s)) ** (e / 2);
}

/** Latitude from t by Snyder's iteration (7-9). */
function phiFromT(t: number, e: number): number {
  let phi = Math.PI / 2 - 2 * Math.atan(t);
  if (e === 0) return phi;
  for (let k = 0; k < 30; k++) {
    const s = e * Math.sin(phi);
    const next = Math.PI / 2 - 2 * Math.atan(t * ((1 - s) / (1 + s)) ** (e / 2));
    if (Math.abs(next - phi) < 1e-14) return next;
    phi = next;
  }
  return phi;
}

/** Snyder's m = cos(phi) / sqrt(1 - e^2 sin^2 phi). */
function msfn(phi: number, e: number): number {
  const s = e * Math.sin(phi);
  return Math.cos(phi) / Math.sqrt(1 - s * s);
}

function mercator(grid: MercatorGrid): Projection {
  const { a, e } = ellipsoid(grid.earth);
  // Scale is true at LaD; longitudes are measured from the first point's, so none wraps.
  const k = a * msfn(grid.lad * RAD, e);
  const lon0 = grid.lo1;
  // Longitudes are taken within 180 degrees of the grid's middle meridian.
  const span = normalise360(grid.scanning.iNegative ? grid.lo1 - grid.lo2 : grid.lo2 - grid.lo1);
  const middle = (grid.scanning.iNegative ? -span : span) / 2;
  return {
    forward(lon, lat) {
      if (Math.abs(lat) >= 90) return null;
      return [k * (wrap180(lon - lon0 - middle) + middle) * RAD, -k * Math.log(tsfn(lat * RAD, e))];
    },
    inverse(x, y) {
      return [lon0 + x / k / RAD, phiFromT(Math.exp(-y / k), e) / RAD];
    },
  };
}

function polarStereographic(grid: PolarStereographicGrid): Projection {
  const { a, e } = ellipsoid(grid.earth);
  // South-pole projections are the north-pole ones of the mirrored earth (latitudes negated).
  const sign = grid.southPole ? -1 : 1;
  const lov = grid.lov;
  const ts = sign * grid.lad * RAD;
  // Snyder (21-34) with true scale at LaD, or (21-33) when that is the pole.
  const scale = Math.abs(ts - Math.PI / 2) < 1e-10
    ? (2 * a) / Math.sqrt((1 + e) ** (1 + e) * (1 - e) ** (1 - e))
    : (a * msfn(ts, e)) / tsfn(ts, e);
  return {
    // Snyder (21-30, 21-31): y grows away from the pole on the north projection, towards it on the south one.
    forward(lon, lat) {
      const phi = sign * lat * RAD;
      if (phi <= -Math.PI / 2 + 1e-12) return null;
      const rho = scale * tsfn(phi, e);
      const theta = (lon - lov) * RAD;
      return [rho * Math.sin(theta), -sign * rho * Math.cos(theta)];
    },
    inverse(x, y) {
      const rho = Math.hypot(x, y);
      const phi = phiFromT(rho / scale, e);
      const lon = rho === 0 ? lov : lov + Math.atan2(x, -sign * y) / RAD;
      return [normalise360(lon), (sign * phi) / RAD];
    },
  };
}

function lambert(grid: LambertGrid): Projection {
  const { a, e } = ellipsoid(grid.earth);
  const phi1 = grid.latin1 * RAD;
  const phi2 = grid.latin2 * RAD;
  const m1 = msfn(phi1, e);
  const t1 = tsfn(phi1, e);
  // Snyder (15-8) for a secant cone, sin(latin1) for a tangent one.
  const n = Math.abs(phi1 - phi2) < 1e-10 ? Math.sin(phi1) : Math.log(m1 / msfn(phi2, e)) / Math.log(t1 / tsfn(phi2, e));
  const aF = (a * m1) / (n * t1 ** n);
  const lov = grid.lov;
  // Coordinates with the cone's apex at the origin: x = rho sin(theta), y = -rho cos(theta).
  return {
    forward(lon, lat) {
      const phi = lat * RAD;
      if (Math.abs(phi) >= Math.PI / 2 - 1e-12 && Math.sign(phi) !== Math.sign(n)) return null;
      const rho = aF * tsfn(phi, e) ** n;
      const theta = n * wrap180(lon - lov) * RAD;
      return [rho * Math.sin(theta), -rho * Math.cos(theta)];
    },
    inverse(x, y) {
      const s = Math.sign(n);
      const rho = s * Math.hypot(x, y);
      const theta = Math.atan2(s * x, -s * y);
      const phi = phiFromT((rho / aF) ** (1 / n), e);
      return [normalise360(lov + theta / n / RAD), phi / RAD];
    },
  };
}

function normalise360(lon: number): number {
  return ((lon % 360) + 360) % 360;
}
