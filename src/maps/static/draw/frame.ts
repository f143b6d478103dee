/**
 * The output image as a window on the world: where a longitude/latitude lands, in CSS pixels from
 * the image's top-left corner, and which copies of the world the image shows. Overlays are drawn
 * through it, on a canvas already scaled by the pixel ratio.
 */

import { viewTransform } from '../../../render/view/projection.js';
import { project, type Viewport } from '../../../render/view/viewport.js';

export interface Frame {
  zoom: number;
  /** World pixel of the image's left and top edges at the view's zoom. */
  left: number;
  top: number;
  /** Width of one world in CSS pixels at the view's zoom. */
  worldSize: number;
  /** The image in CSS pixels. */
  width: number;
  height: number;
}

/** The renderer's view of the image (the same origin, unaligned), in CSS pixels. */
export function frameOf(viewport: Viewport): Frame {
  const { zoom, left, top, worldSize } = viewTransform(viewport);
  return { zoom, left, top, worldSize, width: viewport.width, height: viewport.height };
}

/** World pixels (x may lie beyond one world, for unwrapped longitudes) of a point. */
export function worldPixel(frame: Frame, lon: number, lat: number): [x: number, y: number] {
  return project(lon, lat, frame.zoom);
}

/**
 * Horizontal shifts, in whole worlds of CSS pixels, at which something spanning world pixels
 * [minX, maxX] (plus `margin` on each side) is seen in the image: one per visible copy.
 */
export function copyShifts(frame: Frame, minX: number, maxX: number, margin = 0): number[] {
  const first = Math.ceil((frame.left - margin - maxX) / frame.worldSize);
  const last = Math.floor((frame.left + frame.width + margin - minX) / frame.worldSize);
  const shifts: number[] = [];
  for (let k = first; k <= last; k++) shifts.push(k * frame.worldSize);
  return shifts;
}
