/**
 * circle: a disc at every vertex of every feature (points, and also the vertices of lines and
 * polygons, as MapLibre does), for the points inside the tile's square only (so that a point in two
 * tiles' buffers is drawn once), not clipped to the tile.
 *
 * MapLibre's fragment: with R = radius + stroke width and b = max(1 px / R, blur) (relative to R),
 *   alpha = smoothstep(0, b, 1 - d/R),   colour = mix(fill, stroke, smoothstep(-b, 0, d/R - radius/R))
 * Without blur that is an antialiased disc of radius R - 0.5 px (the 1-px ramp ends at R), with the
 * stroke colour from radius - 0.5 px outwards: drawn as discs. With blur the ramp is wider and
 * Hermite-shaped: drawn with a radial gradient sampling that formula (so are circles under a pixel).
 *
 * `circle-sort-key` orders circles across all tiles. Consecutive opaque circles of equal paint are
 * one path; translucent ones are drawn one by one, so overlaps blend as in MapLibre.
 */

import { Path2D, type SKRSContext2D } from '@napi-rs/canvas';
import type { Color, ICanonicalTileID } from '@maplibre/maplibre-gl-style-spec';
import { layerTranslate, type RenderContext } from '../paint/context.js';
import { cssColor, isFeatureConstant, layoutValue, paintValue, type EvaluationZooms } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { layerTiles, type SourceLayerView } from '../tile/vector.js';

interface CircleStyle {
  /** Device px. */
  radius: number;
  strokeWidth: number;
  blur: number;
  color: Color;
  opacity: number;
  strokeColor: Color;
  strokeOpacity: number;
}

interface Circle {
  x: number;
  y: number;
  style: CircleStyle;
  key: string;
  sortKey: number;
}

export function drawCircle(rc: RenderContext, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded) return;
  const { paint } = layer;
  const { globalState } = rc.style;
  const [dx, dy] = layerTranslate(rc, paint['circle-translate']!);
  const sortExpression = layer.layout['circle-sort-key']!;
  const sorted = !isFeatureConstant(sortExpression);
  const constantStyle = [
    'circle-radius', 'circle-color', 'circle-blur', 'circle-opacity', 'circle-stroke-width', 'circle-stroke-color', 'circle-stroke-opacity',
  ].every((name) => isFeatureConstant(paint[name]!));

  const circles: Circle[] = [];
  for (const { tile, source, zooms, selected } of layerTiles(loaded.vector, layer, globalState, () => true)) {
    let constant: { style: CircleStyle | null; key: string } | undefined;
    for (const index of selected) {
      let style: CircleStyle | null;
      let key: string;
      if (constant) {
        ({ style, key } = constant);
      } else {
        const feature = constantStyle ? undefined : source.evaluationFeature(index);
        style = evaluateStyle(layer, zooms, rc.pixelRatio, feature, tile.canonical);
        key = style ? JSON.stringify(style) : '';
        if (constantStyle) constant = { style, key };
      }
      if (!style) continue;
      const sortKey = sorted ? Number(layoutValue(sortExpression, zooms, source.evaluationFeature(index), tile.canonical)) : 0;
      addCircles(circles, source, index, style, key, sortKey, dx, dy);
    }
  }
  // Stable: equal keys keep the tiles' order.
  if (sorted) circles.sort((a, b) => a.sortKey - b.sortKey);
  drawCircles(rc.ctx, circles);
}

function evaluateStyle(
  layer: RenderLayer,
  zooms: EvaluationZooms,
  pixelRatio: number,
  feature: Parameters<typeof paintValue>[2],
  canonical: ICanonicalTileID,
): CircleStyle | null {
  const value = <T>(name: string): T => paintValue<T>(layer.paint[name]!, zooms, feature, canonical);
  const style: CircleStyle = {
    radius: Math.max(0, value<number>('circle-radius')) * pixelRatio,
    strokeWidth: Math.max(0, value<number>('circle-stroke-width')) * pixelRatio,
    blur: Math.max(0, value<number>('circle-blur')),
    color: value<Color>('circle-color'),
    opacity: value<number>('circle-opacity'),
    strokeColor: value<Color>('circle-stroke-color'),
    strokeOpacity: value<number>('circle-stroke-opacity'),
  };
  if (style.radius + style.strokeWidth <= 0) return null;
  const fillShows = style.color.a * style.opacity > 0;
  const strokeShows = style.strokeWidth >= 0.01 * pixelRatio && style.strokeColor.a * style.strokeOpacity > 0;
  return fillShows || strokeShows ? style : null;
}

function addCircles(circles: Circle[], source: SourceLayerView, index: number, style: CircleStyle, key: string, sortKey: number, dx: number, dy: number): void {
  const { scale, originX, originY, extent } = source;
  for (const ring of source.features[index]!.geometry) {
    for (let i = 0; i < ring.length; i += 2) {
      const [x, y] = [ring[i]!, ring[i + 1]!];
      if (x < 0 || x >= extent || y < 0 || y >= extent) continue;
      circles.push({ x: originX + x * scale + dx, y: originY + y * scale + dy, style, key, sortKey });
    }
  }
}

