import type { Feature, Geometry, LineString, MultiLineString, MultiPolygon, Polygon, Position } from 'geojson';

/**
 * Clipping features to a longitude/latitude box, so that a part of the tile pyramid is cut from
 * only what lies in it. Polygons keep their rings closed (Sutherland-Hodgman: the box's edges become
 * ring edges, which lie in the tiles' buffer, never in sight); lines are cut into the pieces inside.
 */

/** West, south, east, north in degrees. */
export type LonLatBox = [number, number, number, number];

type Edge = { axis: 0 | 1; value: number; keep: 'above' | 'below' };

function edges([w, s, e, n]: LonLatBox): Edge[] {
  return [
    { axis: 0, value: w, keep: 'above' },
    { axis: 0, value: e, keep: 'below' },
    { axis: 1, value: s, keep: 'above' },
    { axis: 1, value: n, keep: 'below' },
  ];
}

function isIn(p: Position, edge: Edge): boolean {
  return edge.keep === 'above' ? p[edge.axis]! >= edge.value : p[edge.axis]! <= edge.value;
}

function cross(a: Position, b: Position, edge: Edge): Position {
  const t = (edge.value - a[edge.axis]!) / (b[edge.axis]! - a[edge.axis]!);
  const p: Position = [a[0]! + (b[0]! - a[0]!) * t, a[1]! + (b[1]! - a[1]!) * t];
  p[edge.axis] = edge.value;
  return p;
}

/** A closed ring clipped to the box, closed again; null when nothing of it is inside. */
export function clipRing(ring: readonly Position[], box: LonLatBox): Position[] | null {
  let points = ring.slice(0, -1);
  for (const edge of edges(box)) {
    if (points.length === 0) break;
    const out: Position[] = [];
    let previous = points[points.length - 1]!;
    let inPrevious = isIn(previous, edge);
    for (const current of points) {
      const inCurrent = isIn(current, edge);
      if (inCurrent !== inPrevious) out.push(cross(previous, current, edge));
      if (inCurrent) out.push(current);
      previous = current;
      inPrevious = inCurrent;
    }
    points = out;
  }
  return points.length >= 3 ? [...points, points[0]!] : null;
}

/** The pieces of a line inside the box (Liang-Barsky on each segment). */
export function clipLine(line: readonly Position[], [w, s, e, n]: LonLatBox): Position[][] {
  const pieces: Position[][] = [];
  let piece: Position[] = [];
  const close = () => {
    if (piece.length >= 2) pieces.push(piece);
    piece = [];
  };
  for (let i = 1; i < line.length; i++) {
    const a = line[i - 1]!;
    const b = line[i]!;
    const dx = b[0]! - a[0]!;
    const dy = b[1]! - a[1]!;
    let t0 = 0;
    let t1 = 1;
    const limits: [number, number][] = [
      [-dx, a[0]! - w],
      [dx, e - a[0]!],
      [-dy, a[1]! - s],
      [dy, n - a[1]!],
    ];
    let outside = false;
    for (const [p, q] of limits) {
      if (p === 0) {
        if (q < 0) outside = true;
      } else if (p < 0) {
        t0 = Math.max(t0, q / p);
      } else {
        t1 = Math.min(t1, q / p);
      }
    }
    if (outside || t0 > t1) {
      close();
      continue;
    }
    const start: Position = t0 === 0 ? a : [a[0]! + dx * t0, a[1]! + dy * t0];
    const end: Position = t1 === 1 ? b : [a[0]! + dx * t1, a[1]! + dy * t1];
    if (piece.length === 0) piece.push(start);
    piece.push(end);
    if (t1 < 1) close();
  }
  close();
  return pieces;
}

function clipPolygon(rings: readonly Position[][], box: LonLatBox): Position[][] | null {
  const outer = clipRing(rings[0]!, box);
  if (!outer) return null;
  const holes = rings.slice(1).map((ring) => clipRing(ring, box)).filter((ring) => ring !== null);
  return [outer, ...holes];
}

function clipGeometry(geometry: Geometry, box: LonLatBox): Geometry | null {
  switch (geometry.type) {
    case 'Polygon': {
      const polygon = clipPolygon(geometry.coordinates, box);
      return polygon ? ({ type: 'Polygon', coordinates: polygon } satisfies Polygon) : null;
    }
    case 'MultiPolygon': {
      const polygons = geometry.coordinates.map((polygon) => clipPolygon(polygon, box)).filter((polygon) => polygon !== null);
      return polygons.length ? ({ type: 'MultiPolygon', coordinates: polygons } satisfies MultiPolygon) : null;
    }
    case 'LineString': {
      const pieces = clipLine(geometry.coordinates, box);
      if (pieces.length === 0) return null;
      return pieces.length === 1 ? ({ type: 'LineString', coordinates: pieces[0]! } satisfies LineString) : { type: 'MultiLineString', coordinates: pieces };
    }
    case 'MultiLineString': {
      const pieces = geometry.coordinates.flatMap((line) => clipLine(line, box));
      return pieces.length ? ({ type: 'MultiLineString', coordinates: pieces } satisfies MultiLineString) : null;
    }
    default:
      throw new Error(`cannot clip a ${geometry.type}`);
  }
}

/** The feature's part inside the box, properties kept; null when none is. */
export function clipFeature<P>(feature: Feature<Geometry, P>, box: LonLatBox): Feature<Geometry, P> | null {
  const geometry = clipGeometry(feature.geometry, box);
  return geometry ? { type: 'Feature', geometry, properties: feature.properties } : null;
}

/** Moves a feature by whole turns of longitude, to bring it across the antimeridian. */
export function shiftFeature<P>(feature: Feature<Geometry, P>, degrees: number): Feature<Geometry, P> {
  const shift = (coordinates: unknown): unknown =>
    typeof (coordinates as unknown[])[0] === 'number'
      ? [(coordinates as number[])[0]! + degrees, (coordinates as number[])[1]!]
      : (coordinates as unknown[]).map(shift);
  const geometry = { ...feature.geometry, coordinates: shift((feature.geometry as Polygon).coordinates) } as Geometry;
  return { type: 'Feature', geometry, properties: feature.properties };
}
