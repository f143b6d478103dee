/**
 * Where labels go on a feature, in tile units (MapLibre's 8192 extent), as MapLibre's
 * get_anchors.ts, clip_line.ts and find_pole_of_inaccessibility.ts decide: along lines every
 * `spacing` (the first offset by half the label plus two ems, or half a spacing where the line
 * comes in from a neighbouring tile), only where the label fits on the line and does not bend more
 * than text-max-angle; at the middle of a line for line-center; at the pole of inaccessibility of
 * polygons; at the points of points.
 */

import type { LineAnchor, Point } from './anchor.js';
import { checkMaxAngle } from './check-max-angle.js';

/** The length and box of the label along the line, glyph units and tile units per glyph unit. */
export interface LabelExtent {
  readonly textLength: number | null;
  readonly iconLength: number | null;
  readonly boxScale: number;
}

function dist(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

function lineLength(line: readonly Point[]): number {
  let length = 0;
  for (let k = 0; k < line.length - 1; k++) length += dist(line[k]!, line[k + 1]!);
  return length;
}

function anchorAt(a: Point, b: Point, t: number, segment: number): LineAnchor {
  // Anchor._round
  return { x: Math.round(a.x + (b.x - a.x) * t), y: Math.round(a.y + (b.y - a.y) * t), angle: Math.atan2(b.y - a.y, b.x - a.x), segment };
}

function windowSize(extent: LabelExtent): number {
  return extent.textLength !== null ? (3 / 5) * 24 * extent.boxScale : 0;
}

function shapedLength(extent: LabelExtent): number {
  return Math.max(extent.textLength ?? 0, extent.iconLength ?? 0);
}

export function lineAnchors(line: readonly Point[], spacing: number, maxAngle: number, extent: LabelExtent, overscaling: number, tileExtent: number): LineAnchor[] {
  const angleWindow = windowSize(extent);
  const labelLength = shapedLength(extent) * extent.boxScale;
  const first = line[0]!;
  const continued = first.x === 0 || first.x === tileExtent || first.y === 0 || first.y === tileExtent;
  if (spacing - labelLength < spacing / 4) spacing = labelLength + spacing / 4;
  const offset = !continued ? ((shapedLength(extent) / 2 + 24 * 2) * extent.boxScale * overscaling) % spacing : ((spacing / 2) * overscaling) % spacing;
  return resample(line, offset, spacing, angleWindow, maxAngle, labelLength, continued, false, tileExtent);
}

function resample(
  line: readonly Point[], offset: number, spacing: number, angleWindow: number, maxAngle: number, labelLength: number,
  continued: boolean, placeAtMiddle: boolean, tileExtent: number,
): LineAnchor[] {
  const half = labelLength / 2;
  const total = lineLength(line);
  let distance = 0;
  let marked = offset - spacing;
  let anchors: LineAnchor[] = [];
  for (let i = 0; i < line.length - 1; i++) {
    const a = line[i]!;
    const b = line[i + 1]!;
    const segment = dist(a, b);
    while (marked + spacing < distance + segment) {
      marked += spacing;
      const t = (marked - distance) / segment;
      const x = a.x + (b.x - a.x) * t;
      const y = a.y + (b.y - a.y) * t;
      if (x >= 0 && x < tileExtent && y >= 0 && y < tileExtent && marked - half >= 0 && marked + half <= total) {
        const anchor = anchorAt(a, b, t, i);
        if (!angleWindow || checkMaxAngle(line, anchor, labelLength, angleWindow, maxAngle)) anchors.push(anchor);
      }
    }
    distance += segment;
  }
  if (!placeAtMiddle && anchors.length === 0 && !continued) {
    anchors = resample(line, distance / 2, spacing, angleWindow, maxAngle, labelLength, continued, true, tileExtent);
  }
  return anchors;
}

/** The anchor at the middle of the line for line-center, or null when the label bends too much there. */
export function centerAnchor(line: readonly Point[], maxAngle: number, extent: LabelExtent): LineAnchor | null {
  const angleWindow = windowSize(extent);
  const labelLength = shapedLength(extent) * extent.boxScale;
  const center = lineLength(line) / 2;
  let prev = 0;
  for (let i = 0; i < line.length - 1; i++) {
    const a = line[i]!;
    const b = line[i + 1]!;
    const segment = dist(a, b);
    if (prev + segment > center) {
      const anchor = anchorAt(a, b, (center - prev) / segment, i);
      return !angleWindow || checkMaxAngle(line, anchor, labelLength, angleWindow, maxAngle) ? anchor : null;
    }
    prev += segment;
  }
  return null;
}

/** Cuts lines to the box [x0, x1] × [y0, y1] (MapLibre's clipLine), keeping the parts inside. */
export function clipLines(lines: readonly (readonly Point[])[], x0: number, y0: number, x1: number, y1: number): Point[][] {
  const clipped: Point[][] = [];
  for (const line of lines) {
    let current: Point[] | undefined;
    for (let i = 0; i < line.length - 1; i++) {
      let p0 = line[i]!;
      let p1 = line[i + 1]!;
      if (p0.x < x0 && p1.x < x0) continue;
      if (p0.x < x0) p0 = { x: x0, y: p0.y + (p1.y - p0.y) * ((x0 - p0.x) / (p1.x - p0.x)) };
      else if (p1.x < x0) p1 = { x: x0, y: p0.y + (p1.y - p0.y) * ((x0 - p0.x) / (p1.x - p0.x)) };
      if (p0.y < y0 && p1.y < y0) continue;
      if (p0.y < y0) p0 = { x: p0.x + (p1.x - p0.x) * ((y0 - p0.y) / (p1.y - p0.y)), y: y0 };
      else if (p1.y < y0) p1 = { x: p0.x + (p1.x - p0.x) * ((y0 - p0.y) / (p1.y - p0.y)), y: y0 };
      if (p0.x >= x1 && p1.x >= x1) continue;
      if (p0.x >= x1) p0 = { x: x1, y: p0.y + (p1.y - p0.y) * ((x1 - p0.x) / (p1.x - p0.x)) };
      else if (p1.x >= x1) p1 = { x: x1, y: p0.y + (p1.y - p0.y) * ((x1 - p0.x) / (p1.x - p0.x)) };
      if (p0.y >= y1 && p1.y >= y1) continue;
      if (p0.y >= y1) p0 = { x: p0.x + (p1.x - p0.x) * ((y1 - p0.y) / (p1.y - p0.y)), y: y1 };
      else if (p1.y >= y1) p1 = { x: p0.x + (p1.x - p0.x) * ((y1 - p0.y) / (p1.y - p0.y)), y: y1 };
      if (!current || p0.x !== current[current.length - 1]!.x || p0.y !== current[current.length - 1]!.y) {
        current = [p0];
        clipped.push(current);
      }
      current.push(p1);
    }
  }
  return clipped;
}

/**
 * The polygon's pole of inaccessibility (polylabel, as MapLibre's findPoleOfInaccessibility) to
 * `precision` tile units: the inner point farthest from its outline.
 */
export function poleOfInaccessibility(rings: readonly (readonly Point[])[], precision: number): Point {
  const outer = rings[0]!;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of outer) {
    minX = Math.min(minX, p.x); minY = Math.min(minY, p.y); maxX = Math.max(maxX, p.x); maxY = Math.max(maxY, p.y);
  }
  const width = maxX - minX;
  const height = maxY - minY;
  const cellSize = Math.min(width, height);
  let h = cellSize / 2;
  if (cellSize === 0) return { x: minX, y: minY };
  type Cell = { x: number; y: number; h: number; d: number; max: number };
  const cell = (x: number, y: number, half: number): Cell => {
    const d = pointToPolygonDist(x, y, rings);
    return { x, y, h: half, d, max: d + half * Math.SQRT2 };
  };
  const queue: Cell[] = [];
  for (let x = minX; x < maxX; x += cellSize) for (let y = minY; y < maxY; y += cellSize) queue.push(cell(x + h, y + h, h));
  let best = centroidCell(rings, cell);
  while (queue.length) {
    queue.sort((a, b) => a.max - b.max);
    const current = queue.pop()!;
    if (current.d > best.d || !best.d) best = current;
    if (current.max - best.d <= precision) continue;
    h = current.h / 2;
    queue.push(cell(current.x - h, current.y - h, h), cell(current.x + h, current.y - h, h), cell(current.x - h, current.y + h, h), cell(current.x + h, current.y + h, h));
  }
  return { x: best.x, y: best.y };
}

