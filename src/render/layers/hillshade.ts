/**
 * hillshade from raster-dem tiles, MapLibre's two steps done on the CPU:
 *
 * 1. Prepare (once per tile and neighbourhood): from the tile's heights, with the borders of its
 *    neighbours in the view (`dem.ts`), the slope of each pixel from its 3x3 neighbourhood
 *    (Sobel), scaled by the tile's zoom and the exaggeration MapLibre adds below zoom 15, stored as
 *    two bytes (red: east-west, green: north-south) as its 8-bit texture stores them.
 * 2. Shade (per device pixel): the prepared texture sampled bilinearly (or nearest) at the pixel's
 *    position in the tile, corrected for the latitude's Mercator stretch, then the shading of the
 *    `hillshade-method` (standard, basic, combined, igor, multidirectional) with the illumination
 *    direction and altitude, exaggeration and shadow, highlight and accent colours.
 * Tiles are placed on the pixel-aligned view, as MapLibre places raster tiles.
 */

import type { Color, ColorArray, NumberArray } from '@maplibre/maplibre-gl-style-spec';
import type { RenderContext } from '../paint/context.js';
import type { Dem } from '../tile/dem.js';
import { evaluateAt } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { clampIndex, paintDemTiles } from './dem-paint.js';
import { latitudeOfY } from '../../platform/web-mercator.js';

/** log2 of the Mercator world's width in metres, from which the prepare step gets metres per pixel. */
const LOG2_WORLD_WIDTH = 25.2562;

/**
 * MapLibre's hillshade_prepare shader: a (dim + 2)² texture of slopes, two bytes per pixel. Texel i
 * is DEM pixel i - 1 (the ring around the tile uses the border).
 */
export function prepareSlopes(dem: Dem, zoom: number): Uint8Array {
  const { dim, heights } = dem;
  const stride = dim + 4;
  const size = dim + 2;
  const out = new Uint8Array(size * size * 2);
  const factor = zoom < 2 ? 0.4 : zoom < 4.5 ? 0.35 : 0.3;
  const exaggeration = zoom < 15 ? (zoom - 15) * factor : 0;
  const scale = dim / 2 ** (exaggeration + (3 + LOG2_WORLD_WIDTH - zoom)) / 8;
  const mid = 128 / 255;
  for (let j = 0; j < size; j++) {
    // Texel j is DEM row j - 1, at heights row j + 1.
    const row = (j + 1) * stride;
    for (let i = 0; i < size; i++) {
      const c = row + i + 1;
      const a = heights[c - stride - 1]!;
      const b = heights[c - stride]!;
      const cc = heights[c - stride + 1]!;
      const d = heights[c - 1]!;
      const f = heights[c + 1]!;
      const g = heights[c + stride - 1]!;
      const h = heights[c + stride]!;
      const k = heights[c + stride + 1]!;
      const dx = cc + f + f + k - (a + d + d + g);
      const dy = g + h + h + k - (a + b + b + cc);
      const o = (j * size + i) * 2;
      out[o] = Math.round(Math.min(1, Math.max(0, dx * scale + mid)) * 255);
      out[o + 1] = Math.round(Math.min(1, Math.max(0, dy * scale + mid)) * 255);
    }
  }
  return out;
}

export type HillshadeMethod = 'standard' | 'basic' | 'combined' | 'igor' | 'multidirectional';

/** Premultiplied RGBA in 0..1. */
type Rgba = [number, number, number, number];

export interface Shading {
  method: HillshadeMethod;
  exaggeration: number;
  /** Radians, one per light (only multidirectional uses more than the first). */
  azimuths: number[];
  altitudes: number[];
  shadows: Rgba[];
  highlights: Rgba[];
  accent: Rgba;
}

/**
 * MapLibre's hillshade fragment shader for the given parameters: writes the premultiplied colour of
 * one slope (dx, dy as decoded, Mercator-corrected) into `out`. Constants are worked out once.
 */
