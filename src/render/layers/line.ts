/**
 * line: line strings and polygon rings (closed, joined all round, no caps), stroked as MapLibre's
 * line shader draws them, in device pixels (every width, offset, blur and dash doubled at @2x):
 *
 *  - MapLibre's alpha across a line is clamp((outset - d) / blur2) with outset = width/2 + 0.5 px and
 *    blur2 = blur + 1 px: for blur 0 that is exactly the coverage of an antialiased Skia stroke of
 *    `line-width`. Thinner than a pixel, MapLibre's profile carries more ink than a thin stroke: the
 *    stroke is widened to carry the same.
 *  - `line-blur` widens the ramp to blur + 1 px, ending half a pixel outside the width: drawn as a
 *    stack of strokes of decreasing width whose source-over alphas add up to the linear ramp.
 *  - `line-gap-width` draws the line `gap + 2 × width` wide with the middle `gap` left out (a
 *    casing), cut out of each feature's stroke with path operations so that joins and caps wrap
 *    round as MapLibre's do; dashed, its two sides are offset copies of the centre line instead.
 *  - `line-offset` moves each vertex along its join's bisector by offset × min(miter length, 2),
 *    as MapLibre's vertex shader does; positive is to the right of the line's direction.
 *  - `line-dasharray` is in line widths of `line-width` evaluated at the integer zoom, scaled
 *    with the map between integer zooms (MapLibre measures dashes at the tile zoom); dashes restart
 *    where a line enters a tile. An odd-length array's last dash joins its first. With round caps
 *    every dash is rounded; with butt or square caps the dashes are cut square, their ends fading
 *    over a pixel either side as MapLibre's dash texture makes them, and a square cap of a dashed
 *    line is left out (MapLibre draws it with the pattern's first position and squeezes the first
 *    segment's dashes into the cap).
 *  - At sharp corners MapLibre's line-offset geometry (extra vertices, flipped bevels) differs from
 *    a plain offset polyline by a few pixels.
 *  - `line-cap`, `line-join`, `line-miter-limit` map to Skia's; `line-round-limit` is ignored
 *    (a round join that MapLibre would draw as a miter is within a fraction of a pixel of it).
 *
 * Features of equal paint in a tile are stroked as one path when opaque; translucent ones one by one,
 * so that overlapping features blend twice as they do in MapLibre. A `line-pattern` layer is drawn
 * by `line-pattern.ts`.
 */

import { Path2D, PathOp, StrokeCap, StrokeJoin, type SKRSContext2D } from '@napi-rs/canvas';
import type { Color } from '@maplibre/maplibre-gl-style-spec';
import { clipTo, drawWithLayerOpacity, layerTranslate, type RenderContext } from '../paint/context.js';
import { cssColor, evaluateAt, isFeatureConstant, layoutValue, paintValue, type EvaluationZooms } from '../style/properties.js';
import { hasPattern } from '../paint/pattern.js';
import type { RenderLayer } from '../style/style.js';
import { drawPatternLines } from './line-pattern.js';
import { layerTiles, type SourceLayerView } from '../tile/vector.js';

type Cap = 'butt' | 'round' | 'square';
type Join = 'bevel' | 'round' | 'miter';

/** One evaluated line style, in device pixels. */
interface LineStyle {
  color: Color;
  opacity: number;
  width: number;
  gap: number;
  offset: number;
  blur: number;
  /** Dash lengths in device pixels (even count), or null for a solid line. */
  dash: number[] | null;
  dashOffset: number;
  cap: Cap;
  join: Join;
  miterLimit: number;
}

interface LineBatch {
  style: LineStyle;
  /** One merged path (opaque style) or one path per feature (translucent style). */
  paths: Path2D[];
  merged: boolean;
  /**
   * Where the paths' coordinates are: null for device pixels, else the tile's transform to device
   * pixels (the centre lines of lines without offset or gap stay in the tile's coordinates, kept
   * with the tile, and the context's transform places them).
   */
  tile: SourceLayerView | null;
  /** The features of a merged batch in tile coordinates, whose path is made once they are all known. */
  features: number[];
}

/** MapLibre's cap on how far `line-offset` follows a sharp corner: two offsets. */
const MAX_OFFSET_MITER_LENGTH = 2;

