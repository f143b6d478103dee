/**
 * MapLibre's checkMaxAngle (src/symbol/check_max_angle.ts): whether a label of `labelLength`
 * centred on an anchor of a line bends, within any window of `windowSize` along it, by more than
 * `maxAngle` radians in total. Tile units.
 */

import type { LineAnchor, Point } from './anchor.js';

function angleTo(a: Point, b: Point): number {
  return Math.atan2(a.y - b.y, a.x - b.x);
}

function dist(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

export function checkMaxAngle(line: readonly Point[], anchor: LineAnchor, labelLength: number, windowSize: number, maxAngle: number): boolean {
  if (labelLength === 0) return true;
  let p: Point = anchor;
  let index = anchor.segment + 1;
  let anchorDistance = 0;
  // Back to the start of the label.
  while (anchorDistance > -labelLength / 2) {
    index--;
    if (index < 0) return false;
    anchorDistance -= dist(line[index]!, p);
    p = line[index]!;
  }
  anchorDistance += dist(line[index]!, line[index + 1]!);
  index++;
  const corners: { distance: number; angleDelta: number }[] = [];
  let recentAngleDelta = 0;
  while (anchorDistance < labelLength / 2) {
    const prev = line[index - 1]!;
    const current = line[index]!;
    const next = line[index + 1];
    if (!next) return false;
    let angleDelta = angleTo(prev, current) - angleTo(current, next);
    angleDelta = Math.abs(((angleDelta + 3 * Math.PI) % (Math.PI * 2)) - Math.PI);
    corners.push({ distance: anchorDistance, angleDelta });
    recentAngleDelta += angleDelta;
    while (anchorDistance - corners[0]!.distance > windowSize) recentAngleDelta -= corners.shift()!.angleDelta;
    if (recentAngleDelta > maxAngle) return false;
    index++;
    anchorDistance += dist(current, next);
  }
  return true;
}
