import { tmpdir } from 'node:os';
import type { Feature, LineString, Polygon, Position } from 'geojson';
import { runTool, type ToolError } from './child-processes.js';
import { inside, ringBounds } from './ring.js';

/**
 * Lakes and rivers of GSHHG (the shorelines and WDBII rivers that GMT draws with), as Debian's
 * `gmt-gshhg-*` packages ship them. The data is binned netCDF-4, which only GMT reads, so `gmt coast
 * -M` dumps it as text. The dump is cut at the bins' edges: the pieces of a lake are chained back
 * into closed rings, and the pieces of a river into long lines.
 */

/** GSHHG resolutions: crude (25 km), low (5 km), intermediate (1 km), high (200 m), full (the source's own). */
export type GshhgResolution = 'c' | 'l' | 'i' | 'h' | 'f';

/** West, south, east, north in degrees. */
export type Region = [number, number, number, number];

export interface Piece {
  /** The shoreline level (2 lake, 3 island in a lake, 4 pond on such an island) or the river level. */
  level: number;
  points: Position[];
}

/** Parses `gmt coast -M` output: `>` headers that end in `Level N`, then "lon<TAB>lat" lines. */
export function parseDump(text: string): Piece[] {
  const pieces: Piece[] = [];
  let current: Piece | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('>')) {
      const level = /Level (\d+)/.exec(line);
      current = { level: level ? Number(level[1]) : 0, points: [] };
      pieces.push(current);
    } else if (current && line.trim() !== '') {
      const [lon, lat] = line.split('\t');
      current.points.push([Number(lon), Number(lat)]);
    }
  }
  return pieces.filter((piece) => piece.points.length >= 2);
}

/** Bin edges hold the same points on both sides; the dump prints ten decimals, we match on six. */
function key(point: Position): string {
  return `${point[0]!.toFixed(6)} ${point[1]!.toFixed(6)}`;
}

function same(a: Position, b: Position): boolean {
  return key(a) === key(b);
}

/**
 * Chains pieces: from a piece's end on to the piece that starts there, as long as exactly one
 * piece of the same level starts there and only this one ends there (not at a confluence).
 * Returns the chains, each a list of points without repeated joints.
 */
function chain(pieces: readonly Piece[]): Piece[] {
  const starts = new Map<string, number[]>();
  const ends = new Map<string, number>();
  pieces.forEach((piece, i) => {
    const start = `${piece.level}|${key(piece.points[0]!)}`;
    starts.set(start, (starts.get(start) ?? []).concat(i));
    const end = `${piece.level}|${key(piece.points.at(-1)!)}`;
    ends.set(end, (ends.get(end) ?? 0) + 1);
  });
  const next = (piece: Piece): number | undefined => {
    const end = `${piece.level}|${key(piece.points.at(-1)!)}`;
    const candidates = starts.get(end);
    return candidates?.length === 1 && ends.get(end) === 1 ? candidates[0] : undefined;
  };
  const used = new Array<boolean>(pieces.length).fill(false);
  const chains: Piece[] = [];
  const follow = (first: number) => {
    used[first] = true;
    const points = [...pieces[first]!.points];
    let at = pieces[first]!;
    for (let n = next(at); n !== undefined && !used[n]; n = next(at)) {
      used[n] = true;
      at = pieces[n]!;
      points.push(...at.points.slice(1));
    }
    chains.push({ level: pieces[first]!.level, points });
  };
  // Heads first (pieces nothing leads into), so a line is followed from its real start; what is
  // left is loops, which can start anywhere.
  pieces.forEach((piece, i) => {
    const start = `${piece.level}|${key(piece.points[0]!)}`;
    if (!ends.has(start)) follow(i);
  });
  pieces.forEach((_, i) => {
    if (!used[i]) follow(i);
  });
  return chains;
}

/**
 * Closed rings from shoreline pieces. A chain that cannot be closed through other pieces ends on
 * the antimeridian, where -Rd cuts a lake in two: closing it along the meridian is right.
 */
export function assembleRings(pieces: readonly Piece[]): Piece[] {
  return chain(pieces).map((ring) => {
    const points = ring.points;
    return same(points[0]!, points.at(-1)!) ? ring : { level: ring.level, points: [...points, points[0]!] };
  }).filter((ring) => ring.points.length >= 4);
}

/** Long lines from river pieces: pieces that continue one another, at the same level, joined. */
export function assembleLines(pieces: readonly Piece[]): Piece[] {
  return chain(pieces);
}



/**
 * Lake polygons from shoreline rings: each lake (level 2) with the islands (level 3) inside it as
 * holes; ponds on those islands (level 4) are lakes of their own.
 */