export function drawLine(rc: RenderContext, layer: RenderLayer): void {
  const { paint } = layer;
  const { globalState } = rc.style;
  const layerOpacity = evaluateAt<number>(paint['line-layer-opacity']!, rc.zoom, globalState);
  for (const name of ['line-opacity', 'line-width'] as const) {
    const expression = paint[name]!;
    if (isFeatureConstant(expression) && evaluateAt<number>(expression, rc.zoom, globalState) === 0) return;
  }
  if (hasPattern(paint['line-pattern']!, rc.zoom, globalState)) {
    drawWithLayerOpacity(rc, layerOpacity, (ctx) => drawPatternLines(rc, ctx, layer));
    return;
  }
  drawWithLayerOpacity(rc, layerOpacity, (ctx) => drawLines(rc, ctx, layer));
}

function drawLines(rc: RenderContext, ctx: SKRSContext2D, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded) return;
  const { globalState } = rc.style;
  const [dx, dy] = layerTranslate(rc, layer.paint['line-translate']!);
  const sorted = !isFeatureConstant(layer.layout['line-sort-key']!);
  const constantStyle = [
    'line-color', 'line-opacity', 'line-width', 'line-gap-width', 'line-offset', 'line-blur', 'line-dasharray',
  ].every((name) => isFeatureConstant(layer.paint[name]!)) &&
    ['line-cap', 'line-join', 'line-miter-limit'].every((name) => isFeatureConstant(layer.layout[name]!));
  // MapLibre measures dashes in pixels of the integer zoom, then draws them scaled with the map.
  const dashScale = 2 ** (rc.zoom - Math.floor(rc.zoom)) * rc.pixelRatio;
  // Half the width of MapLibre's dash-end fade: a device pixel, scaled with the map likewise.
  const dashRamp = 2 ** (rc.zoom - Math.floor(rc.zoom));

  for (const { tile, source, zooms, selected } of layerTiles(loaded.vector, layer, globalState, (type) => type !== 1, 'line-sort-key')) {

    const batches: LineBatch[] = [];
    const byKey = new Map<string, LineBatch>();
    let last: LineBatch | undefined;
    let lastKey = '';
    let constant: { style: LineStyle | null; key: string } | undefined;
    for (const index of selected) {
      let style: LineStyle | null;
      let key: string;
      if (constant) {
        ({ style, key } = constant);
      } else {
        const feature = constantStyle ? undefined : source.evaluationFeature(index);
        style = evaluateStyle(layer, zooms, rc.pixelRatio, dashScale, feature, tile.canonical);
        key = style ? styleKey(style) : '';
        if (constantStyle) constant = { style, key };
      }
      if (!style) continue;
      let batch = sorted ? (key === lastKey ? last : undefined) : byKey.get(key);
      if (!batch) {
        // Casings are cut out of their own line one feature at a time.
        const merged = style.color.a * style.opacity >= 1 && !isCasing(style);
        const inTile = style.gap === 0 && style.offset === 0;
        batch = { style, paths: merged && !inTile ? [new Path2D()] : [], merged, tile: inTile ? source : null, features: [] };
        batches.push(batch);
        if (!sorted) byKey.set(key, batch);
      }
      if (batch.tile && batch.merged) batch.features.push(index);
      else if (batch.tile) batch.paths.push(source.tilePath(index));
      else if (batch.merged) batch.paths[0]!.addPath(featurePath(source, index, style));
      else batch.paths.push(featurePath(source, index, style));
      last = batch;
      lastKey = key;
    }
    if (batches.length === 0) continue;
    for (const batch of batches) {
      if (!batch.tile || !batch.merged) continue;
      // With one style for every feature, the merged centre lines are the tile's to keep.
      batch.paths.push(constantStyle && !sorted ? source.mergedTilePath(layer, `${zooms.tileZoom}|all`, batch.features) : source.joinedTilePath(batch.features));
    }

    clipTo(ctx, tile.clip);
    if (dx !== 0 || dy !== 0) ctx.translate(dx, dy);
    for (const batch of batches) strokeBatch(ctx, batch, dashRamp);
    ctx.restore();
  }
}

