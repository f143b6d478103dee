/** A point in tile units, and an anchor of a label on a line (MapLibre's symbol/anchor.ts). */

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface LineAnchor extends Point {
  /** Angle of the segment, radians (atan2 of b - a, y down). */
  readonly angle: number;
  /** Index of the segment's first point. */
  readonly segment: number;
}