export function shader(s: Shading): (dx: number, dy: number, out: Rgba) => void {
  const PI = Math.PI;
  const azimuth = s.azimuths[0]! + PI;
  const cosAz = Math.cos(azimuth);
  const sinAz = Math.sin(azimuth);
  const sinAlt = Math.sin(s.altitudes[0]!);
  const cosAlt = Math.cos(s.altitudes[0]!);
  const shadow = s.shadows[0]!;
  const highlight = s.highlights[0]!;
  const ex = s.exaggeration * 2;
  switch (s.method) {
    case 'basic':
      return (dx, dy, out) => {
        const x = dx * ex;
        const y = dy * ex;
        const cang = (sinAlt - (y * cosAz * cosAlt - x * sinAz * cosAlt)) / Math.sqrt(1 + x * x + y * y);
        const shadeValue = clamp(cang, 0, 1);
        if (shadeValue > 0.5) scaleInto(out, highlight, 2 * shadeValue - 1);
        else scaleInto(out, shadow, 1 - 2 * shadeValue);
      };
    case 'combined':
      return (dx, dy, out) => {
        const x = dx * ex;
        const y = dy * ex;
        const cang = clamp(Math.acos((sinAlt - (y * cosAz * cosAlt - x * sinAz * cosAlt)) / Math.sqrt(1 + x * x + y * y)), 0, PI / 2);
        const slope = Math.atan(Math.sqrt(x * x + y * y));
        const shadeValue = (cang * slope * 4) / PI / PI;
        const lit = ((PI / 2 - cang) * slope * 4) / PI / PI;
        for (let i = 0; i < 4; i++) out[i] = shadow[i]! * shadeValue + highlight[i]! * lit;
      };
    case 'igor':
      return (dx, dy, out) => {
        const x = dx * ex;
        const y = dy * ex;
        const slopeStrength = (Math.atan(Math.sqrt(x * x + y * y)) * 2) / PI;
        const aspectStrength = 1 - Math.abs(mod((aspectOf(x, y) + azimuth) / PI + 0.5, 2) - 1);
        const shadowStrength = slopeStrength * aspectStrength;
        const highlightStrength = slopeStrength * (1 - aspectStrength);
        for (let i = 0; i < 4; i++) out[i] = shadow[i]! * shadowStrength + highlight[i]! * highlightStrength;
      };
    case 'multidirectional': {
      const n = s.azimuths.length;
      const lights = s.azimuths.map((az, k) => ({
        cosAlt: Math.cos(s.altitudes[k]!),
        sinAlt: Math.sin(s.altitudes[k]!),
        cosAz: -Math.cos(az),
        sinAz: -Math.sin(az),
        shadow: s.shadows[k]!,
        highlight: s.highlights[k]!,
      }));
      return (dx, dy, out) => {
        const x = dx * ex;
        const y = dy * ex;
        const norm = Math.sqrt(1 + x * x + y * y);
        out.fill(0);
        for (const light of lights) {
          const cang = (light.sinAlt - (y * light.cosAz * light.cosAlt - x * light.sinAz * light.cosAlt)) / norm;
          const shadeValue = clamp(cang, 0, 1);
          const color = shadeValue > 0.5 ? light.highlight : light.shadow;
          const weight = (shadeValue > 0.5 ? 2 * shadeValue - 1 : 1 - 2 * shadeValue) / n;
          for (let i = 0; i < 4; i++) out[i] = out[i]! + color[i]! * weight;
        }
      };
    }
    default: {
      const intensity = s.exaggeration;
      const base = 1.875 - intensity * 1.75;
      const maxValue = 0.5 * PI;
      const denominator = base ** maxValue - 1;
      const strength = clamp(intensity * 2, 0, 1);
      const accent = s.accent;
      return (dx, dy, out) => {
        const t = 0.625 * Math.sqrt(dx * dx + dy * dy);
        let sinSlope: number;
        let cosSlope: number;
        if (intensity === 0.5) {
          // sin and cos of atan(t), without the trigonometry.
          const r = 1 / Math.sqrt(1 + t * t);
          sinSlope = t * r;
          cosSlope = r;
        } else {
          const scaled = ((base ** Math.atan(t) - 1) / denominator) * maxValue;
          sinSlope = Math.sin(scaled);
          cosSlope = Math.cos(scaled);
        }
        const shadeValue = Math.abs(mod((aspectOf(dx, dy) + azimuth) / PI + 0.5, 2) - 1);
        const shadeScale = sinSlope * strength;
        const shadeAlpha = (shadow[3] + (highlight[3] - shadow[3]) * shadeValue) * shadeScale;
        const accentScale = (1 - cosSlope) * strength * (1 - shadeAlpha);
        for (let i = 0; i < 4; i++) out[i] = accent[i]! * accentScale + (shadow[i]! + (highlight[i]! - shadow[i]!) * shadeValue) * shadeScale;
      };
    }
  }
}

function aspectOf(dx: number, dy: number): number {
  return dx !== 0 ? Math.atan2(dy, -dx) : (Math.PI / 2) * (dy > 0 ? 1 : -1);
}

