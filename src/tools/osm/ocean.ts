/**
 * The sea as polygons, for the OpenMapTiles `water` layer (class `ocean`) of an imported extract.
 * OpenStreetMap draws coasts as lines (natural=coastline), and an extract holds them only in part,
 * so OpenMapTiles takes its sea from separate water polygons; Debian does not ship those, so they
 * are made here from GSHHG at full resolution (Debian's gmt-gshhg-full, read through GMT).
 *
 * The area is cut into cells (CELL_DEGREES a side) so that no polygon is large: tilemaker clips every
 * polygon to every tile it touches, and one sea polygon for a whole country would be slow to cut.
 * In each cell the coastline, clipped to the cell by GMT, is oriented with the sea on its left (a
 * point just to its left is tested with `gmt select`); the sea is then traced: along a coast line
 * to the cell's edge, counter-clockwise along the edge to where the next coast line starts, and so
 * on until the ring closes. A cell that no coast line crosses is all sea or all land, as a test of
 * its middle says. The sea is cut along the tile grid of GRID_ZOOM, and then through every island
 * until none is whole, so that it is written as small polygons without holes: tilemaker 2.2 cuts
 * large concave polygons and polygons with holes wrongly.
 */

import type { Polygon, Position } from 'geojson';
import { inSea, readCoastline, type Region } from '../gshhg.js';
import { inside, signedArea } from '../ring.js';
import { latitudeOfY, yOfLatitude } from '../../platform/web-mercator.js';

export const CELL_DEGREES = 0.5;
/** How far beside a coast line its side is tested, in degrees (about a metre). */
const PROBE = 1e-5;
/**
 * The sea is cut on the tile grid of this zoom (the archive's deepest), so that every polygon lies
 * inside one tile there: tilemaker 2.2 clips concave polygons to tiles wrongly (parts of the sea
 * away from the cut go missing), and a polygon inside the tile is never clipped.
 */
export const GRID_ZOOM = 14;
/** How much larger than a cell the region of its probes is, in degrees. */
const MARGIN = 0.01;
/** Points this close to a cell edge are on it. */
const EDGE = 1e-7;

/** The cells of CELL_DEGREES covering a region, each cut to it. */
export function cellsOf([west, south, east, north]: Region): Region[] {
  const cells: Region[] = [];
  for (let x = Math.floor(west / CELL_DEGREES) * CELL_DEGREES; x < east; x += CELL_DEGREES) {
    for (let y = Math.floor(south / CELL_DEGREES) * CELL_DEGREES; y < north; y += CELL_DEGREES) {
      cells.push([Math.max(x, west), Math.max(y, south), Math.min(x + CELL_DEGREES, east), Math.min(y + CELL_DEGREES, north)]);
    }
  }
  return cells;
}


/** A point just left of a line, beside the middle of its longest segment. */
export function leftProbe(line: readonly Position[]): Position {
  let best = 0;
  let longest = -1;
  for (let i = 0; i + 1 < line.length; i++) {
    const length = Math.hypot(line[i + 1]![0]! - line[i]![0]!, line[i + 1]![1]! - line[i]![1]!);
    if (length > longest) [best, longest] = [i, length];
  }
  const [x0, y0] = line[best] as [number, number];
  const [x1, y1] = line[best + 1] as [number, number];
  const scale = PROBE / (longest || 1);
  return [(x0 + x1) / 2 - (y1 - y0) * scale, (y0 + y1) / 2 + (x1 - x0) * scale];
}

/** Position along the cell's edge, counter-clockwise from the south-west corner, in [0, perimeter). */
export function edgePosition([west, south, east, north]: Region, [x, y]: Position): number {
  const width = east - west;
  const height = north - south;
  if (Math.abs(y! - south) <= EDGE && x! < east - EDGE) return x! - west;
  if (Math.abs(x! - east) <= EDGE && y! < north - EDGE) return width + (y! - south);
  if (Math.abs(y! - north) <= EDGE && x! > west + EDGE) return width + height + (east - x!);
  if (Math.abs(x! - west) <= EDGE) return 2 * width + height + (north - y!);
  return NaN;
}

