/**
 * color-relief: each pixel of a raster-dem tile coloured by its height, as MapLibre's color-relief
 * shader does it. The ramp is the stops of `color-relief-color` (an `interpolate` over
 * `["elevation"]`; anything else gives a transparent ramp), its heights stored in the DEM's own
 * encoding (so rounded as MapLibre rounds them) and its colours as premultiplied bytes; a pixel's
 * height is interpolated bilinearly (or nearest) from the DEM with its neighbours' borders, placed
 * between the two stops around it, and its colour mixed linearly between theirs (the first and last
 * colour beyond the ends), times `color-relief-opacity`. Tiles are placed on the pixel-aligned view.
 */

import { Color, Interpolate, type StylePropertyExpression } from '@maplibre/maplibre-gl-style-spec';
import type { RenderContext } from '../paint/context.js';
import { quantizeHeight, type DemEncoding } from '../tile/dem.js';
import { evaluateAt } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { clampIndex, paintDemTiles } from './dem-paint.js';

export interface ColorRamp {
  /** Heights as the DEM encoding stores them, ascending. */
  heights: number[];
  /** Premultiplied RGBA bytes, four per stop. */
  colors: Uint8ClampedArray;
}

/** MapLibre's ColorReliefStyleLayer._createColorRamp. */
export function colorRamp(expression: StylePropertyExpression, encoding: DemEncoding): ColorRamp {
  let heights: number[] = [];
  let colors: Color[] = [];
  const styleExpression = (expression as { _styleExpression?: { expression: unknown } })._styleExpression?.expression;
  if (expression.kind === 'constant' || expression.kind === 'source') {
    if (styleExpression instanceof Interpolate) {
      heights = [...styleExpression.labels];
      colors = heights.map((elevation) => styleExpression.evaluate({ globals: { elevation } } as never) as Color);
    }
  }
  if (heights.length < 1) {
    heights = [0];
    colors = [Color.transparent];
  }
  if (heights.length < 2) {
    heights.push(heights[0]! + 1);
    colors.push(colors[0]!);
  }
  const bytes = new Uint8ClampedArray(colors.length * 4);
  colors.forEach((color, i) => bytes.set([color.r * 255, color.g * 255, color.b * 255, color.a * 255].map(Math.round), i * 4));
  return { heights: heights.map((height) => quantizeHeight(height, encoding)), colors: bytes };
}

export function drawColorRelief(rc: RenderContext, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded || loaded.raster.length === 0) return;
  const opacity = evaluateAt<number>(layer.paint['color-relief-opacity']!, rc.zoom, rc.style.globalState);
  if (!(opacity > 0)) return;
  const encoding = loaded.source.encoding ?? 'mapbox';
  const nearest = evaluateAt<string>(layer.paint['resampling']!, rc.zoom, rc.style.globalState) === 'nearest';
  const ramp = colorRamp(layer.paint['color-relief-color']!, encoding);
  const { heights: stops, colors } = ramp;
  const last = stops.length - 1;

  paintDemTiles(rc, loaded, encoding, ({ dem, rect, visible: { x0, x1, y0, y1 } }, data, width) => {
    const { dim, heights } = dem;
    const stride = dim + 4;
    for (let py = y0; py < y1; py++) {
      // Padded DEM coordinates of the pixel centre: DEM pixel i is centred at tile position (i + 0.5) / dim.
      const ty = ((py + 0.5 - rect.y0) / (rect.y1 - rect.y0)) * dim + 1.5;
      for (let px = x0; px < x1; px++) {
        const tx = ((px + 0.5 - rect.x0) / (rect.x1 - rect.x0)) * dim + 1.5;
        let elevation: number;
        if (nearest) {
          elevation = heights[clampIndex(Math.floor(ty + 0.5), stride) * stride + clampIndex(Math.floor(tx + 0.5), stride)]!;
        } else {
          const fx = Math.floor(tx);
          const fy = Math.floor(ty);
          const ax = tx - fx;
          const ay = ty - fy;
          const i0 = clampIndex(fx, stride);
          const i1 = clampIndex(fx + 1, stride);
          const r0 = clampIndex(fy, stride) * stride;
          const r1 = clampIndex(fy + 1, stride) * stride;
          elevation = (heights[r0 + i0]! * (1 - ax) + heights[r0 + i1]! * ax) * (1 - ay) + (heights[r1 + i0]! * (1 - ax) + heights[r1 + i1]! * ax) * ay;
        }
        // The shader's binary search for the stops around the height.
        let l = 0;
        let r = last;
        while (r - l > 1) {
          const m = (l + r) >> 1;
          if (elevation < stops[m]!) r = m;
          else l = m;
        }
        const t = Math.min(1, Math.max(0, (elevation - stops[l]!) / (stops[r]! - stops[l]!)));
        const a = (colors[l * 4 + 3]! * (1 - t) + colors[r * 4 + 3]! * t) * opacity;
        if (!(a > 0)) continue;
        const o = (py * width + px) * 4;
        for (let c = 0; c < 3; c++) data[o + c] = ((colors[l * 4 + c]! * (1 - t) + colors[r * 4 + c]! * t) * opacity * 255) / a;
        data[o + 3] = a;
      }
    }
  });
}
