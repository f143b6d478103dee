/**
 * fill: polygons (and line strings, which MapLibre fills as closed rings) in `fill-color` times
 * `fill-opacity`, shifted by `fill-translate`, clipped to each tile's square.
 *
 * `fill-antialias` (on by default) is MapLibre's outline along every ring edge, GL lines one device
 * pixel wide in `fill-outline-color` (the fill colour unless given) times the opacity; MapLibre
 * draws the interior aliased, we draw it antialiased. The outline:
 *  - in the fill's own colour, of an opaque fill of one constant colour: MapLibre's depth test hides
 *    it under the layer's fills, so only its part outside the polygons shows; drawn first, as a
 *    1-device-pixel stroke under the fills;
 *  - in the fill's own colour otherwise: over the fills (MapLibre's translucent pass), as the same
 *    stroke;
 *  - in a colour of its own: over all of the layer's fills, as MapLibre's GL lines (`fill-outline.ts`),
 *    which a stroke would visibly widen.
 * Without `fill-antialias` edges stay antialiased, without the outline.
 *
 * Features of equal paint in a tile are one Path2D (nonzero winding); with a data-driven
 * `fill-sort-key` only consecutive features of equal paint are, so the sorted order holds.
 * A `fill-pattern` layer is drawn by `fill-pattern.ts`.
 */

import { Path2D, type SKRSContext2D } from '@napi-rs/canvas';
import type { Color } from '@maplibre/maplibre-gl-style-spec';
import { clipTo, drawWithLayerOpacity, layerTranslate, type RenderContext } from '../paint/context.js';
import { cssColor, evaluateAt, isFeatureConstant, paintValue } from '../style/properties.js';
import { hasPattern } from '../paint/pattern.js';
import { OutlineBuffer } from './fill-outline.js';
import { drawPatternFills } from './fill-pattern.js';
import type { RenderLayer } from '../style/style.js';
import { layerTiles } from '../tile/vector.js';

interface FillBatch {
  key: string;
  fill: string | null;
  outline: string | null;
  /** The outline colour, premultiplied, for the GL-line outline. */
  outlineColor: [number, number, number, number] | null;
  /** The batch's features, in drawing order. */
  features: number[];
}

export function drawFill(rc: RenderContext, layer: RenderLayer): void {
  const { paint } = layer;
  const { globalState } = rc.style;
  const layerOpacity = evaluateAt<number>(paint['fill-layer-opacity']!, rc.zoom, globalState);
  const opacity = paint['fill-opacity']!;
  if (isFeatureConstant(opacity) && evaluateAt<number>(opacity, rc.zoom, globalState) === 0) return;
  if (hasPattern(paint['fill-pattern']!, rc.zoom, globalState)) {
    drawWithLayerOpacity(rc, layerOpacity, (ctx) => drawPatternFills(rc, ctx, layer));
    return;
  }
  drawWithLayerOpacity(rc, layerOpacity, (ctx) => drawFills(rc, ctx, layer, layerOpacity));
}