/** The paint and layout of one feature (or of all, when they are feature-constant); null: invisible. */
function evaluateStyle(
  layer: RenderLayer,
  zooms: EvaluationZooms,
  pixelRatio: number,
  dashScale: number,
  feature: Parameters<typeof paintValue>[2],
  canonical: Parameters<typeof paintValue>[3],
): LineStyle | null {
  const { paint, layout } = layer;
  const opacity = paintValue<number>(paint['line-opacity']!, zooms, feature, canonical);
  const width = paintValue<number>(paint['line-width']!, zooms, feature, canonical);
  const color = paintValue<Color | undefined>(paint['line-color']!, zooms, feature, canonical);
  // MapLibre's vertex shader drops lines fainter than this.
  if (!(opacity >= 0.01) || !(width > 0) || !color || !(color.a > 0)) return null;
  const cap = layoutValue<Cap>(layout['line-cap']!, zooms, feature, canonical);
  const dasharray = paintValue<number[] | undefined>(paint['line-dasharray']!, { ...zooms, viewZoom: Math.floor(zooms.viewZoom) }, feature, canonical);
  let dash: number[] | null = null;
  let dashOffset = 0;
  if (dasharray && dasharray.length > 0) {
    // The width MapLibre scales dashes by: `line-width` at the integer zoom ("floorwidth").
    const floorWidth = paintValue<number>(paint['line-width']!, { ...zooms, viewZoom: Math.floor(zooms.viewZoom) }, feature, canonical);
    const pattern = dashPattern(dasharray, Math.max(floorWidth, 0) * dashScale);
    if (pattern) ({ dash, offset: dashOffset } = { dash: pattern.dash, offset: pattern.offset });
  }
  return {
    color,
    opacity,
    width: width * pixelRatio,
    gap: Math.max(0, paintValue<number>(paint['line-gap-width']!, zooms, feature, canonical)) * pixelRatio,
    offset: paintValue<number>(paint['line-offset']!, zooms, feature, canonical) * pixelRatio,
    blur: Math.max(0, paintValue<number>(paint['line-blur']!, zooms, feature, canonical)) * pixelRatio,
    dash,
    dashOffset,
    cap,
    join: layoutValue<Join>(layout['line-join']!, zooms, feature, canonical),
    miterLimit: layoutValue<number>(layout['line-miter-limit']!, zooms, feature, canonical),
  };
}

function styleKey(style: LineStyle): string {
  const { color: c } = style;
  return `${c.r},${c.g},${c.b},${c.a}|${style.opacity}|${style.width}|${style.gap}|${style.offset}|${style.blur}|${style.dash}|${style.dashOffset}|${style.cap}|${style.join}|${style.miterLimit}`;
}

/**
 * A dash array in line widths as Skia dash intervals (device px), MapLibre's way: an odd count
 * makes the last dash and the first one dash, joined (so the pattern starts `last` into a longer
 * first dash); no gap at all is a solid line.
 */
export function dashPattern(dasharray: readonly number[], unit: number): { dash: number[]; offset: number } | null {
  const values = dasharray.map((value) => Math.max(0, value));
  const total = values.reduce((sum, value) => sum + value, 0);
  if (!(total > 0) || !(unit > 0)) return null;
  let offset = 0;
  if (values.length % 2 === 1) {
    if (values.length === 1) return null;
    const lastValue = values.pop()!;
    values[0] = values[0]! + lastValue;
    offset = lastValue;
  }
  if (values.every((value, i) => i % 2 === 0 || value === 0)) return null;
  return { dash: values.map((value) => value * unit), offset: offset * unit };
}

/** A line with a gap and no dashes: drawn as its band with the gap cut out. */
function isCasing(style: LineStyle): boolean {
  return style.gap > 0 && !style.dash;
}

/**
 * The path to stroke for a feature: the cached centre line, or a copy moved by line-offset; for a
 * dashed line with a gap, the two sides of the gap, dashed each on its own.
 */
function featurePath(source: SourceLayerView, index: number, style: LineStyle): Path2D {
  const casingSides = style.gap > 0 && !isCasing(style);
  if (!casingSides && style.offset === 0) return source.path(index);
  const closed = source.features[index]!.type === 3;
  const path = new Path2D();
  const sides = casingSides ? [-1, 1] : [0];
  // A side of the gap sits (gap + width) / 2 from the centre; line-blur pulls both edges in by blur / 2.
  const distance = casingSides ? (style.gap + style.width - style.blur) / 2 : 0;
  for (const ring of source.pixels(index)) {
    for (const side of sides) appendPolyline(path, offsetPolyline(ring, closed, style.offset + side * distance), closed);
  }
  return path;
}

