/**
 * The view of a static image: a centre and zoom checked against the pyramid, or the view that fits
 * given bounds or the image's overlays (auto), in the renderer's 512-px pyramid.
 */

import { latitudeOfY, longitudeOfX, MAX_LATITUDE, wrapLongitude as wrap, xOfLongitude as mercatorX, yOfLatitude as mercatorY, type LonLat } from '../../platform/web-mercator.js';
import { fitBox, viewOfBounds } from '../../render/view/fit.js';
import { SINGLE_POINT_ZOOM } from './fit-defaults.js';
import { MAX_ZOOM, MIN_ZOOM, type Viewport } from '../../render/view/viewport.js';
import { lonLatOutside, outOfBounds, valueOutside } from '../errors.js';
import { ApiError } from '../../platform/errors.js';

/** [west, south, east, north] in degrees; west > east crosses the antimeridian. */
export type Bounds = [west: number, south: number, east: number, north: number];

/** The features of an auto-fitted image: each path (drawn the short way if `shortest`), each marker. */
export interface Features {
  paths: readonly { points: readonly LonLat[]; shortest: boolean }[];
  markers: readonly LonLat[];
}

/** Checks a viewport given by the client: a centre on the Mercator square and a zoom of the pyramid. */
export function checkViewport(center: LonLat, zoom: number): void {
  const outside = lonLatOutside(center, MAX_LATITUDE);
  if (outside !== null) throw outOfBounds(outside);
  if (!(zoom >= MIN_ZOOM && zoom <= MAX_ZOOM)) throw outOfBounds(valueOutside('zoom', zoom, MIN_ZOOM, MAX_ZOOM));
}

/**
 * The viewport that shows `bounds` as large as fits within the image minus `padding` × width (or
 * height) on each side (render/view/fit.ts), once they are checked: coordinates on the globe, south
 * at most north.
 */
export function fitBounds(bounds: Bounds, width: number, height: number, padding: number, pixelRatio: 1 | 2 = 1): Viewport {
  const [west, south, east, north] = bounds;
  const outside = lonLatOutside([west, south], 90) ?? lonLatOutside([east, north], 90);
  if (outside !== null) throw outOfBounds(`bounds ${outside}`);
  if (!(south <= north)) throw outOfBounds(`bounds south ${south} is above north ${north}`);
  return viewOfBounds(bounds, width, height, padding, pixelRatio);
}

/**
 * The viewport that shows every feature, as `fitBounds` would their bounding box. Paths marked
 * `shortest` run the short way across the antimeridian; with `shortest` here or on any path, the box
 * is the smallest span of longitude that holds all features, which may cross the antimeridian.
 */
export function autoViewport(features: Features, width: number, height: number, padding: number, shortest: boolean, pixelRatio: 1 | 2 = 1): Viewport {
  // Longitude spans [start, end] in unwrapped degrees, one per path and one per marker.
  const spans: [number, number][] = [];
  let south = Infinity;
  let north = -Infinity;
  for (const path of features.paths) {
    let [start, end] = [Infinity, -Infinity];
    for (const [lon, lat] of path.shortest ? shortestWay(path.points) : path.points) {
      [start, end] = [Math.min(start, lon), Math.max(end, lon)];
      [south, north] = [Math.min(south, lat), Math.max(north, lat)];
    }
    if (start <= end) spans.push([start, end]);
  }
  for (const [lon, lat] of features.markers) {
    spans.push([lon, lon]);
    [south, north] = [Math.min(south, lat), Math.max(north, lat)];
  }
  if (spans.length === 0) throw new ApiError('Nothing to fit: give a path or markers');
  const crossing = shortest || features.paths.some((path) => path.shortest);
  const [west, east] = crossing ? smallestArc(spans) : spans.reduce(([w, e], [start, end]) => [Math.min(w, start), Math.max(e, end)], [Infinity, -Infinity]);
  const [y0, y1] = [mercatorY(north), mercatorY(south)];
  const x0 = mercatorX(west);
  const x1 = x0 + (east - west) / 360;
  if (x0 === x1 && y0 === y1) {
    const center = lonLatOf(x0, y0);
    return { center: [wrap(center[0]), center[1]], zoom: SINGLE_POINT_ZOOM, width, height, pixelRatio };
  }
  return fitBox(x0, x1, y0, y1, width, height, padding, pixelRatio);
}

/**
 * The points with their longitudes shifted by whole turns so that each step to the next point is
 * the short way round (crossing the antimeridian when that is shorter).
 */
export function shortestWay(points: readonly LonLat[]): LonLat[] {
  let previous = points[0]?.[0] ?? 0;
  return points.map(([lon, lat]): LonLat => {
    previous += wrap(lon - previous);
    return [previous, lat];
  });
}

/**
 * The smallest [west, east] (east - west < 360, or exactly the world) that covers every span on the
 * circle of longitudes: the complement of the largest gap between them.
 */
function smallestArc(spans: [number, number][]): [number, number] {
  const normalized = spans.map(([start, end]): [number, number] => {
    const west = wrap(start);
    return [west, west + (end - start)];
  });
  if (normalized.some(([start, end]) => end - start >= 360)) return [-180, 180];
  normalized.sort((a, b) => a[0] - b[0]);
  const first = normalized[0]!;
  let reach = first[1];
  // The gap that wraps around from the furthest reach back to the first start.
  let best = { gap: -Infinity, west: first[0] };
  for (const [start, end] of normalized.slice(1)) {
    if (start - reach > best.gap) best = { gap: start - reach, west: start };
    reach = Math.max(reach, end);
  }
  if (first[0] + 360 - reach > best.gap) best = { gap: first[0] + 360 - reach, west: first[0] };
  if (best.gap <= 0) return [-180, 180];
  return [best.west, best.west + 360 - best.gap];
}

/** The point at world fractions x, y (0..1 from the top-left corner). */
function lonLatOf(x: number, y: number): LonLat {
  return [longitudeOfX(x), latitudeOfY(y)];
}
