/**
 * Glyphs along a line, as MapLibre's projection.ts places them (placeGlyphAlongLine) on a flat
 * map: each glyph's centre walks from the anchor along the line (in CSS pixels of the image) by its
 * offset, and takes the angle of the segment it lands on. A glyph that runs off the end of the line
 * hides the whole label. With text-keep-upright, a label that would read from right to left is
 * placed flipped: every offset walks the other way and glyphs turn by half a turn.
 */

import type { Point } from './anchor.js';

export interface GlyphOnLine {
  readonly x: number;
  readonly y: number;
  readonly angle: number;
}

/**
 * `offsetX` along the line from the anchor on `segment`, `offsetY` across it; with the path walked
 * to get there: the anchor, the line's vertices passed (moved across by `offsetY`), the glyph.
 */
function placeGlyph(line: readonly Point[], anchor: Point, segment: number, offsetX: number, offsetY: number, flip: boolean): (GlyphOnLine & { path: Point[] }) | null {
  let dir = offsetX > 0 ? 1 : -1;
  let angle = 0;
  if (flip) {
    dir *= -1;
    angle = Math.PI;
  }
  if (dir < 0) angle += Math.PI;
  let index = dir > 0 ? segment : segment + 1;
  let current: Point = anchor;
  let prev: Point = anchor;
  let distanceToPrev = 0;
  let segmentDistance = 0;
  const absOffset = Math.abs(offsetX);
  const path: Point[] = [];
  // Across the line: the segment's normal (perp of the unit vector), towards the label's "down".
  const across = (a: Point, b: Point, length: number): Point => ({ x: (-(b.y - a.y) / length) * offsetY * dir, y: ((b.x - a.x) / length) * offsetY * dir });
  while (distanceToPrev + segmentDistance <= absOffset) {
    index += dir;
    if (index < 0 || index >= line.length) return null;
    prev = current;
    current = line[index]!;
    distanceToPrev += segmentDistance;
    segmentDistance = Math.hypot(current.x - prev.x, current.y - prev.y);
    const normal = offsetY && segmentDistance > 0 ? across(prev, current, segmentDistance) : { x: 0, y: 0 };
    path.push({ x: prev.x + normal.x, y: prev.y + normal.y });
  }
  const t = (absOffset - distanceToPrev) / segmentDistance;
  const dx = current.x - prev.x;
  const dy = current.y - prev.y;
  const normal = across(prev, current, segmentDistance);
  const glyph = { x: prev.x + dx * t + normal.x, y: prev.y + dy * t + normal.y, angle: angle + Math.atan2(dy, dx), path };
  path.push({ x: glyph.x, y: glyph.y });
  return glyph;
}

/**
 * The path MapLibre lays a line label's collision circles on: from its first glyph's centre along
 * the line, through the vertices between, to its last glyph's centre (offsets as for
 * placeGlyphsAlongLine, never flipped); null when either glyph does not fit on the line.
 */
export function labelPath(line: readonly Point[], anchor: Point, segment: number, firstOffset: number, lastOffset: number, lineOffset: readonly [number, number]): Point[] | null {
  const first = placeGlyph(line, anchor, segment, firstOffset + lineOffset[0], lineOffset[1], false);
  const last = placeGlyph(line, anchor, segment, lastOffset + lineOffset[0], lineOffset[1], false);
  if (!first || !last) return null;
  // Each path starts at the anchor (its first entry), which lies between the two.
  return [...first.path.slice(1).reverse(), ...last.path.slice(1)];
}

/**
 * Every glyph's place for glyph-centre offsets `offsets` (CSS px along the line), or null when one
 * does not fit on the line. `lineOffset` is text-offset in CSS px (along, across).
 */
export function placeGlyphsAlongLine(
  line: readonly Point[], anchor: Point, segment: number, offsets: readonly number[], lineOffset: readonly [number, number], keepUpright: boolean,
): GlyphOnLine[] | null {
  const place = (flip: boolean): GlyphOnLine[] | null => {
    const placed: GlyphOnLine[] = [];
    for (const offset of offsets) {
      const combined = flip ? offset - lineOffset[0] : offset + lineOffset[0];
      const glyph = placeGlyph(line, anchor, segment, combined, lineOffset[1], flip);
      if (!glyph) return null;
      placed.push(glyph);
    }
    return placed;
  };
  if (offsets.length === 0) return [];
  if (keepUpright) {
    const first = placeGlyph(line, anchor, segment, offsets[0]! + lineOffset[0], lineOffset[1], false);
    const last = placeGlyph(line, anchor, segment, offsets[offsets.length - 1]! + lineOffset[0], lineOffset[1], false);
    if (first && last && first.x > last.x) return place(true);
  }
  return place(false);
}
