/**
 * background: `background-color` times `background-opacity` over the world. MapLibre draws it on
 * the tiles covering the view, so above and below the Mercator square (a view taller than the world
 * at low zoom) stays transparent; east and west it repeats with the world copies.
 */

import type { Color } from '@maplibre/maplibre-gl-style-spec';
import type { RenderContext } from '../paint/context.js';
import { patternGridZoom, patternImage, WorldPattern } from '../paint/pattern.js';
import { cssColor, evaluateAt } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';

export function drawBackground(rc: RenderContext, layer: RenderLayer): void {
  const { globalState } = rc.style;
  const color = evaluateAt<Color>(layer.paint['background-color']!, rc.zoom, globalState);
  const opacity = evaluateAt<number>(layer.paint['background-opacity']!, rc.zoom, globalState);
  const { view } = rc;
  const top = Math.max(0, Math.round(-view.top * view.pixelRatio));
  const bottom = Math.min(view.height, Math.round((view.worldSize - view.top) * view.pixelRatio));
  if (bottom <= top) return;
  const pattern = evaluateAt<unknown>(layer.paint['background-pattern']!, patternGridZoom(rc.zoom), globalState);
  if (pattern !== undefined && String(pattern) !== '') {
    drawPattern(rc, pattern, opacity, top, bottom);
    return;
  }
  const fill = cssColor(color, opacity);
  if (!fill) return;
  rc.ctx.fillStyle = fill;
  rc.ctx.fillRect(0, top, view.width, bottom - top);
}

function drawPattern(rc: RenderContext, value: unknown, opacity: number, top: number, bottom: number): void {
  const image = patternImage(rc, value);
  if (!image || !(opacity > 0)) return;
  const { ctx } = rc;
  ctx.save();
  ctx.beginPath();
  ctx.rect(0, top, rc.view.width, bottom - top);
  ctx.clip();
  ctx.globalAlpha = Math.min(1, opacity);
  new WorldPattern(rc, image).paint(ctx);
  ctx.restore();
}
