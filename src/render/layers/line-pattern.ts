/**
 * line with `line-pattern`, as MapLibre's line-pattern shader draws it: the image runs along the
 * line, its height stretched across the whole line (the `line-width` plus MapLibre's half-pixel
 * antialiasing fringe on each side), repeating every `width/height × line-width at the integer
 * zoom` pixels of the integer zoom (scaled with the map in between), counted from where the line
 * starts in its tile. As in MapLibre's pattern atlas, the image carries a one-pixel border copied
 * from its opposite edges, and that border is part of each repeat.
 *
 * Each segment of a line draws its own straight strip of repeats, clipped to the line's stroke (its
 * caps and joins included) and to the segment's share of it: the wedge between the bisectors of
 * its two joins. `line-color`, `line-dasharray` and `line-gap-width` do not apply to patterned lines
 * in MapLibre's pattern program but for the gap, which is not drawn here; `line-offset` and
 * `line-blur` are ignored.
 */

import { createCanvas, Path2D, StrokeCap, StrokeJoin, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { SpriteImage } from '../sprite/sprite.js';
import { clipTo, layerTranslate, type RenderContext } from '../paint/context.js';
import { patternImage, patternValue, tiledCanvas } from '../paint/pattern.js';
import { layoutValue, paintValue } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { layerTiles } from '../tile/vector.js';

type Cap = 'butt' | 'round' | 'square';
type Join = 'bevel' | 'round' | 'miter';

export function drawPatternLines(rc: RenderContext, ctx: SKRSContext2D, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded) return;
  const { paint, layout } = layer;
  const { globalState } = rc.style;
  const [dx, dy] = layerTranslate(rc, paint['line-translate']!);
  const { view } = rc;
  // Device pixels per pixel of the integer zoom.
  const zoomScale = 2 ** (view.zoom - Math.floor(view.zoom)) * view.pixelRatio;
  const padded = new Map<SpriteImage, Canvas>();
  // Strips of n repeats of each padded image, made once per render.
  const strips = new Map<Canvas, Map<number, Canvas>>();
  const strip = (border: Canvas, repeats: number): Canvas => {
    let byCount = strips.get(border);
    if (!byCount) strips.set(border, (byCount = new Map()));
    let canvas = byCount.get(repeats);
    if (!canvas) byCount.set(repeats, (canvas = tiledCanvas(border, repeats, 1)));
    return canvas;
  };

  for (const { tile, source, zooms, selected } of layerTiles(loaded.vector, layer, globalState, (type) => type !== 1, 'line-sort-key')) {
    clipTo(ctx, tile.clip);
    if (dx !== 0 || dy !== 0) ctx.translate(dx, dy);
    for (const index of selected) {
      const feature = source.evaluationFeature(index);
      const opacity = paintValue<number>(paint['line-opacity']!, zooms, feature, tile.canonical);
      const width = paintValue<number>(paint['line-width']!, zooms, feature, tile.canonical) * view.pixelRatio;
      const floorWidth = paintValue<number>(paint['line-width']!, { ...zooms, viewZoom: Math.floor(zooms.viewZoom) }, feature, tile.canonical);
      const image = patternImage(rc, patternValue(paint['line-pattern']!, zooms, feature, tile.canonical));
      // MapLibre's vertex shader drops lines fainter than this.
      if (!image || !(opacity >= 0.01) || !(width > 0) || !(floorWidth > 0)) continue;
      let border = padded.get(image);
      if (!border) {
        border = withBorder(image.image);
        padded.set(image, border);
      }
      const repeat = (image.image.width / image.image.height) * floorWidth * zoomScale;
      const stroke = {
        width,
        cap: layoutValue<Cap>(layout['line-cap']!, zooms, feature, tile.canonical),
        join: layoutValue<Join>(layout['line-join']!, zooms, feature, tile.canonical),
        miterLimit: layoutValue<number>(layout['line-miter-limit']!, zooms, feature, tile.canonical),
      };
      const closed = source.features[index]!.type === 3;
      ctx.globalAlpha = Math.min(1, opacity);
      for (const ring of source.pixels(index)) drawRing(rc, ctx, ring, closed, (repeats) => strip(border, repeats), repeat, stroke);
    }
    ctx.restore();
  }
}

/** The image with a one-pixel border of its opposite edges, as MapLibre's pattern atlas pads it. */
function withBorder(image: Canvas): Canvas {
  const { width, height } = image;
  const canvas = createCanvas(width + 2, height + 2);
  const ctx = canvas.getContext('2d');
  for (const oy of [-height, 0, height]) {
    for (const ox of [-width, 0, width]) ctx.drawImage(image, 1 + ox, 1 + oy);
  }
  return canvas;
}

