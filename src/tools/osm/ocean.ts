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
 * on until the ring closes. Closed coast rings with land inside are islands (holes); a cell that
 * no coast line crosses is all sea or all land, as a test of its corner says.
 */

import type { Polygon, Position } from 'geojson';
import { inSea, readCoastline, type Region } from '../gshhg.js';

export const CELL_DEGREES = 0.5;
/** How far beside a coast line its side is tested, in degrees (about a metre). */
const PROBE = 1e-5;
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

/** Twice the signed area: positive for a counter-clockwise ring. */
export function signedArea(ring: readonly Position[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) sum += (ring[j]![0]! - ring[i]![0]!) * (ring[j]![1]! + ring[i]![1]!);
  return sum;
}

function contains(ring: readonly Position[], [x, y]: Position): boolean {
  let result = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as [number, number];
    const [xj, yj] = ring[j] as [number, number];
    if (yi > y! !== yj > y! && x! < ((xj - xi) * (y! - yi)) / (yj - yi) + xi) result = !result;
  }
  return result;
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
  const closed = line.length >= 4 && Math.hypot(line[0]![0]! - line.at(-1)![0]!, line[0]![1]! - line.at(-1)![1]!) <= EDGE;
  // A ring is opened at its first cut, so that its pieces start and end on the edge.
  const points = closed ? [...line.slice(cuts[0]! + 1), ...line.slice(1, cuts[0]! + 1)] : [...line];
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

/**
 * The sea in one cell, from its coast lines already oriented sea-on-the-left, and whether the
 * cell's south-west corner is in the sea (asked only when no line crosses the cell).
 */
export function seaOfCell(cell: Region, oriented: readonly Position[][], cornerInSea: () => boolean): Polygon[] {
  const closed = (line: readonly Position[]) => line.length >= 4 && Math.hypot(line[0]![0]! - line.at(-1)![0]!, line[0]![1]! - line.at(-1)![1]!) <= EDGE;
  const open = oriented.filter((line) => !closed(line) && line.length >= 2);
  const rings = oriented.filter(closed);
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

  const polygons = outers.map((outer) => ({ outer, holes: [] as Position[][] }));
  for (const island of islands) {
    polygons.find(({ outer }) => contains(outer, island[0]!))?.holes.push(island);
  }
  return polygons.map(({ outer, holes }) => ({ type: 'Polygon', coordinates: [outer, ...holes] }));
}

/** The sea in one cell, from GSHHG at full resolution. */
async function seaOfCellFromGshhg(cell: Region): Promise<Polygon[]> {
  const lines = (await readCoastline('f', cell)).flatMap((piece) => withoutEdges(cell, piece.points));
  const probes = [...lines.map(leftProbe), [cell[0], cell[1]]];
  // Probes of lines along the cell's edge may lie just outside it: ask over a slightly larger region.
  const sea = await inSea(probes, 'f', [cell[0] - MARGIN, cell[1] - MARGIN, cell[2] + MARGIN, cell[3] + MARGIN]);
  const oriented = lines.map((line, i) => (sea[i] ? line : [...line].reverse()));
  return seaOfCell(cell, oriented, () => sea.at(-1)!);
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
      for (let cell = queue.shift(); cell; cell = queue.shift()) {
        polygons.push(...(await seaOfCellFromGshhg(cell)));
        onCell(++done, cells.length);
      }
    }),
  );
  return polygons;
}