function drawCircles(ctx: SKRSContext2D, circles: readonly Circle[]): void {
  let i = 0;
  while (i < circles.length) {
    const first = circles[i]!;
    const { style } = first;
    let end = i + 1;
    while (end < circles.length && circles[end]!.key === first.key) end++;
    const outer = style.radius + style.strokeWidth;
    // MapLibre's antialiasing ramp, relative to the outer radius: at least one device pixel.
    const b = Math.max(1 / outer, style.blur);
    const hasStroke = style.strokeWidth >= 0.01 && style.strokeColor.a * style.strokeOpacity > 0;
    const fill = cssColor(style.color, style.opacity);
    const stroke = hasStroke ? cssColor(style.strokeColor, style.strokeOpacity) : null;
    // A blurred circle, or one too small for a disc with its ramp, gets the shader's profile exactly.
    if (b * outer > 1.001 || outer < 1) {
      for (let k = i; k < end; k++) drawBlurred(ctx, circles[k]!, b);
    } else {
      const opaque = (!fill || style.color.a * style.opacity >= 1) && (!stroke || style.strokeColor.a * style.strokeOpacity >= 1);
      const groups = opaque ? [[i, end]] : Array.from({ length: end - i }, (_, k) => [i + k, i + k + 1]);
      const innerRadius = Math.max(0, style.radius - 0.5);
      const outerRadius = Math.max(0, outer - 0.5);
      for (const [from, to] of groups) {
        const discs = (radius: number, hole?: number): Path2D => {
          const path = new Path2D();
          for (let k = from!; k < to!; k++) {
            const c = circles[k]!;
            path.moveTo(c.x + radius, c.y);
            path.arc(c.x, c.y, radius, 0, Math.PI * 2);
            if (hole !== undefined && hole > 0) {
              path.moveTo(c.x + hole, c.y);
              path.arc(c.x, c.y, hole, 0, Math.PI * 2, true);
            }
          }
          return path;
        };
        if (stroke) {
          // An opaque fill covers the stroke's inner part exactly as MapLibre's mix does; a
          // translucent one must not show the stroke through it.
          const fillOpaque = fill !== null && style.color.a * style.opacity >= 1;
          ctx.fillStyle = stroke;
          ctx.fill(discs(outerRadius, fillOpaque ? undefined : innerRadius), 'nonzero');
        }
        const fillRadius = stroke ? innerRadius : outerRadius;
        if (fill && fillRadius > 0) {
          ctx.fillStyle = fill;
          ctx.fill(discs(fillRadius));
        }
      }
    }
    i = end;
  }
}

/** A blurred circle: MapLibre's fragment colour sampled into a radial gradient. */
function drawBlurred(ctx: SKRSContext2D, circle: Circle, b: number): void {
  const { style, x, y } = circle;
  const outer = style.radius + style.strokeWidth;
  const gradient = ctx.createRadialGradient(x, y, 0, x, y, outer);
  const hasStroke = style.strokeWidth >= 0.01;
  const inner = style.radius / outer;
  const samples = 24;
  for (let s = 0; s <= samples; s++) {
    // Denser near the edge, where the ramp is.
    const t = 1 - (1 - s / samples) ** 2;
    const opacityT = smoothstep(0, b, 1 - t);
    const colorT = hasStroke ? smoothstep(-b, 0, t - inner) : 0;
    // Premultiplied mix of the two colours, then the ramp on its alpha only, so that the gradient
    // interpolates towards the same colour made transparent, not towards transparent black.
    const r = lerp(style.color.r * style.opacity, style.strokeColor.r * style.strokeOpacity, colorT);
    const g = lerp(style.color.g * style.opacity, style.strokeColor.g * style.strokeOpacity, colorT);
    const bl = lerp(style.color.b * style.opacity, style.strokeColor.b * style.strokeOpacity, colorT);
    const a = lerp(style.color.a * style.opacity, style.strokeColor.a * style.strokeOpacity, colorT);
    gradient.addColorStop(t, premultipliedCss(r, g, bl, a, opacityT));
  }
  ctx.fillStyle = gradient;
  ctx.beginPath();
  ctx.arc(x, y, outer, 0, Math.PI * 2);
  ctx.fill();
}

function smoothstep(edge0: number, edge1: number, x: number): number {
  const t = Math.min(1, Math.max(0, (x - edge0) / (edge1 - edge0)));
  return t * t * (3 - 2 * t);
}

function lerp(a: number, b: number, t: number): number {
  return a + (b - a) * t;
}

function premultipliedCss(r: number, g: number, b: number, a: number, coverage: number): string {
  if (!(a > 0)) return 'rgba(0,0,0,0)';
  const c = (v: number): number => Math.max(0, Math.min(255, Math.round((v / a) * 255)));
  return `rgba(${c(r)},${c(g)},${c(b)},${Math.min(1, a * coverage)})`;
}
