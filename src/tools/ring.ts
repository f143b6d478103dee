/**
 * Rings of longitude/latitude (or any planar) positions, as the map builders handle them: their
 * bounds, which way they turn, and whether a point is inside. Shared by the world builder (lakes,
 * country labels) and the street-map importer (the sea, its shapefile).
 */

import type { Position } from 'geojson';

/** West, south, east, north of the points. */
export function ringBounds(points: Iterable<Position>): [number, number, number, number] {
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points) {
    w = Math.min(w, x!);
    e = Math.max(e, x!);
    s = Math.min(s, y!);
    n = Math.max(n, y!);
  }
  return [w, s, e, n];
}

/** Twice the signed area: positive for a counter-clockwise ring (y up). */
export function signedArea(ring: readonly Position[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) sum += (ring[j]![0]! - ring[i]![0]!) * (ring[j]![1]! + ring[i]![1]!);
  return sum;
}

/** Whether a point is inside a ring (even-odd rule). */
export function inside(point: Position, ring: readonly Position[]): boolean {
  const [x, y] = point as [number, number];
  let result = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as [number, number];
    const [xj, yj] = ring[j] as [number, number];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) result = !result;
  }
  return result;
}
