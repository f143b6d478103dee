/**
 * SDF icons as MapLibre's symbol_sdf shader draws them: the image's alpha is a distance field
 * (192/255 on the shape's edge, 1/8 per pixel of distance), sampled bilinearly at every device
 * pixel the icon covers; the fill is icon-color where the field passes the edge, smoothed over
 * EDGE_GAMMA / icon-size, and the halo a ring of icon-halo-color from icon-halo-width outside the
 * edge to just inside it, widened by icon-halo-blur, under the fill. The result is rendered into
 * a device-pixel-aligned canvas the size of the icon's bounds, to be drawn without resampling.
 */

import type { Canvas } from '@napi-rs/canvas';
import type { Color } from '@maplibre/maplibre-gl-style-spec';
import { pixelCanvas, type PixelRaster } from '../paint/pixel-canvas.js';
import type { IconQuad } from './icon-quads.js';

/** Field units per pixel of distance at the field's own size (1/8 of the byte range). */
export const SDF_PX = 8;
/** The field's value on the shape's edge: 192/256. */
export const EDGE = 0.75;

export interface SdfIconStyle {
  readonly color: Color;
  readonly haloColor: Color;
  readonly haloWidth: number;
  readonly haloBlur: number;
  readonly opacity: number;
  /** icon-size. */
  readonly size: number;
}

const alphaCache = new WeakMap<Canvas, Uint8ClampedArray>();

/** The image's alpha channel, read once per image. */
function alphaOf(image: Canvas): Uint8ClampedArray {
  let alpha = alphaCache.get(image);
  if (!alpha) {
    const rgba = image.getContext('2d').getImageData(0, 0, image.width, image.height).data;
    alpha = new Uint8ClampedArray(image.width * image.height);
    for (let i = 0; i < alpha.length; i++) alpha[i] = rgba[i * 4 + 3]!;
    alphaCache.set(image, alpha);
  }
  return alpha;
}

export function smoothstep(edge0: number, edge1: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - edge0) / (edge1 - edge0)));
  return t * t * (3 - 2 * t);
}

/**
 * The field (0..1) at (x, y) texels from its first texel's centre (image coordinates less half a
 * texel), bilinear, zero beyond the image (the atlas' padding).
 */
export function bilinear(field: Uint8ClampedArray, width: number, height: number, x: number, y: number): number {
  const x0 = Math.floor(x);
  const y0 = Math.floor(y);
  const tx = x - x0;
  const ty = y - y0;
  const left = x0 >= 0 && x0 < width;
  const right = x0 + 1 >= 0 && x0 + 1 < width;
  let top = 0;
  let bottom = 0;
  if (y0 >= 0 && y0 < height) {
    const row = y0 * width;
    top = (left ? field[row + x0]! * (1 - tx) : 0) + (right ? field[row + x0 + 1]! * tx : 0);
  }
  if (y0 + 1 >= 0 && y0 + 1 < height) {
    const row = (y0 + 1) * width;
    bottom = (left ? field[row + x0]! * (1 - tx) : 0) + (right ? field[row + x0 + 1]! * tx : 0);
  }
  return (top * (1 - ty) + bottom * ty) / 255;
}

/**
 * The icon rendered for an anchor at (anchorX, anchorY) CSS px turned by `angle`, as a canvas to
 * draw at device pixel (x, y); null when it covers nothing.
 */
export function renderSdfIcon(
  image: Canvas, quads: readonly IconQuad[], anchorX: number, anchorY: number, angle: number, pixelRatio: number, style: SdfIconStyle,
): PixelRaster | null {
  const cos = Math.cos(angle);
  const sin = Math.sin(angle);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const q of quads) {
    for (const [u, v] of [[q.x1, q.y1], [q.x2, q.y1], [q.x1, q.y2], [q.x2, q.y2]] as const) {
      const x = (anchorX + u * cos - v * sin) * pixelRatio;
      const y = (anchorY + u * sin + v * cos) * pixelRatio;
      minX = Math.min(minX, x); minY = Math.min(minY, y); maxX = Math.max(maxX, x); maxY = Math.max(maxY, y);
    }
  }
  const x0 = Math.floor(minX);
  const y0 = Math.floor(minY);
  const width = Math.ceil(maxX) - x0;
  const height = Math.ceil(maxY) - y0;
  if (!(width > 0 && height > 0)) return null;

  const alpha = alphaOf(image);
  const { size, color, haloColor, opacity } = style;
  const edgeGamma = 0.105 / pixelRatio;
  const gamma = edgeGamma / size;
  const halo = style.haloWidth > 0;
  const gammaHalo = ((style.haloBlur * 1.19) / SDF_PX + edgeGamma) / size;
  const haloInner = EDGE + gammaHalo;
  const haloEdge = (6 - style.haloWidth / size) / SDF_PX;

  const canvas = pixelCanvas(width, height, (data, stride) => {
    for (let py = 0; py < height; py++) {
      for (let px = 0; px < width; px++) {
        // The pixel's centre in the icon's own frame, CSS px from the anchor.
        const dx = (x0 + px + 0.5) / pixelRatio - anchorX;
        const dy = (y0 + py + 0.5) / pixelRatio - anchorY;
        const u = dx * cos + dy * sin;
        const v = -dx * sin + dy * cos;
        const quad = quads.find((q) => u >= q.x1 && u < q.x2 && v >= q.y1 && v < q.y2);
        if (!quad) continue;
        const dist = bilinear(alpha, image.width, image.height, quad.sx + ((u - quad.x1) / (quad.x2 - quad.x1)) * quad.sw - 0.5, quad.sy + ((v - quad.y1) / (quad.y2 - quad.y1)) * quad.sh - 0.5);
        const fill = smoothstep(EDGE - gamma, EDGE + gamma, dist) * opacity;
        let r = color.r * fill, g = color.g * fill, b = color.b * fill, a = color.a * fill;
        if (halo) {
          const ring = Math.min(smoothstep(haloEdge - gammaHalo, haloEdge + gammaHalo, dist), 1 - smoothstep(haloInner - gammaHalo, haloInner + gammaHalo, dist)) * opacity;
          const under = 1 - a;
          r += haloColor.r * ring * under; g += haloColor.g * ring * under; b += haloColor.b * ring * under; a += haloColor.a * ring * under;
        }
        if (!(a > 0)) continue;
        const i = (py * stride + px) * 4;
        data[i] = (r / a) * 255;
        data[i + 1] = (g / a) * 255;
        data[i + 2] = (b / a) * 255;
        data[i + 3] = a * 255;
      }
    }
  });
  return { canvas, x: x0, y: y0 };
}