function centroidCell<C>(rings: readonly (readonly Point[])[], cell: (x: number, y: number, h: number) => C): C {
  let area = 0, x = 0, y = 0;
  const points = rings[0]!;
  for (let i = 0, len = points.length, j = len - 1; i < len; j = i++) {
    const a = points[i]!;
    const b = points[j]!;
    const f = a.x * b.y - b.x * a.y;
    x += (a.x + b.x) * f;
    y += (a.y + b.y) * f;
    area += f * 3;
  }
  return cell(area === 0 ? points[0]!.x : x / area, area === 0 ? points[0]!.y : y / area, 0);
}

function pointToPolygonDist(x: number, y: number, rings: readonly (readonly Point[])[]): number {
  let inside = false;
  let minDistSq = Infinity;
  for (const ring of rings) {
    for (let i = 0, len = ring.length, j = len - 1; i < len; j = i++) {
      const a = ring[i]!;
      const b = ring[j]!;
      if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
      minDistSq = Math.min(minDistSq, segmentDistSq(x, y, a, b));
    }
  }
  return (inside ? 1 : -1) * Math.sqrt(minDistSq);
}

function segmentDistSq(px: number, py: number, a: Point, b: Point): number {
  let x = a.x, y = a.y;
  let dx = b.x - x, dy = b.y - y;
  if (dx !== 0 || dy !== 0) {
    const t = ((px - x) * dx + (py - y) * dy) / (dx * dx + dy * dy);
    if (t > 1) { x = b.x; y = b.y; } else if (t > 0) { x += dx * t; y += dy * t; }
  }
  dx = px - x;
  dy = py - y;
  return dx * dx + dy * dy;
}
