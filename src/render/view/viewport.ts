/**
 * What the renderer draws: a view of the 512-px tile pyramid, in which the world is 512 * 2^z
 * pixels wide at zoom z, so zoom 0 shows it whole in 512 px. Sizes are CSS pixels; `pixelRatio` 2
 * doubles the pixels of the same geographic view and never changes the zoom.
 */

import { project as projectInWorld, unproject as unprojectInWorld, type LonLat } from '../../platform/web-mercator.js';

export interface Viewport {
  center: LonLat;
  zoom: number;
  width: number;
  height: number;
  pixelRatio: 1 | 2;
}

export const TILE_SIZE = 512;
export const MIN_ZOOM = 0;
export const MAX_ZOOM = 22;

/** World pixel coordinates of a point at `zoom`, from the top-left corner of the world. */
export function project(lon: number, lat: number, zoom: number): [x: number, y: number] {
  return projectInWorld(lon, lat, TILE_SIZE * 2 ** zoom);
}

/** Inverse of `project`. */
export function unproject(x: number, y: number, zoom: number): LonLat {
  return unprojectInWorld(x, y, TILE_SIZE * 2 ** zoom);
}