/** Whether a segment runs along one of the cell's edges. */
function alongEdge([west, south, east, north]: Region, a: Position, b: Position): boolean {
  const on = (value: number, edge: number) => Math.abs(value - edge) <= EDGE;
  return (on(a[0]!, west) && on(b[0]!, west)) || (on(a[0]!, east) && on(b[0]!, east)) || (on(a[1]!, south) && on(b[1]!, south)) || (on(a[1]!, north) && on(b[1]!, north));
}

/**
 * The coast in a cell without the cell's own edges: GMT closes shorelines it clips along the
 * region's border, and those stretches are not coast. Lines are cut where they run along an edge.
 */
export function withoutEdges(cell: Region, line: readonly Position[]): Position[][] {
  const cuts: number[] = [];
  for (let i = 0; i + 1 < line.length; i++) if (alongEdge(cell, line[i]!, line[i + 1]!)) cuts.push(i);
  if (cuts.length === 0) return [[...line]];
  // A ring is opened at its first cut, so that its pieces start and end on the edge.
  const points = isClosed(line) ? [...line.slice(cuts[0]! + 1), ...line.slice(1, cuts[0]! + 1)] : [...line];
  const pieces: Position[][] = [];
  let current: Position[] = [points[0]!];
  for (let i = 0; i + 1 < points.length; i++) {
    if (alongEdge(cell, points[i]!, points[i + 1]!)) {
      if (current.length >= 2) pieces.push(current);
      current = [points[i + 1]!];
    } else current.push(points[i + 1]!);
  }
  if (current.length >= 2) pieces.push(current);
  return pieces;
}

/** The cell's corners strictly between two edge positions, going counter-clockwise from `from`. */
function cornersBetween(cell: Region, from: number, to: number): Position[] {
  const [west, south, east, north] = cell;
  const width = east - west;
  const height = north - south;
  const perimeter = 2 * (width + height);
  const corners: [number, Position][] = [
    [width, [east, south]],
    [width + height, [east, north]],
    [2 * width + height, [west, north]],
    [0, [west, south]],
  ];
  const span = (to - from + perimeter) % perimeter || perimeter;
  return corners
    .map(([at, corner]) => [(at - from + perimeter) % perimeter, corner] as const)
    .filter(([offset]) => offset > 0 && offset < span)
    .sort((a, b) => a[0] - b[0])
    .map(([, corner]) => corner);
}

/** Points this close are one; they come where a cut or an edge meets a coast line at a vertex. */
const SAME = 1e-9;

/**
 * A ring without repeated points and without spikes (a point where the ring turns straight back),
 * which tilemaker's clipping (Boost.Geometry) takes for an invalid polygon and cuts wrongly.
 */
export function cleanRing(ring: readonly Position[]): Position[] {
  const same = (a: Position, b: Position) => Math.abs(a[0]! - b[0]!) <= SAME && Math.abs(a[1]! - b[1]!) <= SAME;
  const points: Position[] = [];
  for (const point of ring.slice(0, -1)) {
    if (points.length > 0 && same(points.at(-1)!, point)) continue;
    points.push(point);
    // A spike: back to the point before the last.
    while (points.length >= 3 && same(points.at(-3)!, points.at(-1)!)) points.splice(-2, 2);
  }
  while (points.length > 1 && same(points[0]!, points.at(-1)!)) points.pop();
  return [...points, points[0]!];
}

/**
 * The sea in one cell, from its coast lines already oriented sea-on-the-left, and whether the
 * cell is sea (asked only when no line crosses it).
 */
