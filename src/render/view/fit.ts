/**
 * Views that show a box of the world: the viewport that fits given bounds in an image, and where a
 * map opens over its bounds. Pure math on the 512-px pyramid, shared by the maps area (static images,
 * a map's extent) and the tools that publish maps, which record where a map opens and may not
 * import the maps area.
 */

import { latitudeOfY, longitudeOfX, MAX_LATITUDE, wrapLongitude, xOfLongitude, yOfLatitude } from '../../platform/web-mercator.js';
import { MAX_ZOOM, MIN_ZOOM, TILE_SIZE, type Viewport } from './viewport.js';

/** The viewport a map's opening zoom fits its bounds into: a desktop browser's map. */
export const OPENING_VIEWPORT = { width: 1024, height: 768 } as const;

const inside = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/**
 * Fits the box [x0, x1] × [y0, y1] in world fractions (x1 may pass 1 across the antimeridian) within
 * the image minus `padding` × width (or height) on each side, centred on its middle in Web Mercator;
 * a box with no extent gets MAX_ZOOM.
 */
export function fitBox(x0: number, x1: number, y0: number, y1: number, width: number, height: number, padding: number, pixelRatio: 1 | 2): Viewport {
  const usableWidth = width * (1 - 2 * padding);
  const usableHeight = height * (1 - 2 * padding);
  const zoomX = Math.log2(usableWidth / ((x1 - x0) * TILE_SIZE));
  const zoomY = Math.log2(usableHeight / ((y1 - y0) * TILE_SIZE));
  const zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.min(zoomX, zoomY)));
  return { center: [wrapLongitude(longitudeOfX((x0 + x1) / 2)), latitudeOfY((y0 + y1) / 2)], zoom, width, height, pixelRatio };
}

/**
 * The viewport that shows [west, south, east, north] (west > east crosses the antimeridian; south
 * at most north) as large as fits, as `fitBox`. Latitudes beyond the Mercator square are clamped to it.
 */
export function viewOfBounds(bounds: readonly [number, number, number, number], width: number, height: number, padding: number, pixelRatio: 1 | 2 = 1): Viewport {
  const [west, south, east, north] = bounds;
  const x0 = xOfLongitude(west);
  const x1 = xOfLongitude(west > east ? east + 360 : east);
  return fitBox(x0, x1, yOfLatitude(north), yOfLatitude(south), width, height, padding, pixelRatio);
}

/**
 * Where a map over `bounds` opens: their middle in Web Mercator, at the deepest whole zoom that shows
 * them whole in the opening viewport (whole, since TileJSON clients and WMTS take whole zooms),
 * within minzoom..maxzoom. [longitude, latitude, zoom], as TileJSON's `center`.
 */
export function fittedCenter(bounds: readonly number[], minzoom: number, maxzoom: number): [lon: number, lat: number, zoom: number] {
  // An archive's header may claim more than the Mercator square (or the globe): fitted within them.
  const [west, south, east, north] = bounds.map((value, i) => inside(value, i % 2 === 0 ? -180 : -MAX_LATITUDE, i % 2 === 0 ? 180 : MAX_LATITUDE)) as [number, number, number, number];
  const view = viewOfBounds([west, Math.min(south, north), east, Math.max(south, north)], OPENING_VIEWPORT.width, OPENING_VIEWPORT.height, 0);
  return [view.center[0], view.center[1], inside(Math.floor(view.zoom), minzoom, maxzoom)];
}
