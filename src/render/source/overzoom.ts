/**
 * Vector tiles deeper than a source's maxzoom, cut from its maxzoom tile as MapLibre GL JS 6.17
 * cuts them (`sliceVectorTileLayer` in its source/vector_tile_overzoomed.ts, used with the map's
 * default `zoomLevelsToOverscale`): every feature scaled to the deeper tile and clipped to it plus
 * a buffer of 128 units at extent 4096 (16 px of a 512-px tile, growing with the extent); features
 * and layers with nothing left are dropped. Labels are then laid out on the deeper tile, as
 * MapLibre lays them out: a line's anchors are spaced from where it enters the tile's buffer, a
 * polygon's label goes to the pole of its clipped part, a point in the buffer is its neighbour's.
 *
 * MapLibre keeps the clipped points fractional and rounds them when it scales them to its 8192
 * extent; our rings hold integers of the tile's own extent, so a point where a line crosses the
 * buffer's edge may be half a unit off theirs (a sixteenth of a pixel at extent 4096).
 */

import { tileRing, type TileFeature, type TileLayer, type TileRing, type VectorTile } from './source.js';

/** A tile of the source's pyramid. */
export interface TileId {
  readonly z: number;
  readonly x: number;
  readonly y: number;
}

interface Point {
  x: number;
  y: number;
}

/** `tile` (the tile `from`) cut to its descendant `to`. */
export function sliceVectorTile(tile: VectorTile, from: TileId, to: TileId): VectorTile {
  const layers = new Map<string, TileLayer>();
  for (const [name, layer] of tile.layers) {
    const sliced = sliceLayer(layer, from, to);
    if (sliced.features.length > 0) layers.set(name, sliced);
  }
  return { kind: 'vector', layers };
}

function sliceLayer(layer: TileLayer, from: TileId, to: TileId): TileLayer {
  const { extent } = layer;
  const scale = 2 ** (to.z - from.z);
  const offsetX = (to.x - from.x * scale) * extent;
  const offsetY = (to.y - from.y * scale) * extent;
  const buffer = Math.max(128, Math.round((128 * extent) / 4096));
  const features: TileFeature[] = [];
  for (const feature of layer.features) {
    const scaled = feature.geometry.map((ring) => {
      const points: Point[] = [];
      for (let i = 0; i < ring.length; i += 2) points.push({ x: ring[i]! * scale - offsetX, y: ring[i + 1]! * scale - offsetY });
      return points;
    });
    const clipped = clipGeometry(scaled, feature.type, -buffer, -buffer, extent + buffer, extent + buffer);
    if (clipped.length === 0) continue;
    const geometry: TileRing[] = clipped.map((ring) => tileRing(ring.map((point) => ({ x: Math.round(point.x), y: Math.round(point.y) }))));
    features.push({ ...(feature.id === undefined ? {} : { id: feature.id }), type: feature.type, properties: feature.properties, geometry });
  }
  return { extent, features };
}

/** MapLibre's clipGeometry (symbol/clip_line.ts): the geometry within the box, x first, then y. */
function clipGeometry(geometry: Point[][], type: 1 | 2 | 3, x1: number, y1: number, x2: number, y2: number): Point[][] {
  return clipOnAxis(clipOnAxis(geometry, type, x1, x2, 'x'), type, y1, y2, 'y');
}

function clipOnAxis(geometry: Point[][], type: 1 | 2 | 3, start: number, end: number, axis: 'x' | 'y'): Point[][] {
  if (type === 1) {
    // Each point kept becomes a ring of its own, as in MapLibre.
    const kept: Point[][] = [];
    for (const ring of geometry) for (const point of ring) if (point[axis] >= start && point[axis] <= end) kept.push([point]);
    return kept;
  }
  return geometry.flatMap((line) => clipLine(line, start, end, axis, type === 3));
}

/**
 * A line (or a ring) between two axis-parallel lines. A line leaving the band is cut into pieces;
 * a ring stays one ring, running along the band's edge, and is closed again.
 */
function clipLine(line: Point[], start: number, end: number, axis: 'x' | 'y', polygon: boolean): Point[][] {
  const other = axis === 'x' ? 'y' : 'x';
  const cross = (p1: Point, p2: Point, at: number): Point => {
    const t = (at - p1[axis]) / (p2[axis] - p1[axis]);
    const point = { x: at, y: at };
    point[other] = p1[other] + (p2[other] - p1[other]) * t;
    return point;
  };
  let slice: Point[] = [];
  const pieces: Point[][] = [];
  for (let i = 0; i < line.length - 1; i++) {
    const p1 = line[i]!;
    const p2 = line[i + 1]!;
    const pos1 = p1[axis];
    const pos2 = p2[axis];
    let exited = false;
    if (pos1 < start) {
      if (pos2 >= start) slice.push(cross(p1, p2, start));
    } else if (pos1 > end) {
      if (pos2 <= end) slice.push(cross(p1, p2, end));
    } else {
      slice.push(p1);
    }
    if (pos2 < start && pos1 >= start) {
      slice.push(cross(p1, p2, start));
      exited = true;
    }
    if (pos2 > end && pos1 <= end) {
      slice.push(cross(p1, p2, end));
      exited = true;
    }
    if (!polygon && exited) {
      pieces.push(slice);
      slice = [];
    }
  }
  const last = line[line.length - 1];
  if (last && last[axis] >= start && last[axis] <= end) slice.push(last);
  const first = slice[0];
  const tail = slice[slice.length - 1];
  if (polygon && first && tail && (first.x !== tail.x || first.y !== tail.y)) slice.push({ x: first.x, y: first.y });
  if (slice.length > 0) pieces.push(slice);
  return pieces;
}