function mod(x: number, y: number): number {
  return x - y * Math.floor(x / y);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function scaleInto(out: Rgba, color: Rgba, k: number): void {
  for (let i = 0; i < 4; i++) out[i] = color[i]! * k;
}

function rgba(color: Color): Rgba {
  return [color.r, color.g, color.b, color.a];
}

/** The hillshade layer's shading parameters at the view's zoom. */
export function shadingOf(rc: RenderContext, layer: RenderLayer): Shading {
  const value = <T>(name: string): T => evaluateAt<T>(layer.paint[name]!, rc.zoom, rc.style.globalState);
  const directions = value<NumberArray>('hillshade-illumination-direction').values;
  const altitudes = value<NumberArray>('hillshade-illumination-altitude').values;
  const highlights = value<ColorArray>('hillshade-highlight-color').values;
  const shadows = value<ColorArray>('hillshade-shadow-color').values;
  const n = Math.max(directions.length, altitudes.length, highlights.length, shadows.length);
  const extend = <T>(values: readonly T[]): T[] => Array.from({ length: n }, (_, i) => values[Math.min(i, values.length - 1)]!);
  const radians = (degrees: number): number => (degrees * Math.PI) / 180;
  return {
    method: value<HillshadeMethod>('hillshade-method'),
    exaggeration: value<number>('hillshade-exaggeration'),
    // The anchor (map or viewport) only matters with a bearing, and our views have none.
    azimuths: extend(directions).map(radians),
    altitudes: extend(altitudes).map(radians),
    shadows: extend(shadows).map(rgba),
    highlights: extend(highlights).map(rgba),
    accent: rgba(value<Color>('hillshade-accent-color')),
  };
}

/** Prepared slopes, kept with the (backfilled) DEM they came from, by zoom. */
const slopesCache = new WeakMap<Dem, Map<number, Uint8Array>>();

function slopesOf(dem: Dem, zoom: number): Uint8Array {
  let byZoom = slopesCache.get(dem);
  if (!byZoom) {
    byZoom = new Map();
    slopesCache.set(dem, byZoom);
  }
  let slopes = byZoom.get(zoom);
  if (!slopes) {
    slopes = prepareSlopes(dem, zoom);
    byZoom.set(zoom, slopes);
  }
  return slopes;
}

export function drawHillshade(rc: RenderContext, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded || loaded.raster.length === 0) return;
  const encoding = loaded.source.encoding ?? 'mapbox';
  const shading = shadingOf(rc, layer);
  // MapLibre skips the layer's prepare pass, and so draws nothing, without exaggeration.
  if (shading.exaggeration === 0) return;
  const shade = shader(shading);
  const nearest = evaluateAt<string>(layer.paint['resampling']!, rc.zoom, rc.style.globalState) === 'nearest';
  const color: Rgba = [0, 0, 0, 0];

  paintDemTiles(rc, loaded, encoding, ({ dem, cover, rect, visible: { x0, x1, y0, y1 } }, data, width) => {
    const slopes = slopesOf(dem, cover.overscaledZ);
    const { dim } = dem;
    const size = dim + 2;
    const n = 2 ** cover.z;
    const latTop = latitudeOfY(cover.y / n);
    const latBottom = latitudeOfY((cover.y + 1) / n);
    const spanX = rect.x1 - rect.x0;
    const spanY = rect.y1 - rect.y0;
    for (let py = y0; py < y1; py++) {
      const vy = (py + 0.5 - rect.y0) / spanY;
      const lat = (latTop - latBottom) * (1 - vy) + latBottom;
      const correction = 8 / Math.cos((lat * Math.PI) / 180);
      const ty = vy * dim + 0.5;
      for (let px = x0; px < x1; px++) {
        const vx = (px + 0.5 - rect.x0) / spanX;
        const tx = vx * dim + 0.5;
        let r: number;
        let g: number;
        if (nearest) {
          const i = clampIndex(Math.floor(tx + 0.5), size);
          const j = clampIndex(Math.floor(ty + 0.5), size);
          const o = (j * size + i) * 2;
          r = slopes[o]!;
          g = slopes[o + 1]!;
        } else {
          const fx = Math.floor(tx);
          const fy = Math.floor(ty);
          const ax = tx - fx;
          const ay = ty - fy;
          const i0 = clampIndex(fx, size);
          const i1 = clampIndex(fx + 1, size);
          const j0 = clampIndex(fy, size);
          const j1 = clampIndex(fy + 1, size);
          const o00 = (j0 * size + i0) * 2;
          const o10 = (j0 * size + i1) * 2;
          const o01 = (j1 * size + i0) * 2;
          const o11 = (j1 * size + i1) * 2;
          r = (slopes[o00]! * (1 - ax) + slopes[o10]! * ax) * (1 - ay) + (slopes[o01]! * (1 - ax) + slopes[o11]! * ax) * ay;
          g = (slopes[o00 + 1]! * (1 - ax) + slopes[o10 + 1]! * ax) * (1 - ay) + (slopes[o01 + 1]! * (1 - ax) + slopes[o11 + 1]! * ax) * ay;
        }
        const dx = (r / 255 - 128 / 255) * correction;
        const dy = (g / 255 - 128 / 255) * correction;
        shade(dx, dy, color);
        const alpha = Math.min(1, color[3]);
        if (!(alpha > 0)) continue;
        const o = (py * width + px) * 4;
        data[o] = (color[0] / alpha) * 255;
        data[o + 1] = (color[1] / alpha) * 255;
        data[o + 2] = (color[2] / alpha) * 255;
        data[o + 3] = alpha * 255;
      }
    }
  });
}
