/**
 * background: `background-color` times `background-opacity` over the world. MapLibre draws it on
 * the tiles covering the view, so above and below the Mercator square (a view taller than the world
 * at low zoom) stays transparent; east and west it repeats with the world copies.
 */

import type { Color } from '@maplibre/maplibre-gl-style-spec';
import type { RenderContext } from '../context.js';
import { cssColor, evaluateAt } from '../properties.js';
import type { RenderLayer } from '../style.js';

export function drawBackground(rc: RenderContext, layer: RenderLayer): void {
  const { globalState } = rc.style;
  const color = evaluateAt<Color>(layer.paint['background-color']!, rc.zoom, globalState);
  const opacity = evaluateAt<number>(layer.paint['background-opacity']!, rc.zoom, globalState);
  const fill = cssColor(color, opacity);
  if (!fill) return;
  const { view } = rc;
  const top = Math.max(0, Math.round(-view.top * view.pixelRatio));
  const bottom = Math.min(view.height, Math.round((view.worldSize - view.top) * view.pixelRatio));
  if (bottom <= top) return;
  rc.ctx.fillStyle = fill;
  rc.ctx.fillRect(0, top, view.width, bottom - top);
}
