/**
 * Evaluating style properties at the zooms MapLibre uses. A tile's features are filtered and laid
 * out at the tile's zoom (its bucket's zoom: the overscaled zoom of the tile, an integer), paint is
 * evaluated at the view's fractional zoom:
 *  - constant and zoom-only ("camera") paint: at the view's zoom;
 *  - feature-only ("source") paint: once per feature;
 *  - zoom-and-feature ("composite") paint: per feature at the tile's zoom z and at z + 1, then
 *    interpolated by the expression's own curve at the view's zoom, clamped to [z, z + 1], which is
 *    what MapLibre's shaders do with the two values they are given;
 *  - layout (line-cap, line-join, the limits, sort keys) and filters: at the tile's zoom.
 */

import { Color, type Feature, type ICanonicalTileID, type StylePropertyExpression } from '@maplibre/maplibre-gl-style-spec';

/** The zooms and global state one tile of one layer is evaluated with. */
export interface EvaluationZooms {
  /** The view's fractional zoom. */
  readonly viewZoom: number;
  /** The bucket zoom of the tile: its overscaled z. */
  readonly tileZoom: number;
  readonly globalState: Readonly<Record<string, unknown>>;
}

/** True when a property has the same value for every feature (it may still depend on the zoom). */
export function isFeatureConstant(expression: StylePropertyExpression): boolean {
  return expression.kind === 'constant' || expression.kind === 'camera';
}

/** A property of no feature, at `zoom`: background, raster and hillshade paint, the light, camera paint. */
export function evaluateAt<T>(expression: StylePropertyExpression, zoom: number, globalState: Readonly<Record<string, unknown>>): T {
  return expression.evaluate({ zoom, globalState }) as T;
}

/** A paint property for one feature (or for all, when it is feature-constant), as MapLibre draws it. */
export function paintValue<T>(expression: StylePropertyExpression, zooms: EvaluationZooms, feature?: Feature, canonical?: ICanonicalTileID): T {
  switch (expression.kind) {
    case 'constant':
    case 'camera':
      return expression.evaluate({ zoom: zooms.viewZoom, globalState: zooms.globalState }) as T;
    case 'source':
      return expression.evaluate({ zoom: zooms.tileZoom, globalState: zooms.globalState }, feature, {}, canonical) as T;
    case 'composite': {
      const z = zooms.tileZoom;
      const t = Math.min(1, Math.max(0, expression.interpolationFactor(zooms.viewZoom, z, z + 1)));
      const lower = expression.evaluate({ zoom: z, globalState: zooms.globalState }, feature, {}, canonical);
      if (t === 0) return lower as T;
      const upper = expression.evaluate({ zoom: z + 1, globalState: zooms.globalState }, feature, {}, canonical);
      return interpolate(lower, upper, t) as T;
    }
  }
}

/** A layout property or sort key for one feature, at the tile's zoom. */
export function layoutValue<T>(expression: StylePropertyExpression, zooms: EvaluationZooms, feature?: Feature, canonical?: ICanonicalTileID): T {
  return expression.evaluate({ zoom: zooms.tileZoom, globalState: zooms.globalState }, feature, {}, canonical) as T;
}

/** Linear interpolation of the values a shader would mix: numbers, premultiplied colours, number arrays. */
function interpolate(a: unknown, b: unknown, t: number): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + (b - a) * t;
  if (a instanceof Color && b instanceof Color) {
    return new Color(a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t, a.a + (b.a - a.a) * t);
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.map((value, i) => interpolate(value, b[i], t));
  return t < 1 ? a : b;
}

/**
 * A CSS colour for Skia from a style colour (premultiplied channels) times an opacity, or null when
 * nothing would show. Channels are un-premultiplied, as the canvas expects straight alpha.
 */
export function cssColor(color: Color | undefined, opacity = 1): string | null {
  if (!color) return null;
  const alpha = color.a * opacity;
  if (!(alpha > 0)) return null;
  const scale = 255 / color.a;
  return `rgba(${channel(color.r * scale)},${channel(color.g * scale)},${channel(color.b * scale)},${Math.min(1, alpha)})`;
}

function channel(value: number): number {
  return Math.max(0, Math.min(255, Math.round(value)));
}