function appendPolyline(path: Path2D, points: Float64Array, closed: boolean): void {
  if (points.length < 4) return;
  path.moveTo(points[0]!, points[1]!);
  for (let i = 2; i < points.length; i += 2) path.lineTo(points[i]!, points[i + 1]!);
  if (closed) path.closePath();
}

/**
 * A polyline moved sideways by `offset` (device px, positive to the right of its direction) the
 * way MapLibre moves line vertices: along the bisector of the two segment normals, scaled by the
 * miter length up to MAX_OFFSET_MITER_LENGTH.
 */
export function offsetPolyline(coordinates: Float64Array, closed: boolean, offset: number): Float64Array {
  // Distinct consecutive points; a closed ring loses its repeated closing point.
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < coordinates.length; i += 2) {
    const x = coordinates[i]!;
    const y = coordinates[i + 1]!;
    if (xs.length > 0 && x === xs[xs.length - 1] && y === ys[ys.length - 1]) continue;
    xs.push(x);
    ys.push(y);
  }
  let n = xs.length;
  if (closed && n > 1 && xs[0] === xs[n - 1] && ys[0] === ys[n - 1]) n--;
  const out = new Float64Array(n * 2);
  if (n < 2 || offset === 0) {
    for (let i = 0; i < n; i++) {
      out[i * 2] = xs[i]!;
      out[i * 2 + 1] = ys[i]!;
    }
    return out;
  }
  const normal = (from: number, to: number): [number, number] => {
    const dx = xs[to]! - xs[from]!;
    const dy = ys[to]! - ys[from]!;
    const length = Math.hypot(dx, dy);
    return [-dy / length, dx / length];
  };
  for (let i = 0; i < n; i++) {
    const hasPrev = closed || i > 0;
    const hasNext = closed || i < n - 1;
    const next = hasNext ? normal(i, (i + 1) % n) : normal(i - 1, i);
    const prev = hasPrev ? normal((i - 1 + n) % n, i) : next;
    let jx = prev[0] + next[0];
    let jy = prev[1] + next[1];
    const length = Math.hypot(jx, jy);
    if (length > 0) {
      jx /= length;
      jy /= length;
    }
    const cosHalfAngle = jx * next[0] + jy * next[1];
    const miter = cosHalfAngle !== 0 ? Math.min(1 / cosHalfAngle, MAX_OFFSET_MITER_LENGTH) : 0;
    out[i * 2] = xs[i]! + jx * miter * offset;
    out[i * 2 + 1] = ys[i]! + jy * miter * offset;
  }
  return out;
}

/**
 * Strokes a batch. The band of one line (or of each side of a casing) is the stroke width with
 * MapLibre's ramp of blur + 1 px at its edges, half a pixel outside the width: without blur a plain
 * antialiased stroke; with blur, strokes of decreasing width whose alphas compose to the ramp.
 *
 * MapLibre's dash ends fade over a pixel either side of the end (its distance-field dash texture),
 * twice as soft as a stroke's own edge: butt-ended dashes are drawn twice, half a pixel longer and
 * half a pixel shorter at each end, at alphas that compose to the line's.
 */
function strokeBatch(ctx: SKRSContext2D, batch: LineBatch, dashRamp: number): void {
  const { style, tile } = batch;
  if (tile) {
    ctx.save();
    const { matrix } = tile;
    ctx.transform(matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f);
  }
  // Widths and dashes are in device pixels; a tile's paths are drawn under its transform.
  const unit = tile ? 1 / tile.scale : 1;
  ctx.lineCap = style.dash && style.cap !== 'round' ? 'butt' : style.cap;
  ctx.lineJoin = style.join;
  ctx.miterLimit = Math.max(1, style.miterLimit);
  const alpha = Math.min(1, style.color.a * style.opacity);
  if (!style.dash) {
    ctx.setLineDash([]);
    strokeBand(ctx, batch, alpha, unit);
  } else if (style.cap === 'round') {
    ctx.setLineDash(style.dash.map((length) => length * unit));
    ctx.lineDashOffset = style.dashOffset * unit;
    strokeBand(ctx, batch, alpha, unit);
  } else {
    const shift = dashRamp / 2;
    const first = alpha / 2;
    for (const [change, passAlpha] of [[shift, first], [-shift, first / (1 - first)]] as const) {
      const dash = style.dash.map((length, i) => Math.max(0, i % 2 === 0 ? length + 2 * change : length - 2 * change));
      if (dash.every((length, i) => i % 2 === 1 || length === 0)) continue;
      ctx.setLineDash(dash.map((length) => length * unit));
      ctx.lineDashOffset = (style.dashOffset + change) * unit;
      strokeBand(ctx, batch, passAlpha, unit);
    }
  }
  ctx.setLineDash([]);
  if (tile) ctx.restore();
}

