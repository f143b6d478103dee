/**
 * The collision index of one placement (MapLibre's collision_index.ts over its grid_index.ts), in
 * CSS pixels of the image: boxes (point labels and icons) and circles (labels along lines) that
 * were placed, in a grid of 25-px cells. A box is placeable when it lies inside the image plus
 * MapLibre's 100-px viewport padding and, unless its overlap mode is 'always', hits nothing placed
 * before ('cooperative' hits only what was placed as 'never').
 */

import type { Point } from './anchor.js';
import { clipLines } from './anchors.js';

export type OverlapMode = 'never' | 'always' | 'cooperative';

export interface Box {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
}

export interface Circle {
  readonly x: number;
  readonly y: number;
  readonly radius: number;
}

interface Entry {
  readonly box?: Box;
  readonly circle?: Circle;
  readonly overlapMode: OverlapMode;
}

const CELL = 25;
export const VIEWPORT_PADDING = 100;

export class CollisionIndex {
  private readonly cells = new Map<number, Entry[]>();
  private readonly columns: number;

  constructor(readonly width: number, readonly height: number) {
    this.columns = Math.ceil((width + 2 * VIEWPORT_PADDING) / CELL) + 1;
  }

  private cellRange(x1: number, y1: number, x2: number, y2: number): number[] {
    const cx1 = Math.max(0, Math.floor((x1 + VIEWPORT_PADDING) / CELL));
    const cy1 = Math.max(0, Math.floor((y1 + VIEWPORT_PADDING) / CELL));
    const cx2 = Math.min(this.columns - 1, Math.floor((x2 + VIEWPORT_PADDING) / CELL));
    const cy2 = Math.floor((y2 + VIEWPORT_PADDING) / CELL);
    const ids: number[] = [];
    for (let y = cy1; y <= cy2; y++) for (let x = cx1; x <= cx2; x++) ids.push(y * this.columns + x);
    return ids;
  }

  insideGrid(box: Box): boolean {
    return box.x2 >= -VIEWPORT_PADDING && box.y2 >= -VIEWPORT_PADDING && box.x1 < this.width + VIEWPORT_PADDING && box.y1 < this.height + VIEWPORT_PADDING;
  }

  private hits(box: Box, overlapMode: OverlapMode, circle?: Circle): boolean {
    if (overlapMode === 'always') return false;
    for (const id of this.cellRange(box.x1, box.y1, box.x2, box.y2)) {
      for (const entry of this.cells.get(id) ?? []) {
        if (overlapMode === 'cooperative' && entry.overlapMode !== 'never') continue;
        if (circle ? intersectsCircle(entry, circle) : intersectsBox(entry, box)) return true;
      }
    }
    return false;
  }

  /** Whether a box can be placed. */
  placeBox(box: Box, overlapMode: OverlapMode): boolean {
    return this.insideGrid(box) && !this.hits(box, overlapMode);
  }

  /**
   * MapLibre's collision circles of a line label along `path` (CSS px): the part of the path inside
   * the image plus its viewport padding, padded by a quarter radius at both ends, with circles at
   * most 2.5 radii apart.
   */
  circlesAlong(path: readonly Point[], radius: number): Circle[] {
    if (path.length === 0) return [];
    const x0 = -VIEWPORT_PADDING;
    const y0 = -VIEWPORT_PADDING;
    const x1 = this.width + VIEWPORT_PADDING;
    const y1 = this.height + VIEWPORT_PADDING;
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (const p of path) {
      minX = Math.min(minX, p.x); minY = Math.min(minY, p.y); maxX = Math.max(maxX, p.x); maxY = Math.max(maxY, p.y);
    }
    let segments: (readonly Point[])[];
    if (minX >= x0 && maxX <= x1 && minY >= y0 && maxY <= y1) segments = [path];
    else if (maxX < x0 || minX > x1 || maxY < y0 || minY > y1) segments = [];
    else segments = clipLines([path], x0, y0, x1, y1);
    const circles: Circle[] = [];
    for (const segment of segments) {
      const distances = [0];
      for (let i = 1; i < segment.length; i++) distances.push(distances[i - 1]! + Math.hypot(segment[i]!.x - segment[i - 1]!.x, segment[i]!.y - segment[i - 1]!.y));
      const length = distances[distances.length - 1]!;
      const padding = Math.min(radius * 0.25, length * 0.5);
      const padded = length - 2 * padding;
      const count = length <= 0.5 * radius ? 1 : Math.ceil(padded / (radius * 2.5)) + 1;
      for (let i = 0; i < count; i++) {
        const at = (i / Math.max(count - 1, 1)) * padded + padding;
        circles.push({ ...pointAt(segment, distances, at), radius });
      }
    }
    return circles;
  }

  /** Whether every circle can be placed (and at least one lies inside the grid). */
  placeCircles(circles: readonly Circle[], overlapMode: OverlapMode): boolean {
    let inside = false;
    for (const circle of circles) {
      const box = circleBox(circle);
      if (!this.insideGrid(box)) continue;
      inside = true;
      if (this.hits(box, overlapMode, circle)) return false;
    }
    return inside;
  }

  insertBox(box: Box, overlapMode: OverlapMode): void {
    this.insert({ box, overlapMode }, box);
  }

  insertCircles(circles: readonly Circle[], overlapMode: OverlapMode): void {
    for (const circle of circles) this.insert({ circle, overlapMode }, circleBox(circle));
  }

  private insert(entry: Entry, box: Box): void {
    for (const id of this.cellRange(box.x1, box.y1, box.x2, box.y2)) {
      let cell = this.cells.get(id);
      if (!cell) this.cells.set(id, (cell = []));
      cell.push(entry);
    }
  }
}

/** The point `distance` along a path whose cumulative lengths are `distances` (MapLibre's PathInterpolator.lerp). */
function pointAt(path: readonly Point[], distances: readonly number[], distance: number): Point {
  if (path.length === 1) return path[0]!;
  let i = 1;
  while (distances[i]! < distance && i < distances.length - 1) i++;
  const span = distances[i]! - distances[i - 1]!;
  const t = span > 0 ? (distance - distances[i - 1]!) / span : 0;
  const a = path[i - 1]!;
  const b = path[i]!;
  return { x: a.x * (1 - t) + b.x * t, y: a.y * (1 - t) + b.y * t };
}

function circleBox(circle: Circle): Box {
  return { x1: circle.x - circle.radius, y1: circle.y - circle.radius, x2: circle.x + circle.radius, y2: circle.y + circle.radius };
}

function intersectsBox(entry: Entry, box: Box): boolean {
  if (entry.box) return box.x1 <= entry.box.x2 && box.x2 >= entry.box.x1 && box.y1 <= entry.box.y2 && box.y2 >= entry.box.y1;
  const c = entry.circle!;
  return circleHitsBox(c, box);
}

function intersectsCircle(entry: Entry, circle: Circle): boolean {
  if (entry.box) return circleHitsBox(circle, entry.box);
  const c = entry.circle!;
  return Math.hypot(c.x - circle.x, c.y - circle.y) <= c.radius + circle.radius;
}

function circleHitsBox(c: Circle, box: Box): boolean {
  const dx = c.x - Math.max(box.x1, Math.min(c.x, box.x2));
  const dy = c.y - Math.max(box.y1, Math.min(c.y, box.y2));
  return dx * dx + dy * dy <= c.radius * c.radius;
}
