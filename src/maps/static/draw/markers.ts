/**
 * Drawing the `markers` overlays: each marker is a box (the default pin, or the group's icon image,
 * times the group's `scale`) placed so that its anchor point lies on the marker's position, in every
 * copy of the world the image shows.
 */

import type { Image, SKRSContext2D } from '@napi-rs/canvas';
import type { Anchor, MarkerGroup } from '../overlays.js';
import { copyShifts, worldPixel, type Frame } from './frame.js';
import { drawPin, PIN_HEIGHT, PIN_WIDTH } from './pin.js';

/** Where the anchor lies in the marker's box, as fractions of its width and height. */
export const ANCHOR_POINTS: Record<Anchor, [number, number]> = {
  center: [0.5, 0.5],
  top: [0.5, 0],
  bottom: [0.5, 1],
  left: [0, 0.5],
  right: [1, 0.5],
  topleft: [0, 0],
  topright: [1, 0],
  bottomleft: [0, 1],
  bottomright: [1, 1],
};

/** `icons` holds the decoded image of every icon URL the groups use. */
export function drawMarkers(ctx: SKRSContext2D, frame: Frame, groups: readonly MarkerGroup[], icons: ReadonlyMap<string, Image>): void {
  for (const group of groups) {
    const icon = group.icon === null ? null : icons.get(group.icon);
    if (group.icon !== null && !icon) throw new Error(`icon ${group.icon} was not loaded`);
    const width = (icon ? icon.width : PIN_WIDTH) * group.scale;
    const height = (icon ? icon.height : PIN_HEIGHT) * group.scale;
    const [ax, ay] = ANCHOR_POINTS[group.anchor];
    for (const marker of group.markers) {
      const [x, y] = worldPixel(frame, marker.lon, marker.lat);
      for (const shift of copyShifts(frame, x, x, Math.max(width, height))) {
        const left = x + shift - frame.left - ax * width;
        const top = y - frame.top - ay * height;
        if (icon) ctx.drawImage(icon, left, top, width, height);
        else drawPin(ctx, left, top, group.scale, marker.color);
      }
    }
  }
}