function strokeBand(ctx: SKRSContext2D, batch: LineBatch, alpha: number, unit: number): void {
  const { style } = batch;
  if (isCasing(style)) {
    fillCasing(ctx, batch, alpha);
    return;
  }
  // Half the band width at the middle of its edge ramps.
  const half = style.gap > 0 ? style.width / 2 : style.width / 2 - style.blur / 2;
  const ramp = style.blur + 1;
  if (style.blur <= 0) {
    let width = style.gap > 0 ? style.width : Math.max(half * 2, 0);
    // MapLibre's profile of a sub-pixel line is a triangle of height and half-base (w + 1) / 2: a
    // stroke as wide as that triangle's area carries the same ink.
    if (width < 1) width = ((width + 1) / 2) ** 2;
    ctx.lineWidth = width * unit;
    ctx.strokeStyle = cssColor(style.color, alpha / style.color.a)!;
    for (const path of batch.paths) ctx.stroke(path);
    return;
  }
  const steps = Math.max(2, Math.min(24, Math.ceil(ramp)));
  // From the widest stroke (m = 1) to the narrowest (m = steps): after m strokes the alpha is m/steps of `alpha`.
  for (let m = 1; m <= steps; m++) {
    const halfWidth = half + (ramp - 1) / 2 - ((m - 0.5) * (ramp - 1)) / steps;
    if (halfWidth <= 0) break;
    const stepAlpha = alpha / (steps - alpha * (m - 1));
    ctx.lineWidth = halfWidth * 2 * unit;
    ctx.strokeStyle = cssColor(style.color, stepAlpha / style.color.a)!;
    for (const path of batch.paths) ctx.stroke(path);
  }
}

/**
 * A line with a gap, as MapLibre draws it: the band out to gap/2 + width with the middle out to
 * gap/2 transparent, each edge with the line's ramp (blur + 1 px, inside the outer edge and outside
 * the inner one). Each feature's band is its stroke less the stroke of the gap (path operations), so
 * round joins and caps wrap around as MapLibre's do; with blur, nested bands compose the ramps.
 */
function fillCasing(ctx: SKRSContext2D, batch: LineBatch, alpha: number): void {
  const { style } = batch;
  const ramp = style.blur + 1;
  const outer = style.gap / 2 + style.width;
  const inner = style.gap / 2;
  const steps = style.blur > 0 ? Math.max(2, Math.min(24, Math.ceil(ramp))) : 1;
  const opaque = style.color.a * style.opacity >= 1;
  const join = style.join === 'round' ? StrokeJoin.Round : style.join === 'bevel' ? StrokeJoin.Bevel : StrokeJoin.Miter;
  const cap = style.cap === 'round' ? StrokeCap.Round : style.cap === 'square' ? StrokeCap.Square : StrokeCap.Butt;
  const miterLimit = Math.max(1, style.miterLimit);
  for (let m = 1; m <= steps; m++) {
    const shift = steps === 1 ? 0 : (ramp - 1) / 2 - ((m - 0.5) * (ramp - 1)) / steps;
    // Outer half-width from the widest band inwards, inner from the narrowest gap outwards.
    const outerHalf = outer - style.blur / 2 + shift;
    const innerHalf = inner - style.blur / 2 - shift;
    if (outerHalf <= Math.max(0, innerHalf)) break;
    const stepAlpha = steps === 1 ? alpha : alpha / (steps - alpha * (m - 1));
    ctx.fillStyle = cssColor(style.color, stepAlpha / style.color.a)!;
    const union = opaque ? new Path2D() : undefined;
    for (const path of batch.paths) {
      const band = new Path2D(path).stroke({ width: outerHalf * 2, join, cap, miterLimit });
      if (innerHalf > 0) band.op(new Path2D(path).stroke({ width: innerHalf * 2, join, cap, miterLimit }), PathOp.Difference);
      if (union) union.addPath(band);
      else ctx.fill(band, 'nonzero');
    }
    if (union) ctx.fill(union, 'nonzero');
  }
}
