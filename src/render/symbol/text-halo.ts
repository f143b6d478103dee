/**
 * A label's halo as MapLibre's symbol_sdf shader draws it: each glyph's quad (its distance field
 * with the atlas' 1-px padding, glyphs/sdf.ts) sampled bilinearly at every device pixel it covers,
 * a ring of text-halo-color from text-halo-width outside the glyph's edge to just inside it,
 * widened by text-halo-blur, the quads of a label laid over one another. Like MapLibre's, the halo
 * reaches no further than the field's border (about 8 px at 24 px); the text itself is drawn over
 * it from the glyph outlines (draw.ts).
 *
 * The halo drawn before, Skia stroking the label's outlines with a round-joined pen, took 50-61 ms
 * of the first images of the town's ten bench views (in process, three profiles each way); these
 * halos take 35-45 ms there, most of it Skia making a canvas for each and taking its pixels (about
 * 35 ns a pixel), not the sampling.
 */

import type { Color } from '@maplibre/maplibre-gl-style-spec';
import { keptGlyphSdf, SDF_BUFFER } from '../glyphs/sdf.js';
import { pixelCanvas, type PixelRaster } from '../paint/pixel-canvas.js';
import type { DrawnGlyph } from './placement.js';
import { bilinear, EDGE, SDF_PX, smoothstep } from './sdf-icon.js';

/** The atlas' padding around each field, which a glyph's quad covers (MapLibre's glyph_atlas.ts). */
const ATLAS_PADDING = 1;

export interface TextHaloStyle {
  readonly color: Color;
  /** text-halo-width and text-halo-blur, CSS px. */
  readonly width: number;
  readonly blur: number;
  readonly opacity: number;
}

/**
 * The halo of `glyphs` (positions relative to the label's origin, CSS px), as a canvas whose pixel
 * (i, j) has its centre at (x + i, y + j) device px from the origin; null when it covers nothing.
 */
export function textHalo(glyphs: readonly DrawnGlyph[], pixelRatio: number, style: TextHaloStyle): PixelRaster | null {
  const quads = glyphs.flatMap((glyph) => {
    const field = keptGlyphSdf(glyph.glyph);
    return field ? [{ glyph, field, ...quadBounds(glyph, field.width, field.height, pixelRatio) }] : [];
  });
  if (quads.length === 0) return null;
  const x0 = Math.floor(Math.min(...quads.map((q) => q.minX)));
  const y0 = Math.floor(Math.min(...quads.map((q) => q.minY)));
  const width = Math.ceil(Math.max(...quads.map((q) => q.maxX))) - x0 + 1;
  const height = Math.ceil(Math.max(...quads.map((q) => q.maxY))) - y0 + 1;
  if (!(width > 0 && height > 0)) return null;

  const strength = style.opacity * style.color.a;
  const coverage = new Float32Array(width * height);
  let any = false;
  for (const { glyph, field: sdf, minX, minY, maxX, maxY } of quads) {
    const { metrics, ascender } = glyph.glyph;
    // The shader's edges for this glyph's size (fontScale = size / 24 = the glyph's scale).
    const fontScale = glyph.scale;
    const gamma = ((style.blur * 1.19) / SDF_PX + 0.105 / pixelRatio) / fontScale;
    const inner = EDGE + gamma;
    const outer = (6 - style.width / fontScale) / SDF_PX;
    const cos = Math.cos(glyph.angle);
    const sin = Math.sin(glyph.angle);
    // Field texel coordinates of the pen origin, and per unit of the glyph's own frame.
    const left = metrics.left - SDF_BUFFER;
    const top = -(metrics.top + ascender) - SDF_BUFFER;
    const unit = 1 / (glyph.scale * pixelRatio);
    const { data: field, width: fw, height: fh } = sdf;
    for (let py = Math.ceil(minY) - y0; py <= Math.floor(maxY) - y0; py++) {
      const firstX = Math.ceil(minX) - x0;
      // The first pixel's centre in the field's texels, less half a texel (bilinear sampling
      // weighs the four texels around that point); each pixel to the right adds (du, dv).
      const dx = x0 + firstX - glyph.x * pixelRatio;
      const dy = y0 + py - glyph.y * pixelRatio;
      let u = (dx * cos + dy * sin) * unit - left - 0.5;
      let v = (-dx * sin + dy * cos) * unit - top - 0.5;
      const du = cos * unit;
      const dv = -sin * unit;
      for (let px = firstX, i = py * width + firstX; px <= Math.floor(maxX) - x0; px++, i++, u += du, v += dv) {
        // Outside the quad (the field and the atlas' padding around it), MapLibre draws nothing.
        if (u < -ATLAS_PADDING - 0.5 || v < -ATLAS_PADDING - 0.5 || u >= fw + ATLAS_PADDING - 0.5 || v >= fh + ATLAS_PADDING - 0.5) continue;
        const dist = bilinear(field, fw, fh, u, v);
        if (dist <= outer - gamma) continue;
        const ring = Math.min(smoothstep(outer - gamma, outer + gamma, dist), 1 - smoothstep(inner - gamma, inner + gamma, dist));
        if (!(ring > 0)) continue;
        // Quads blend over one another as MapLibre's do: source over, in the one colour.
        coverage[i] = coverage[i]! + ring * strength * (1 - coverage[i]!);
        any = true;
      }
    }
  }
  if (!any) return null;

  // Color is premultiplied; ImageData wants it straight.
  const { r, g, b, a } = style.color;
  const red = (r / a) * 255;
  const green = (g / a) * 255;
  const blue = (b / a) * 255;
  const canvas = pixelCanvas(width, height, (data, stride) => {
    for (let row = 0; row < height; row++) {
      for (let i = row * width, o = row * stride * 4; i < (row + 1) * width; i++, o += 4) {
        const alpha = coverage[i]!;
        if (!(alpha > 0)) continue;
        data[o] = red;
        data[o + 1] = green;
        data[o + 2] = blue;
        data[o + 3] = alpha * 255;
      }
    }
  });
  return { canvas, x: x0, y: y0 };
}

/** The device-px box (from the label's origin) of a glyph's quad: its field and the padding, turned and scaled. */
function quadBounds(glyph: DrawnGlyph, fieldWidth: number, fieldHeight: number, pixelRatio: number) {
  const { metrics, ascender } = glyph.glyph;
  const u0 = metrics.left - SDF_BUFFER - ATLAS_PADDING;
  const v0 = -(metrics.top + ascender) - SDF_BUFFER - ATLAS_PADDING;
  const u1 = u0 + fieldWidth + 2 * ATLAS_PADDING;
  const v1 = v0 + fieldHeight + 2 * ATLAS_PADDING;
  const s = glyph.scale * pixelRatio;
  const cos = Math.cos(glyph.angle) * s;
  const sin = Math.sin(glyph.angle) * s;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [u, v] of [[u0, v0], [u1, v0], [u0, v1], [u1, v1]] as const) {
    const x = glyph.x * pixelRatio + u * cos - v * sin;
    const y = glyph.y * pixelRatio + u * sin + v * cos;
    minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
  }
  return { minX, minY, maxX, maxY };
}
