/**
 * Where a map's data is and where it opens: its bounds, and a centre with a zoom. Derived once, when
 * the map loads (registry.ts), and read by every document that tells a client about the map
 * (style.json, vector and raster TileJSON, WMTS capabilities, the `/maps` list), so that they agree.
 *
 * - Bounds: the definition's `bounds` (what `maps import` and `maps add` record: the data's extent);
 *   else the box around the sources that cover less than the whole world (a street map's extract,
 *   not the `world` map drawn under it, nor a GeoJSON source, which claims the world); else the world.
 * - Centre: the definition's `center` (`maps add` records the archive's); else where a map over
 *   the bounds opens (render/view/fit.ts `fittedCenter`, which the tools that publish maps use
 *   too): the middle of the bounds in Web Mercator, at the deepest whole zoom that shows all of
 *   them in a 1024x768 viewport, within the map's zoom range.
 *
 * The style's own root `center` and `zoom` are not read: the street styles carry their authors'
 * (the world at zoom 1), which say nothing of the data a map was made over.
 */

import { DEFAULT_SOURCE_BOUNDS } from '../platform/web-mercator.js';
import { fittedCenter } from '../render/view/fit.js';
import type { Bounds } from './static/fit.js';

/** [longitude, latitude, zoom]: TileJSON's `center`, the zoom in the 512-px pyramid of styles and static images. */
export type Center = [lon: number, lat: number, zoom: number];

export interface MapExtent {
  bounds: Bounds;
  center: Center;
}

const inside = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** How far inside the antimeridian a source's bounds may stop and still go round the world (degrees). */
const WORLD_TOLERANCE = 1e-4;
/**
 * The latitude a source reaching the world's top and bottom reaches: archives round the edge of the
 * Mercator square (85.0511…) to 85.05 or 85, or give the poles.
 */
const WORLD_EDGE_LATITUDE = 85;

function coversWorld([west, south, east, north]: readonly [number, number, number, number]): boolean {
  return west <= -180 + WORLD_TOLERANCE && east >= 180 - WORLD_TOLERANCE && south <= -WORLD_EDGE_LATITUDE && north >= WORLD_EDGE_LATITUDE;
}

/** The box around the sources' bounds that do not cover the world; the world when all do, or there are none. */
export function boundsOfSources(sources: Iterable<readonly [number, number, number, number]>): Bounds {
  const regional = [...sources].filter((bounds) => !coversWorld(bounds));
  if (regional.length === 0) return [...DEFAULT_SOURCE_BOUNDS];
  return [
    Math.min(...regional.map((b) => b[0])),
    Math.min(...regional.map((b) => b[1])),
    Math.max(...regional.map((b) => b[2])),
    Math.max(...regional.map((b) => b[3])),
  ];
}

export function mapExtent(
  definition: { bounds?: readonly number[]; center?: readonly number[] },
  sources: Iterable<readonly [number, number, number, number]>,
  minzoom: number,
  maxzoom: number,
): MapExtent {
  const bounds = definition.bounds ? ([...definition.bounds] as Bounds) : boundsOfSources(sources);
  if (!definition.center) return { bounds, center: fittedCenter(bounds, minzoom, maxzoom) };
  const [lon, lat, zoom] = definition.center as Center;
  return { bounds, center: [lon, lat, inside(zoom, minzoom, maxzoom)] };
}

/**
 * A centre for a part of the map (a source, a tile size's pyramid) that covers `bounds` at
 * `minzoom`..`maxzoom`: the map's, moved into them, as TileJSON wants its `center`.
 */
export function centerWithin([lon, lat, zoom]: Center, [west, south, east, north]: readonly [number, number, number, number], minzoom: number, maxzoom: number): Center {
  return [west <= east ? inside(lon, west, east) : lon, inside(lat, south, north), inside(zoom, minzoom, maxzoom)];
}
