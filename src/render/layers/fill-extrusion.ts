/**
 * fill-extrusion, drawn flat as seen from straight above: only the roofs, each polygon in its roof
 * colour as MapLibre's fill-extrusion vertex shader lights a face whose normal points up:
 *   directional = clamp(light position z, 0, 1)            (position: [r, azimuth, polar] → z = r cos polar)
 *   directional = mix(1 - intensity, max(1 - luminance(color) + intensity, 1), directional)
 *   rgb = clamp((color.rgb + 0.03) × directional × light color, mix(0, 0.3, 1 - light color), 1)
 * opaque, then the whole layer composited with `fill-extrusion-opacity` (MapLibre's two passes draw
 * only the nearest surface of each pixel). Taller roofs cover lower ones (its depth test): features
 * are drawn by ascending height. Walls are not drawn, and roofs are not enlarged by perspective.
 */

import { Path2D, type SKRSContext2D } from '@napi-rs/canvas';
import type { Color } from '@maplibre/maplibre-gl-style-spec';
import { clipTo, drawWithLayerOpacity, layerTranslate, type RenderContext } from '../paint/context.js';
import { evaluateAt, isFeatureConstant, paintValue } from '../style/properties.js';
import type { CompiledStyle, RenderLayer } from '../style/style.js';
import { layerTiles } from '../tile/vector.js';

export interface Light {
  /** Light position in cartesian coordinates, as MapLibre's sphericalToCartesian gives it. */
  position: [number, number, number];
  /** Premultiplied rgb. */
  color: [number, number, number];
  intensity: number;
}

export function lightAt(style: CompiledStyle, zoom: number): Light {
  const { light, globalState } = style;
  const [r, azimuthal, polar] = evaluateAt<[number, number, number]>(light.position, zoom, globalState);
  const a = ((azimuthal + 90) * Math.PI) / 180;
  const p = (polar * Math.PI) / 180;
  const color = evaluateAt<Color>(light.color, zoom, globalState);
  return {
    position: [r * Math.cos(a) * Math.sin(p), r * Math.sin(a) * Math.sin(p), r * Math.cos(p)],
    color: [color.r, color.g, color.b],
    intensity: evaluateAt<number>(light.intensity, zoom, globalState),
  };
}

/** The colour MapLibre gives a roof (upward normal) of `color` (premultiplied) under `light`, as 0..1 rgb. */
export function roofColor(color: Color, light: Light): [number, number, number] {
  const luminance = color.r * 0.2126 + color.g * 0.7152 + color.b * 0.0722;
  const along = Math.min(1, Math.max(0, light.position[2]));
  const low = 1 - light.intensity;
  const high = Math.max(1 - luminance + light.intensity, 1);
  const directional = low + (high - low) * along;
  const channel = (value: number, lightChannel: number): number =>
    Math.min(1, Math.max(0.3 * (1 - lightChannel), (value + 0.03) * directional * lightChannel));
  return [channel(color.r, light.color[0]), channel(color.g, light.color[1]), channel(color.b, light.color[2])];
}

export function drawFillExtrusion(rc: RenderContext, layer: RenderLayer): void {
  const opacity = evaluateAt<number>(layer.paint['fill-extrusion-opacity']!, rc.zoom, rc.style.globalState);
  if (!(opacity > 0)) return;
  drawWithLayerOpacity(rc, opacity, (ctx) => drawRoofs(rc, ctx, layer));
}

function drawRoofs(rc: RenderContext, ctx: SKRSContext2D, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded) return;
  const { globalState } = rc.style;
  const light = lightAt(rc.style, rc.zoom);
  const [dx, dy] = layerTranslate(rc, layer.paint['fill-extrusion-translate']!);
  const colorExpression = layer.paint['fill-extrusion-color']!;
  const heightExpression = layer.paint['fill-extrusion-height']!;
  const constantPaint = isFeatureConstant(colorExpression) && isFeatureConstant(heightExpression);

  for (const { tile, source, zooms, selected } of layerTiles(loaded.vector, layer, globalState, (type) => type !== 1)) {
    const roofs: { index: number; height: number; fill: string }[] = [];
    for (const index of selected) {
      const feature = constantPaint ? undefined : source.evaluationFeature(index);
      const color = paintValue<Color>(colorExpression, zooms, feature, tile.canonical);
      const height = Math.max(0, paintValue<number>(heightExpression, zooms, feature, tile.canonical));
      const [r, g, b] = roofColor(color, light);
      roofs.push({ index, height, fill: `rgb(${Math.round(r * 255)},${Math.round(g * 255)},${Math.round(b * 255)})` });
    }
    // Stable: equal heights keep the tile's order.
    roofs.sort((a, b) => a.height - b.height);
    clipTo(ctx, tile.clip);
    if (dx !== 0 || dy !== 0) ctx.translate(dx, dy);
    let i = 0;
    while (i < roofs.length) {
      const path = new Path2D();
      const { fill } = roofs[i]!;
      let end = i;
      while (end < roofs.length && roofs[end]!.fill === fill) source.addTo(path, roofs[end++]!.index);
      ctx.fillStyle = fill;
      ctx.fill(path, 'nonzero');
      i = end;
    }
    ctx.restore();
  }
}