export function seaOfCell(cell: Region, oriented: readonly Position[][], cornerInSea: () => boolean): Polygon[] {
  const open = oriented.filter((line) => !isClosed(line) && line.length >= 2);
  const rings = oriented.filter(isClosed);
  // Rings with the sea inside are seas of their own (counter-clockwise, sea on the left); the others are islands.
  const outers: Position[][] = rings.filter((ring) => signedArea(ring) > 0);
  const islands = rings.filter((ring) => signedArea(ring) < 0);

  if (open.length > 0) {
    const starts = open.map((line) => edgePosition(cell, line[0]!));
    const ends = open.map((line) => edgePosition(cell, line.at(-1)!));
    const perimeter = 2 * (cell[2] - cell[0] + cell[3] - cell[1]);
    const used = new Array<boolean>(open.length).fill(false);
    for (let first = 0; first < open.length; first++) {
      if (used[first]) continue;
      const ring: Position[] = [];
      let at = first;
      // Each line is used once; a ring is done when the walk comes back to its first line.
      for (let guard = 0; guard <= open.length; guard++) {
        used[at] = true;
        ring.push(...open[at]!);
        const end = ends[at]!;
        let next = -1;
        let nearest = Infinity;
        starts.forEach((start, i) => {
          const offset = (start - end + perimeter) % perimeter;
          if (offset < nearest) [next, nearest] = [i, offset];
        });
        ring.push(...cornersBetween(cell, end, starts[next]!));
        if (next === first) break;
        at = next;
      }
      ring.push(ring[0]!);
      outers.push(ring);
    }
  } else if (outers.length === 0 && cornerInSea()) {
    const [west, south, east, north] = cell;
    outers.push([[west, south], [east, south], [east, north], [west, north], [west, south]]);
  }

  const polygons = outers.map((outer) => ({ outer: cleanRing(outer), holes: [] as Position[][] }));
  for (const island of islands) {
    polygons.find(({ outer }) => inside(island[0]!, outer))?.holes.push(island);
  }
  return polygons.map(({ outer, holes }) => ({ type: 'Polygon', coordinates: [outer, ...holes] }));
}

function isClosed(line: readonly Position[]): boolean {
  return line.length >= 4 && Math.hypot(line[0]![0]! - line.at(-1)![0]!, line[0]![1]! - line.at(-1)![1]!) <= EDGE;
}

/**
 * The pieces of a line on one side of the line `axis` = cut (axis 0: x, 1: y; `low`: the side
 * below the cut), in order, each ending on the cut where it crosses it. A closed line is walked
 * from a point on the other side, so that no piece is split at the ring's seam.
 */
export function clipToSide(line: readonly Position[], axis: 0 | 1, cut: number, low: boolean): Position[][] {
  const other = 1 - axis;
  const inside = (point: Position) => (low ? point[axis]! <= cut : point[axis]! >= cut);
  let points = line;
  if (isClosed(line)) {
    const outside = line.findIndex((point) => !inside(point));
    if (outside < 0) return [[...line]];
    points = [...line.slice(outside, -1), ...line.slice(0, outside + 1)];
  }
  const pieces: Position[][] = [];
  let current: Position[] = inside(points[0]!) ? [points[0]!] : [];
  for (let i = 1; i < points.length; i++) {
    const [a, b] = [points[i - 1]!, points[i]!];
    if (inside(a) !== inside(b)) {
      const t = (cut - a[axis]!) / (b[axis]! - a[axis]!);
      const crossing: Position = [0, 0];
      crossing[axis] = cut;
      crossing[other] = a[other]! + t * (b[other]! - a[other]!);
      if (inside(a)) {
        current.push(crossing);
        if (current.length >= 2) pieces.push(current);
        current = [];
      } else current = [crossing];
    }
    if (inside(b)) current.push(b);
  }
  if (current.length >= 2) pieces.push(current);
  return pieces;
}

/** A cut off every vertex of the lines (a cut through one would leave a piece of no length). */
function offVertices(lines: readonly Position[][], axis: 0 | 1, cut: number): number {
  while (lines.some((line) => line.some((point) => point[axis] === cut))) cut += 1e-9;
  return cut;
}

/** The cell and its lines cut in two at `axis` = cut. */
function halves(cell: Region, lines: readonly Position[][], axis: 0 | 1, cut: number): [CellLines, CellLines] {
  const [west, south, east, north] = cell;
  const lower: Region = axis === 0 ? [west, south, cut, north] : [west, south, east, cut];
  const upper: Region = axis === 0 ? [cut, south, east, north] : [west, cut, east, north];
  return [
    { cell: lower, lines: lines.flatMap((line) => clipToSide(line, axis, cut, true)) },
    { cell: upper, lines: lines.flatMap((line) => clipToSide(line, axis, cut, false)) },
  ];
}

export interface CellLines {
  cell: Region;
  lines: Position[][];
}

