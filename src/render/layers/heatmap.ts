/**
 * heatmap, MapLibre's two passes done on the CPU:
 *
 * 1. Density: every point inside its tile's square (every vertex of lines and polygons too, as for
 *    circles) adds a Gaussian kernel, weight × intensity × e^(-4.5 (d / radius)²) / √(2π), into a
 *    buffer a quarter of the output's size (MapLibre's half-float framebuffer), sampled at that
 *    buffer's pixel centres, out to where the kernel falls below 1/4080 (MapLibre's quad size).
 * 2. Colour: each output pixel samples the density bilinearly and looks it up in `heatmap-color`
 *    rendered into 256 premultiplied stops over densities 0..1 (clamped beyond), interpolated
 *    linearly, times `heatmap-opacity`.
 */

import type { Color } from '@maplibre/maplibre-gl-style-spec';
import type { RenderContext } from '../paint/context.js';
import { evaluateAt, isFeatureConstant, paintValue } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { layerTiles } from '../tile/vector.js';

const GAUSS_COEF = 0.3989422804014327;
/** The smallest density MapLibre's kernel quad reaches: 1/255/16. */
const ZERO = 1 / 255 / 16;
const RAMP_SIZE = 256;

/** `heatmap-color` at densities i / 255: premultiplied RGBA bytes, as MapLibre's ramp texture. */
export function heatmapRamp(rc: RenderContext, layer: RenderLayer): Uint8ClampedArray {
  const expression = layer.paint['heatmap-color']!;
  const ramp = new Uint8ClampedArray(RAMP_SIZE * 4);
  for (let i = 0; i < RAMP_SIZE; i++) {
    const color = expression.evaluate({ zoom: rc.zoom, heatmapDensity: i / (RAMP_SIZE - 1), globalState: rc.style.globalState }) as Color | undefined;
    if (!color) continue;
    ramp.set([color.r, color.g, color.b, color.a].map((v) => Math.round(v * 255)), i * 4);
  }
  return ramp;
}

export function drawHeatmap(rc: RenderContext, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded) return;
  const { globalState } = rc.style;
  const opacity = evaluateAt<number>(layer.paint['heatmap-opacity']!, rc.zoom, globalState);
  if (!(opacity > 0)) return;
  const intensity = evaluateAt<number>(layer.paint['heatmap-intensity']!, rc.zoom, globalState);
  const { width, height } = rc.view;
  const qw = Math.trunc(width / 4);
  const qh = Math.trunc(height / 4);
  if (qw < 1 || qh < 1) return;
  const sx = qw / width;
  const sy = qh / height;
  const density = new Float32Array(qw * qh);
  const weightExpression = layer.paint['heatmap-weight']!;
  const radiusExpression = layer.paint['heatmap-radius']!;
  const constant = isFeatureConstant(weightExpression) && isFeatureConstant(radiusExpression);

  for (const { tile, source, zooms, selected } of layerTiles(loaded.vector, layer, globalState, () => true)) {
    const { scale, originX, originY, extent } = source;
    for (const index of selected) {
      const feature = constant ? undefined : source.evaluationFeature(index);
      const peak = paintValue<number>(weightExpression, zooms, feature, tile.canonical) * intensity * GAUSS_COEF;
      if (!(peak > ZERO)) continue;
      // The kernel's reach in radii, and the radius in quarter-buffer pixels.
      const reach = Math.sqrt(-2 * Math.log(ZERO / peak)) / 3;
      const radius = paintValue<number>(radiusExpression, zooms, feature, tile.canonical) * rc.pixelRatio;
      if (!(radius > 0)) continue;
      const rx = radius * sx;
      const ry = radius * sy;
      for (const ring of source.features[index]!.geometry) {
        for (let p = 0; p < ring.length; p += 2) {
          const [x, y] = [ring[p]!, ring[p + 1]!];
          if (x < 0 || x >= extent || y < 0 || y >= extent) continue;
          const cx = (originX + x * scale) * sx;
          const cy = (originY + y * scale) * sy;
          const i0 = Math.max(0, Math.ceil(cx - reach * rx - 0.5));
          const i1 = Math.min(qw - 1, Math.floor(cx + reach * rx - 0.5));
          const j0 = Math.max(0, Math.ceil(cy - reach * ry - 0.5));
          const j1 = Math.min(qh - 1, Math.floor(cy + reach * ry - 0.5));
          for (let j = j0; j <= j1; j++) {
            const dy = (j + 0.5 - cy) / ry;
            const row = j * qw;
            for (let i = i0; i <= i1; i++) {
              const dx = (i + 0.5 - cx) / rx;
              density[row + i] += peak * Math.exp(-4.5 * (dx * dx + dy * dy));
            }
          }
        }
      }
    }
  }

  const ramp = heatmapRamp(rc, layer);
  const canvas = rc.scratch();
  const layerCtx = canvas.getContext('2d');
  const image = layerCtx.createImageData(width, height);
  const data = image.data;
  for (let py = 0; py < height; py++) {
    const v = ((py + 0.5) / height) * qh - 0.5;
    const fy = Math.floor(v);
    const ay = v - fy;
    const r0 = Math.min(qh - 1, Math.max(0, fy)) * qw;
    const r1 = Math.min(qh - 1, Math.max(0, fy + 1)) * qw;
    for (let px = 0; px < width; px++) {
      const u = ((px + 0.5) / width) * qw - 0.5;
      const fx = Math.floor(u);
      const ax = u - fx;
      const c0 = Math.min(qw - 1, Math.max(0, fx));
      const c1 = Math.min(qw - 1, Math.max(0, fx + 1));
      const t = (density[r0 + c0]! * (1 - ax) + density[r0 + c1]! * ax) * (1 - ay) + (density[r1 + c0]! * (1 - ax) + density[r1 + c1]! * ax) * ay;
      // The ramp texture sampled linearly at t, clamped to its first and last stop.
      const s = Math.min(RAMP_SIZE - 1, Math.max(0, t * RAMP_SIZE - 0.5));
      const k0 = Math.floor(s);
      const k1 = Math.min(RAMP_SIZE - 1, k0 + 1);
      const w = s - k0;
      const alpha = (ramp[k0 * 4 + 3]! * (1 - w) + ramp[k1 * 4 + 3]! * w) * opacity;
      if (!(alpha > 0)) continue;
      const o = (py * width + px) * 4;
      for (let c = 0; c < 3; c++) data[o + c] = ((ramp[k0 * 4 + c]! * (1 - w) + ramp[k1 * 4 + c]! * w) * opacity * 255) / alpha;
      data[o + 3] = alpha;
    }
  }
  layerCtx.putImageData(image, 0, 0);
  rc.ctx.drawImage(canvas, 0, 0);
  rc.release(canvas);
}
