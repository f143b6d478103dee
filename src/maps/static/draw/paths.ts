/**
 * Drawing the `path` overlays: closed or filled paths are filled first, then every path is stroked
 * with round joins and caps, in CSS pixels (the canvas carries the pixel ratio). A path marked
 * `shortest` crosses the antimeridian when that is the short way; each path is drawn in every copy
 * of the world the image shows.
 */

import type { SKRSContext2D } from '@napi-rs/canvas';
import { formatColor } from '../color.js';
import type { Path } from '../overlays.js';
import { shortestWay } from '../fit.js';
import { copyShifts, worldPixel, type Frame } from './frame.js';

export function drawPaths(ctx: SKRSContext2D, frame: Frame, paths: readonly Path[]): void {
  for (const path of paths) {
    const points = (path.shortest ? shortestWay(path.points) : path.points).map(([lon, lat]) => worldPixel(frame, lon, lat));
    if (points.length === 0) continue;
    const xs = points.map(([x]) => x);
    const margin = path.width;
    for (const shift of copyShifts(frame, Math.min(...xs), Math.max(...xs), margin)) {
      ctx.beginPath();
      points.forEach(([x, y], i) => {
        const [px, py] = [x + shift - frame.left, y - frame.top];
        if (i === 0) ctx.moveTo(px, py);
        else ctx.lineTo(px, py);
      });
      if (path.fill) {
        ctx.fillStyle = formatColor(path.fill);
        ctx.fill('nonzero');
      }
      ctx.lineWidth = path.width;
      ctx.lineJoin = 'round';
      ctx.lineCap = 'round';
      ctx.strokeStyle = formatColor(path.stroke);
      ctx.stroke();
    }
  }
}