function drawRing(
  rc: RenderContext,
  ctx: SKRSContext2D,
  ring: Float64Array,
  closed: boolean,
  strip: (repeats: number) => Canvas,
  repeat: number,
  stroke: { width: number; cap: Cap; join: Join; miterLimit: number },
): void {
  const points = distinctPoints(ring, closed);
  const count = points.length / 2;
  if (count < 2) return;
  const line = new Path2D();
  line.moveTo(points[0]!, points[1]!);
  for (let i = 1; i < count; i++) line.lineTo(points[i * 2]!, points[i * 2 + 1]!);
  if (closed) line.closePath();
  const outline = line.stroke({
    width: stroke.width,
    cap: stroke.cap === 'round' ? StrokeCap.Round : stroke.cap === 'square' ? StrokeCap.Square : StrokeCap.Butt,
    join: stroke.join === 'round' ? StrokeJoin.Round : stroke.join === 'bevel' ? StrokeJoin.Bevel : StrokeJoin.Miter,
    miterLimit: Math.max(1, stroke.miterLimit),
  });
  const band = stroke.width + 1;
  // Far enough past a joint or an end for any miter or cap.
  const reach = band * Math.max(2, stroke.miterLimit) + 2;
  const { view } = rc;
  let travelled = 0;
  const segments = closed ? count : count - 1;
  for (let i = 0; i < segments; i++) {
    const j = (i + 1) % count;
    const [x0, y0, x1, y1] = [points[i * 2]!, points[i * 2 + 1]!, points[j * 2]!, points[j * 2 + 1]!];
    const length = Math.hypot(x1 - x0, y1 - y0);
    const start = travelled;
    travelled += length;
    const visible = visibleRange(x0, y0, x1, y1, view.width, view.height, reach);
    if (!visible) continue;
    const ux = (x1 - x0) / length;
    const uy = (y1 - y0) / length;
    const startCut = jointDirection(points, count, closed, i, ux, uy);
    const endCut = jointDirection(points, count, closed, j, ux, uy);
    const wedge = new Path2D();
    const ext0 = !closed && i === 0 ? reach : 0;
    const ext1 = !closed && j === count - 1 ? reach : 0;
    wedge.moveTo(x0 - ux * ext0 + startCut[0] * reach, y0 - uy * ext0 + startCut[1] * reach);
    wedge.lineTo(x1 + ux * ext1 + endCut[0] * reach, y1 + uy * ext1 + endCut[1] * reach);
    wedge.lineTo(x1 + ux * ext1 - endCut[0] * reach, y1 + uy * ext1 - endCut[1] * reach);
    wedge.lineTo(x0 - ux * ext0 - startCut[0] * reach, y0 - uy * ext0 - startCut[1] * reach);
    wedge.closePath();

    // The strip starts at the last repeat boundary before the visible part, beyond the cap if any.
    const from = Math.max(visible[0] * length, 0) - ext0;
    const phase = modulo(start + from, repeat);
    const stripStart = from - phase;
    const repeats = Math.ceil((Math.min(visible[1] * length, length) + ext1 - stripStart) / repeat) + 1;
    ctx.save();
    ctx.clip(outline, 'nonzero');
    ctx.clip(wedge, 'nonzero');
    // Along the segment and across it: the image's top row on the right of the line's direction
    // (MapLibre's "down" normal), its bottom row on the left.
    ctx.transform(ux, uy, uy, -ux, x0, y0);
    ctx.imageSmoothingEnabled = true;
    ctx.imageSmoothingQuality = 'low';
    ctx.drawImage(strip(repeats), stripStart, -band / 2, repeats * repeat, band);
    ctx.restore();
  }
}

function modulo(value: number, period: number): number {
  const rest = value % period;
  return rest < 0 ? rest + period : rest;
}

/** The ring's points without consecutive repeats (and without the closing repeat of a closed ring). */
function distinctPoints(ring: Float64Array, closed: boolean): number[] {
  const points: number[] = [];
  for (let i = 0; i < ring.length; i += 2) {
    const n = points.length;
    if (n > 0 && points[n - 2] === ring[i] && points[n - 1] === ring[i + 1]) continue;
    points.push(ring[i]!, ring[i + 1]!);
  }
  const n = points.length;
  if (closed && n > 4 && points[0] === points[n - 2] && points[1] === points[n - 1]) points.length = n - 2;
  return points;
}

/**
 * The unit direction of the line dividing two segments' shares at point `k` (the bisector of the
 * joint); at an open end, the segment's own normal.
 */
function jointDirection(points: number[], count: number, closed: boolean, k: number, ux: number, uy: number): [number, number] {
  const previous = closed ? (k - 1 + count) % count : k - 1;
  const next = closed ? (k + 1) % count : k + 1;
  if (previous < 0 || next >= count) return [-uy, ux];
  const ax = points[k * 2]! - points[previous * 2]!;
  const ay = points[k * 2 + 1]! - points[previous * 2 + 1]!;
  const bx = points[next * 2]! - points[k * 2]!;
  const by = points[next * 2 + 1]! - points[k * 2 + 1]!;
  const la = Math.hypot(ax, ay);
  const lb = Math.hypot(bx, by);
  // The sum of the two normals points along the bisector of the joint.
  const nx = -ay / la - by / lb;
  const ny = ax / la + bx / lb;
  const length = Math.hypot(nx, ny);
  return length > 1e-9 ? [nx / length, ny / length] : [-uy, ux];
}

/** The part [t0, t1] of a segment within `margin` of the image, or null when it is all outside. */
function visibleRange(x0: number, y0: number, x1: number, y1: number, width: number, height: number, margin: number): [number, number] | null {
  let t0 = 0;
  let t1 = 1;
  const ddx = x1 - x0;
  const ddy = y1 - y0;
  for (const [p, q] of [[-ddx, x0 + margin], [ddx, width + margin - x0], [-ddy, y0 + margin], [ddy, height + margin - y0]] as const) {
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const r = q / p;
    if (p < 0) t0 = Math.max(t0, r);
    else t1 = Math.min(t1, r);
    if (t0 > t1) return null;
  }
  return [t0, t1];
}