/** The cell cut through its islands (closed clockwise rings) until no island is whole. */
export function splitAtIslands(cell: Region, lines: Position[][]): CellLines[] {
  const island = lines.find((line) => isClosed(line) && signedArea(line) < 0);
  if (!island) return [{ cell, lines }];
  const xs = island.map(([x]) => x!);
  const cut = offVertices(lines, 0, (Math.min(...xs) + Math.max(...xs)) / 2);
  return halves(cell, lines, 0, cut).flatMap((half) => splitAtIslands(half.cell, half.lines));
}

/** Longitudes and latitudes of the tile edges at `zoom` strictly inside a cell, each ascending. */
export function tileEdges([west, south, east, north]: Region, zoom: number): { xs: number[]; ys: number[] } {
  const n = 2 ** zoom;
  const xs: number[] = [];
  for (let x = Math.floor(((west + 180) / 360) * n) + 1; (x / n) * 360 - 180 < east; x++) xs.push((x / n) * 360 - 180);
  const latOf = (y: number) => latitudeOfY(y / n);
  const ys: number[] = [];
  const top = Math.floor(yOfLatitude(north) * n) + 1;
  for (let y = top; latOf(y) > south; y++) ys.push(latOf(y));
  return { xs, ys: ys.filter((lat) => lat < north).reverse() };
}

/** The cell cut along the given meridians and parallels (halving the list each time). */
export function splitOnGrid(part: CellLines, xs: readonly number[], ys: readonly number[]): CellLines[] {
  const axis: 0 | 1 = xs.length >= ys.length ? 0 : 1;
  const cuts = axis === 0 ? xs : ys;
  if (cuts.length === 0) return [part];
  const middle = Math.floor(cuts.length / 2);
  const [lower, upper] = halves(part.cell, part.lines, axis, offVertices(part.lines, axis, cuts[middle]!));
  const [before, after] = [cuts.slice(0, middle), cuts.slice(middle + 1)];
  return [
    ...splitOnGrid(lower, axis === 0 ? before : xs, axis === 0 ? ys : before),
    ...splitOnGrid(upper, axis === 0 ? after : xs, axis === 0 ? ys : after),
  ];
}

/** The sea in one cell, from GSHHG at full resolution. */
async function seaOfCellFromGshhg(cell: Region): Promise<Polygon[]> {
  const lines = (await readCoastline('f', cell)).flatMap((piece) => withoutEdges(cell, piece.points));
  // Probes of lines along the cell's edge may lie just outside it: ask over a slightly larger region.
  const around: Region = [cell[0] - MARGIN, cell[1] - MARGIN, cell[2] + MARGIN, cell[3] + MARGIN];
  const sea = await inSea(lines.map(leftProbe), 'f', around);
  const oriented = lines.map((line, i) => (sea[i] ? line : [...line].reverse()));
  const { xs, ys } = tileEdges(cell, GRID_ZOOM);
  const parts = splitOnGrid({ cell, lines: oriented }, xs, ys).flatMap((part) => splitAtIslands(part.cell, part.lines));
  const empty = parts.filter((part) => part.lines.length === 0);
  const middles = await inSea(empty.map(({ cell: [w, s, e, n] }) => [(w + e) / 2, (s + n) / 2]), 'f', around);
  return parts.flatMap((part) => seaOfCell(part.cell, part.lines, () => middles[empty.indexOf(part)]!));
}

/** The sea over a region as polygons, each within one cell; `onCell` counts the cells done. */
export async function seaPolygons(region: Region, onCell: (done: number, total: number) => void = () => {}): Promise<Polygon[]> {
  const cells = cellsOf(region);
  const polygons: Polygon[] = [];
  let done = 0;
  // GMT runs in other processes: two cells at a time keep both cores of a small machine busy.
  const queue = [...cells];
  await Promise.all(
    [0, 1].map(async () => {
      try {
        for (let cell = queue.shift(); cell; cell = queue.shift()) {
          polygons.push(...(await seaOfCellFromGshhg(cell)));
          onCell(++done, cells.length);
        }
      } catch (error) {
        // The other worker stops too, rather than run GMT for an import that has failed.
        queue.length = 0;
        throw error;
      }
    }),
  );
  return polygons;
}