function drawFills(rc: RenderContext, ctx: SKRSContext2D, layer: RenderLayer, layerOpacity: number): void {
  const loaded = rc.source(layer.source);
  if (!loaded) return;
  const { paint } = layer;
  const { globalState } = rc.style;
  const antialias = evaluateAt<boolean>(paint['fill-antialias']!, rc.zoom, globalState);
  const [dx, dy] = layerTranslate(rc, paint['fill-translate']!);
  const colorExpression = paint['fill-color']!;
  const outlineExpression = paint['fill-outline-color']!;
  const opacityExpression = paint['fill-opacity']!;
  const constantPaint = isFeatureConstant(colorExpression) && isFeatureConstant(opacityExpression) && isFeatureConstant(outlineExpression);
  // MapLibre's opaque pass: the fill hides its own default outline.
  const outlineUnder =
    layerOpacity >= 1 &&
    outlineExpression === colorExpression &&
    isFeatureConstant(colorExpression) &&
    isFeatureConstant(opacityExpression) &&
    evaluateAt<Color>(colorExpression, rc.zoom, globalState).a === 1 &&
    evaluateAt<number>(opacityExpression, rc.zoom, globalState) === 1;
  const sortKey = layer.layout['fill-sort-key']!;
  const sorted = !isFeatureConstant(sortKey);
  let outlines: OutlineBuffer | undefined;
  // An outline of its own colour is drawn as MapLibre's GL lines; one in the fill's colour blends into
  // the fill, where a 1-device-pixel stroke does as well and costs less.
  const ownOutline = antialias && outlineExpression !== colorExpression;
  // Which features share a batch depends on the tile's zoom only when no paint varies with both the
  // zoom and the feature: the tile then keeps each batch's merged path from render to render.
  const paintKinds = [colorExpression, opacityExpression, outlineExpression].map((expression) => expression.kind);
  const keptBatches = !sorted && (constantPaint || paintKinds.every((kind) => kind === 'constant' || kind === 'source'));

  for (const { tile, source, zooms, selected } of layerTiles(loaded.vector, layer, globalState, (type) => type !== 1, 'fill-sort-key')) {

    const batches: FillBatch[] = [];
    const byKey = new Map<string, FillBatch>();
    let last: FillBatch | undefined;
    let lastKey = '';
    for (const index of selected) {
      let batch: FillBatch | undefined = constantPaint ? last : undefined;
      if (!batch && !(constantPaint && batches.length > 0)) {
        const feature = constantPaint ? undefined : source.evaluationFeature(index);
        const opacity = paintValue<number>(opacityExpression, zooms, feature, tile.canonical);
        // MapLibre's vertex shaders drop anything fainter than this.
        if (opacity < 0.01) continue;
        const fill = cssColor(paintValue<Color>(colorExpression, zooms, feature, tile.canonical), opacity);
        const outlineColor = antialias ? paintValue<Color | undefined>(outlineExpression, zooms, feature, tile.canonical) : undefined;
        const outline = cssColor(outlineColor, opacity);
        if (!fill && !outline) continue;
        const key = `${fill}|${outline}`;
        batch = sorted ? (key === lastKey ? last : undefined) : byKey.get(key);
        if (!batch) {
          const premultiplied: FillBatch['outlineColor'] = outline ? [outlineColor!.r * opacity, outlineColor!.g * opacity, outlineColor!.b * opacity, outlineColor!.a * opacity] : null;
          batch = { key: constantPaint ? 'all' : key, fill, outline, outlineColor: premultiplied, features: [] };
          batches.push(batch);
          if (!sorted) byKey.set(key, batch);
        }
        lastKey = key;
      }
      if (!batch) continue;
      batch.features.push(index);
      last = batch;
    }
    if (batches.length === 0) continue;

    // Paths stay in tile coordinates: the context's transform places them, Skia's native code
    // moves every point.
    const paths = batches.map((batch) => (keptBatches ? source.mergedTilePath(layer, `${zooms.tileZoom}|${batch.key}`, batch.features) : source.joinedTilePath(batch.features)));
    clipTo(ctx, tile.clip);
    if (dx !== 0 || dy !== 0) ctx.translate(dx, dy);
    const { matrix } = source;
    ctx.transform(matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f);
    // One device pixel.
    ctx.lineWidth = 1 / source.scale;
    ctx.lineJoin = 'miter';
    ctx.miterLimit = 10;
    // Under an opaque fill only the outline's part outside the polygons shows.
    if (outlineUnder) strokeOutlines(ctx, batches, paths);
    batches.forEach((batch, i) => {
      if (!batch.fill) return;
      ctx.fillStyle = batch.fill;
      ctx.fill(paths[i]!, 'nonzero');
    });
    if (!outlineUnder && !ownOutline) strokeOutlines(ctx, batches, paths);
    ctx.restore();
    for (const batch of batches) {
      if (!ownOutline || !batch.outlineColor) continue;
      outlines ??= new OutlineBuffer(rc.view.width, rc.view.height);
      for (const index of batch.features) {
        for (const ring of source.pixels(index)) {
          for (let i = 2; i < ring.length; i += 2) outlines.line(ring[i - 2]! + dx, ring[i - 1]! + dy, ring[i]! + dx, ring[i + 1]! + dy, batch.outlineColor!, tile.clip);
        }
      }
    }
  }
  outlines?.composite(rc, ctx);
}

/** The outline in the fill's colour: a stroke one device pixel wide, as a GL line is. */
function strokeOutlines(ctx: SKRSContext2D, batches: readonly FillBatch[], paths: readonly Path2D[]): void {
  batches.forEach((batch, i) => {
    if (!batch.outline) return;
    ctx.strokeStyle = batch.outline;
    ctx.stroke(paths[i]!);
  });
}