export function lakePolygons(rings: readonly Piece[]): Polygon[] {
  const lakes = rings
    .filter((ring) => ring.level === 2 || ring.level === 4)
    .map((ring) => ({ outer: ring.points, box: ringBounds(ring.points), holes: [] as Position[][] }));
  for (const island of rings.filter((ring) => ring.level === 3)) {
    const [w, s, e, n] = ringBounds(island.points);
    const probe = island.points[0]!;
    const lake = lakes.find(
      ({ box, outer }) => box[0] <= w && box[1] <= s && box[2] >= e && box[3] >= n && inside(probe, outer),
    );
    lake?.holes.push(island.points);
  }
  return lakes.map(({ outer, holes }) => ({ type: 'Polygon', coordinates: [outer, ...holes] }));
}

/** GMT's river levels (`gmt coast -I`), by what a map makes of them. */
export type RiverClass = 'river' | 'intermittent' | 'canal';

export interface RiverProperties {
  class: RiverClass;
  /** 1 for the major ones, then down: rivers 1 to 4, intermittent rivers 1 to 3, canals 1 to 3 (irrigation). */
  rank: number;
}

/** Levels 1-4 are permanent rivers, 5-7 intermittent ones, 8-10 canals; 0 is river banks, drawn as lakes. */
export function riverProperties(level: number): RiverProperties | null {
  if (level >= 1 && level <= 4) return { class: 'river', rank: level };
  if (level >= 5 && level <= 7) return { class: 'intermittent', rank: level - 4 };
  if (level >= 8 && level <= 10) return { class: 'canal', rank: level - 7 };
  return null;
}

export interface Gshhg {
  lakes: Polygon[];
  rivers: Feature<LineString, RiverProperties>[];
}

/** `-R` of a region (GMT's order: west/east/south/north), or the whole world in -180..180. */
function regionArgument(region: Region | undefined): string {
  if (!region) return '-Rd';
  const [west, south, east, north] = region;
  return `-R${west}/${east}/${south}/${north}`;
}

async function gmt(args: string[], input?: string): Promise<string> {
  try {
    // GMT keeps a gmt.history file in its working directory unless told not to.
    return (await runTool('gmt', [...args, '--GMT_HISTORY=false'], { maxBuffer: 1 << 30, cwd: tmpdir(), ...(input === undefined ? {} : { input }) })).stdout;
  } catch (error) {
    if ((error as ToolError).code === 'ENOENT') {
      throw new Error(`gmt not found: GSHHG shorelines need Debian's gmt and gmt-gshhg-* packages (scripts/setup.sh installs them)`);
    }
    throw new Error(`gmt ${args[0]} failed: ${(error as ToolError).stderr?.trim() || (error as Error).message}`);
  }
}

async function dump(args: string[], region?: Region): Promise<Piece[]> {
  return parseDump(await gmt(['coast', '-M', regionArgument(region), ...args]));
}

/**
 * The coastline (shoreline level 1, between the sea and land) inside a region, cut at its edges:
 * lines that end on the region's edges, and closed rings (islands, or the shores of a sea inside).
 */
export async function readCoastline(resolution: GshhgResolution, region: Region): Promise<Piece[]> {
  return chain(await dump([`-D${resolution}`, '-A0/1/1', '-W'], region));
}

/**
 * Which points are in the sea (outside every level-1 shoreline), by `gmt select`. Points in
 * lakes count as land: only the sea is asked for.
 */
export async function inSea(points: readonly Position[], resolution: GshhgResolution, region: Region): Promise<boolean[]> {
  if (points.length === 0) return [];
  const input = points.map(([lon, lat], i) => `${lon} ${lat} ${i}`).join('\n');
  // -N ocean/land/lake/island/pond: keep everything but the ocean, so the points printed are on land.
  const output = await gmt(['select', regionArgument(region), `-D${resolution}`, '-Ns/k/k/k/k'], `${input}\n`);
  const sea = new Array<boolean>(points.length).fill(true);
  for (const line of output.split('\n')) {
    const index = Number(line.split('\t')[2]);
    if (Number.isInteger(index)) sea[index] = false;
  }
  return sea;
}

/** Reads lakes and rivers at one resolution through the `gmt` executable. */
export async function readGshhg(resolution: GshhgResolution): Promise<Gshhg> {
  // -A0/2/4: shorelines of levels 2 to 4 (lakes, islands in them, ponds on those), any area.
  const [shores, rivers] = await Promise.all([
    dump([`-D${resolution}`, '-A0/2/4', '-W']),
    dump([`-D${resolution}`, '-Ia']),
  ]);
  return {
    lakes: lakePolygons(assembleRings(shores)),
    rivers: assembleLines(rivers).flatMap((line) => {
      const properties = riverProperties(line.level);
      return properties ? [{ type: 'Feature', geometry: { type: 'LineString', coordinates: line.points }, properties }] : [];
    }),
  };
}
