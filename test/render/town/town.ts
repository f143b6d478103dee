/**
 * Altwasser, a synthetic small town on the Swiss plateau for the render tests of real basemap
 * styles: a street grid of about 1.5 x 1 km around its old town, a river running into a lake, a rail
 * line and station, a motorway with an interchange and a tunnel, industry, parks, farmland and
 * forest, four villages around, places, points of interest and addresses.
 *
 * The town is made as OpenStreetMap would hold it: features with OSM tags (highway=..., landuse=...,
 * name, ref, ...), laid out in metres east (x) and north (y) of the town centre and rounded to 1e-7
 * degrees. openmaptiles.ts and protomaps.ts map these features to each schema, as the tile profiles
 * (OpenMapTiles' imposm rules, the Protomaps Planetiler profile) do with real OSM data.
 *
 * Everything comes from code and a seeded random generator, so every run makes the same town.
 */

import type { Feature, Geometry, Position } from 'geojson';
import { seededRandom } from '../../scratch.js';

export type Tags = Record<string, string | number>;
export type TownFeature = Feature<Geometry, Tags>;

/** The town centre, on land between Lucerne and Zurich. */
export const CENTER: [number, number] = [8.3165, 47.2212];
/** West, south, east, north in metres from the centre: everything lies inside. */
export const EXTENT_METRES = 3600;

const METRES_PER_DEGREE_LAT = 110_574;
const METRES_PER_DEGREE_LON = 111_320 * Math.cos((CENTER[1] * Math.PI) / 180);

type Point = [number, number];

/** Longitude and latitude of a point x metres east and y metres north of the centre. */
export function lonLat([x, y]: Point): Position {
  return [round7(CENTER[0] + x / METRES_PER_DEGREE_LON), round7(CENTER[1] + y / METRES_PER_DEGREE_LAT)];
}

function round7(value: number): number {
  return Math.round(value * 1e7) / 1e7;
}

/** The street grid is turned by this angle (radians, anticlockwise) from east-west. */
const GRID_ANGLE = 0.2;
/** Street lines of the grid: u along the rotated east axis, v along the rotated north axis. */
const GRID_U = [-750, -600, -450, -300, -150, 0, 150, 300, 450, 600, 750];
const GRID_V = [-270, -160, -50, 60, 170, 280, 390, 500, 610, 720];

/** A point of the grid's (u, v) frame in town metres. */
function grid(u: number, v: number): Point {
  const [c, s] = [Math.cos(GRID_ANGLE), Math.sin(GRID_ANGLE)];
  return [u * c - v * s, u * s + v * c];
}

/** A rectangle w x h metres centred on (cx, cy) of the grid frame, turned with the grid. */
function gridRect(cx: number, cy: number, w: number, h: number): Point[] {
  return [
    grid(cx - w / 2, cy - h / 2),
    grid(cx + w / 2, cy - h / 2),
    grid(cx + w / 2, cy + h / 2),
    grid(cx - w / 2, cy + h / 2),
  ];
}

function box(west: number, south: number, east: number, north: number): Point[] {
  return [[west, south], [east, south], [east, north], [west, north]];
}

/** An irregular closed outline of radii rx, ry around (cx, cy), wobbling by `wobble` of the radius. */
function blob(cx: number, cy: number, rx: number, ry: number, wobble: number, seed: number, points = 28): Point[] {
  const next = seededRandom(seed);
  return Array.from({ length: points }, (_, k): Point => {
    const angle = (k * 2 * Math.PI) / points;
    const r = 1 + wobble * (next() - 0.5) * 2;
    return [cx + rx * r * Math.cos(angle), cy + ry * r * Math.sin(angle)];
  });
}

/** A polygon of `width` metres around a polyline (for the river's water area). */
function band(line: readonly Point[], width: number): Point[] {
  const left: Point[] = [];
  const right: Point[] = [];
  line.forEach((point, i) => {
    const a = line[Math.max(i - 1, 0)]!;
    const b = line[Math.min(i + 1, line.length - 1)]!;
    const length = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const [nx, ny] = [(-(b[1] - a[1]) / length) * (width / 2), ((b[0] - a[0]) / length) * (width / 2)];
    left.push([point[0] + nx, point[1] + ny]);
    right.push([point[0] - nx, point[1] - ny]);
  });
  return [...left, ...right.reverse()];
}

/** The part of a polyline between distances `from` and `to` metres along it. */
function slice(line: readonly Point[], from: number, to: number): Point[] {
  const out: Point[] = [];
  let walked = 0;
  for (let i = 1; i < line.length; i++) {
    const [a, b] = [line[i - 1]!, line[i]!];
    const length = Math.hypot(b[0] - a[0], b[1] - a[1]);
    const at = (d: number): Point => {
      const t = (d - walked) / length;
      return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
    };
    if (walked + length >= from && walked <= to) {
      if (out.length === 0) out.push(at(Math.max(from, walked)));
      out.push(at(Math.min(to, walked + length)));
    }
    walked += length;
  }
  return out;
}

function lengthOf(line: readonly Point[]): number {
  let total = 0;
  for (let i = 1; i < line.length; i++) total += Math.hypot(line[i]![0] - line[i - 1]![0], line[i]![1] - line[i - 1]![1]);
  return total;
}

/** How far along a polyline, to the metre, `test` first holds (where it crosses a river, a railway, ...). */
function distanceAlong(line: readonly Point[], test: (point: Point) => boolean): number {
  const length = lengthOf(line);
  for (let d = 0; d <= length; d += 1) {
    const [point] = slice(line, d, d);
    if (point && test(point)) return d;
  }
  throw new Error('the line never meets the crossing');
}

/**
 * A road split where it crosses something: the parts before and after keep `tags`, the part of
 * `span` metres centred on the crossing gets `crossing` tags too (bridge=yes or tunnel=yes).
 */
function crossing(line: readonly Point[], at: number, span: number): [Point[], Point[], Point[]] {
  const length = lengthOf(line);
  return [slice(line, 0, at - span / 2), slice(line, at - span / 2, at + span / 2), slice(line, at + span / 2, length)];
}

class TownBuilder {
  readonly features: TownFeature[] = [];
  private nextId = 1;

  add(geometry: Geometry, tags: Tags): void {
    this.features.push({ type: 'Feature', id: this.nextId++, properties: tags, geometry });
  }

  line(points: readonly Point[], tags: Tags): void {
    this.add({ type: 'LineString', coordinates: points.map(lonLat) }, tags);
  }

  area(outer: readonly Point[], tags: Tags, holes: readonly (readonly Point[])[] = []): void {
    const ring = (points: readonly Point[], clockwise: boolean) => {
      const closed = [...points, points[0]!];
      // GeoJSON wants outer rings anticlockwise and holes clockwise (RFC 7946).
      return (signedArea(closed) > 0) !== clockwise ? closed.map(lonLat) : closed.reverse().map(lonLat);
    };
    this.add({ type: 'Polygon', coordinates: [ring(outer, false), ...holes.map((hole) => ring(hole, true))] }, tags);
  }

  point(point: Point, tags: Tags): void {
    this.add({ type: 'Point', coordinates: lonLat(point) }, tags);
  }

  /** A road, cut into pieces where it crosses something (bridge=yes, tunnel=yes with its layer). */
  road(points: readonly Point[], tags: Tags, crossings: readonly { at: number; span: number; tags: Tags }[] = []): void {
    let rest: Point[] = [...points];
    let offset = 0;
    for (const cross of [...crossings].sort((a, b) => a.at - b.at)) {
      const [before, on, after] = crossing(rest, cross.at - offset, cross.span);
      this.line(before, tags);
      this.line(on, { ...tags, ...cross.tags });
      offset += lengthOf(before) + lengthOf(on);
      rest = after;
    }
    this.line(rest, tags);
  }
}

function signedArea(ring: readonly Point[]): number {
  let sum = 0;
  for (let i = 1; i < ring.length; i++) sum += ring[i - 1]![0] * ring[i]![1] - ring[i]![0] * ring[i - 1]![1];
  return sum / 2;
}

const BRIDGE: Tags = { bridge: 'yes', layer: 1 };
const TUNNEL: Tags = { tunnel: 'yes', layer: -1 };

/** Street names of the grid, by grid line: long and short ones, so that labels of every length show. */
const U_STREETS = [
  'Mühlegasse', 'Schulstrasse', 'Lindenhofweg', 'Kirchgasse', 'Marktgasse', 'Bahnhofstrasse', 'Rosenweg',
  'Obere Rebbergstrasse', 'Sonnenbergstrasse', 'Friedhofweg', 'Industriestrasse',
];
const V_STREETS = [
  'Gleisweg', 'Untere Allmendstrasse', 'Postgasse', 'Hauptstrasse', 'Rathausgasse', 'Parkstrasse', 'Bürgerheimweg',
  'Oberfeldstrasse', 'Am Friedhof', 'Waldrandstrasse',
];
/** Grid streets that are one-way (in the direction they are drawn). */
const ONE_WAY = new Set(['Kirchgasse', 'Rathausgasse', 'Postgasse']);

/** Blocks of the grid (by their lower-left grid lines) that are not built up, and why. */
const PARK = { u: [150, 450], v: [280, 500] };
const CEMETERY = { u: [450, 750], v: [500, 720] };
const SCHOOL = { u: [-600, -450], v: [390, 500] };
const HOSPITAL = { u: [450, 600], v: [-270, -160] };
const OLD_TOWN = { u: [-300, 150], v: [-50, 280] };
/** The church square: the church stands alone in this block. */
const CHURCH = { u: [-300, -150], v: [60, 170] };

function inside(zone: { u: number[]; v: number[] }, u: number, v: number): boolean {
  return u >= zone.u[0]! && u <= zone.u[1]! && v >= zone.v[0]! && v <= zone.v[1]!;
}

/** A street segment of the grid between two neighbouring nodes runs through a park or the cemetery. */
function interrupted(u0: number, v0: number, u1: number, v1: number): boolean {
  const [mu, mv] = [(u0 + u1) / 2, (v0 + v1) / 2];
  const strictly = (zone: { u: number[]; v: number[] }) => mu > zone.u[0]! && mu < zone.u[1]! && mv > zone.v[0]! && mv < zone.v[1]!;
  return strictly(PARK) || strictly(CEMETERY);
}

/** The river Lindach, from the hills in the north into the lake in the south-west. */
const RIVER: Point[] = [[-560, 3600], [-760, 2800], [-900, 2000], [-1000, 1400], [-1050, 900], [-1010, 400], [-980, 0], [-1060, -350], [-1150, -700], [-1400, -960], [-1650, -1180]];
const LAKE = { cx: -2050, cy: -1550, rx: 720, ry: 480 };
const RAIL_Y = (x: number) => -520 + 0.05 * x;
const MOTORWAY_Y = -950;
const TRUNK_X = 1700;
/** A glider field south-west of the town: the centre of its runway. */
const AIRFIELD: Point = [-300, -2700];

/** Villages around the town: centre, name, population. */
const VILLAGES: [Point, string, number][] = [
  [[2600, 2200], 'Hinterberg', 820],
  [[-2500, 2500], 'Rietlingen', 1450],
  [[2300, -2500], 'Buchwil', 610],
];

export function makeTown(): TownFeature[] {
  const town = new TownBuilder();
  const next = seededRandom(47);
  water(town);
  landUse(town, next);
  streets(town);
  roadsAround(town);
  railways(town);
  airfield(town);
  buildings(town, next);
  villages(town, next);
  places(town);
  pointsOfInterest(town);
  boundaries(town);
  return town.features;
}

function water(town: TownBuilder): void {
  const lake = blob(LAKE.cx, LAKE.cy, LAKE.rx, LAKE.ry, 0.08, 7);
  town.area(lake, { natural: 'water', water: 'lake', name: 'Moossee', 'name:en': 'Lake Moos' });
  town.area(band(RIVER.slice(3), 28), { natural: 'water', water: 'river' });
  town.line(RIVER, { waterway: 'river', name: 'Lindach' });
  const brook: Point[] = [[1250, 2700], [950, 2000], [700, 1500], [350, 950], [-200, 860], [-700, 760], [-1030, 700]];
  const [upstream, culvert, downstream] = crossing(brook, lengthOf(brook.slice(0, 4)) + 450, 900);
  town.line(upstream, { waterway: 'stream', name: 'Dorfbach' });
  town.line(culvert, { waterway: 'stream', name: 'Dorfbach', tunnel: 'culvert', layer: -1 });
  town.line(downstream, { waterway: 'stream', name: 'Dorfbach' });
  town.line([[450, -1250], [900, -1500], [1500, -1820]], { waterway: 'ditch', intermittent: 'yes' });
  town.area(blob(950, -1560, 45, 30, 0.1, 11), { natural: 'water', water: 'pond', intermittent: 'yes' });
  town.area(blob(-300, 420, 30, 18, 0.1, 12), { natural: 'water', water: 'pond', name: 'Schwanenweiher' });
  // A landing stage on the lake's north shore, as an area and as a line.
  town.area(box(-2080, -1160, -2060, -1060), { man_made: 'pier' });
  town.line([[-1900, -1060], [-1900, -1190]], { man_made: 'pier' });
}

function landUse(town: TownBuilder, next: () => number): void {
  town.area(gridRect(0, 225, 1580, 1070), { landuse: 'residential' });
  town.area(box(950, -450, 1550, 150), { landuse: 'industrial', name: 'Industriegebiet Ost' });
  const zone = (z: { u: number[]; v: number[] }, inset: number) =>
    gridRect((z.u[0]! + z.u[1]!) / 2, (z.v[0]! + z.v[1]!) / 2, z.u[1]! - z.u[0]! - 2 * inset, z.v[1]! - z.v[0]! - 2 * inset);
  town.area(zone(PARK, 8), { leisure: 'park', name: 'Stadtpark' });
  town.area(zone(CEMETERY, 8), { landuse: 'cemetery', name: 'Friedhof Altwasser' });
  town.area(zone(SCHOOL, 8), { amenity: 'school', name: 'Schulhaus Oberfeld' });
  town.area(zone(HOSPITAL, 8), { amenity: 'hospital', name: 'Spital Altwasser' });
  town.area(blob(-2700, 1500, 700, 450, 0.15, 21), { landuse: 'forest', name: 'Chrüzwald' });
  town.area(blob(2600, -900, 420, 330, 0.15, 22), { natural: 'wood', name: 'Hinterberger Holz' });
  town.area(blob(-1180, 300, 110, 420, 0.1, 23), { landuse: 'grass' });
  town.area(blob(-1700, -800, 200, 100, 0.1, 24), { landuse: 'meadow' });
  town.area(blob(-600, -1250, 220, 160, 0.1, 25), { landuse: 'allotments', name: 'Familiengärten Moos' });
  // Fields around the town: 600-m parcels (less a hedge) where nothing else is.
  const reserved: Point[][] = [
    box(-1300, -800, 1800, 1050),
    box(LAKE.cx - 800, LAKE.cy - 560, LAKE.cx + 800, LAKE.cy + 560),
    box(-3400, 1000, -2000, 2000),
    box(2100, -1300, 3100, -500),
    box(-1200, -1450, 0, -1050),
    box(AIRFIELD[0] - 500, AIRFIELD[1] - 200, AIRFIELD[0] + 500, AIRFIELD[1] + 200),
    ...VILLAGES.map(([[x, y]]) => box(x - 350, y - 300, x + 350, y + 300)),
  ];
  for (let y = -3600; y < 3600; y += 600) {
    for (let x = -3600; x < 3600; x += 600) {
      const parcel = box(x + 12, y + 12, x + 588, y + 588);
      if (reserved.some((r) => overlaps(parcel, r)) || Math.abs(x + 300 - riverX(y + 300)) < 320) continue;
      const pick = next();
      town.area(parcel, pick < 0.65 ? { landuse: 'farmland' } : pick < 0.85 ? { landuse: 'meadow' } : { landuse: 'forest' });
    }
  }
}

/** The river's x at height y (north of its mouth), for keeping fields off its banks. */
function riverX(y: number): number {
  for (let i = 1; i < RIVER.length; i++) {
    const [a, b] = [RIVER[i - 1]!, RIVER[i]!];
    if ((y - a[1]) * (y - b[1]) <= 0) return a[0] + ((b[0] - a[0]) * (y - a[1])) / (b[1] - a[1]);
  }
  return Number.POSITIVE_INFINITY;
}

function overlaps(a: Point[], b: Point[]): boolean {
  const extent = (ring: Point[]) => [Math.min(...ring.map((p) => p[0])), Math.min(...ring.map((p) => p[1])), Math.max(...ring.map((p) => p[0])), Math.max(...ring.map((p) => p[1]))];
  const [aw, as, ae, an] = extent(a);
  const [bw, bs, be, bn] = extent(b);
  return aw! < be! && ae! > bw! && as! < bn! && an! > bs!;
}

/** The grid streets of the town, segment by segment, named per line; main ones carry their class. */
function streets(town: TownBuilder): void {
  const classOf = (name: string): Tags => {
    if (name === 'Hauptstrasse') return { highway: 'primary', ref: '4' };
    if (name === 'Bahnhofstrasse') return { highway: 'secondary' };
    if (name === 'Oberfeldstrasse' || name === 'Schulstrasse') return { highway: 'tertiary' };
    return { highway: 'residential' };
  };
  GRID_U.forEach((u, i) => {
    const name = U_STREETS[i]!;
    for (let j = 1; j < GRID_V.length; j++) {
      const [v0, v1] = [GRID_V[j - 1]!, GRID_V[j]!];
      if (interrupted(u, v0, u, v1)) continue;
      town.line([grid(u, v0), grid(u, v1)], { ...classOf(name), name, ...(ONE_WAY.has(name) ? { oneway: 'yes' } : {}) });
    }
  });
  GRID_V.forEach((v, j) => {
    const name = V_STREETS[j]!;
    for (let i = 1; i < GRID_U.length; i++) {
      const [u0, u1] = [GRID_U[i - 1]!, GRID_U[i]!];
      if (interrupted(u0, v, u1, v)) continue;
      town.line([grid(u0, v), grid(u1, v)], { ...classOf(name), name, ...(ONE_WAY.has(name) ? { oneway: 'yes' } : {}) });
    }
  });
  // Paths across the park and along the river and the lake; service roads of the hospital and industry.
  town.line([grid(160, 290), grid(300, 390), grid(440, 490)], { highway: 'footway', name: 'Parkpromenade' });
  town.line([grid(160, 490), grid(300, 390), grid(440, 290)], { highway: 'footway' });
  town.line([grid(300, 280), grid(300, 500)], { highway: 'cycleway' });
  town.line([[-960, 1300], [-990, 800], [-950, 300], [-925, 0], [-1000, -350], [-1090, -650]], { highway: 'footway', name: 'Uferweg an der Lindach' });
  town.line(blob(LAKE.cx, LAKE.cy, LAKE.rx + 110, LAKE.ry + 110, 0.05, 7, 20).slice(2, 14), { highway: 'path', name: 'Seeuferweg' });
  town.line([grid(525, -160), grid(525, -215), grid(575, -215)], { highway: 'service' });
  town.line([[950, -50], [1400, -50], [1400, -380], [1000, -380]], { highway: 'service', name: 'Werkstrasse' });
  town.line([[1400, -200], [1700, -200]], { highway: 'service' });
  town.line([[1150, -50], [1150, 100]], { highway: 'service', service: 'parking_aisle' });
  // Farm tracks and forest paths.
  town.line([[-1250, 1800], [-1700, 2100], [-2200, 2150], [-2600, 1900]], { highway: 'track' });
  town.line([[800, -1100], [1000, -2000], [1200, -2900]], { highway: 'track' });
  town.line([[-400, 1150], [200, 1400], [900, 1300]], { highway: 'track' });
  town.line([[-3200, 1300], [-2800, 1500], [-2300, 1450]], { highway: 'path', name: 'Waldlehrpfad' });
  town.line([[2300, -750], [2600, -950], [2900, -850]], { highway: 'path' });
}

/** Main roads beyond the grid: the motorway, the trunk road, and the roads to the villages. */
function roadsAround(town: TownBuilder): void {
  const west = grid(GRID_U[0]!, 60);
  const east = grid(GRID_U.at(-1)!, 60);
  const westRoad: Point[] = [west, [-1200, -160], [-2000, -380], [-3000, -700], [-3600, -820]];
  town.road(westRoad.slice(0, 2), { highway: 'primary', ref: '4', name: 'Hauptstrasse' }, [
    { at: distanceAlong(westRoad, ([x]) => x <= riverX(-140)), span: 60, tags: BRIDGE },
  ]);
  town.line(westRoad.slice(1), { highway: 'primary', ref: '4', name: 'Mooserstrasse' });
  town.line([east, [1200, 260], [TRUNK_X, 310]], { highway: 'primary', ref: '4', name: 'Hauptstrasse' });
  town.line([[TRUNK_X, 310], [2600, 420], [3600, 480]], { highway: 'secondary', name: 'Hinterbergstrasse' });

  const station = grid(0, GRID_V[0]!);
  const south: Point[] = [station, [193, -950], [400, -1600], [1300, -2100], [2300, -2400], [3000, -3600]];
  town.road(south, { highway: 'secondary', name: 'Buchwilerstrasse' }, [
    { at: distanceAlong(south, ([x, y]) => y <= RAIL_Y(x)), span: 70, tags: TUNNEL },
    { at: distanceAlong(south, ([, y]) => y <= MOTORWAY_Y), span: 90, tags: BRIDGE },
  ]);
  const north: Point[] = [grid(GRID_U[2]!, GRID_V.at(-1)!), [-700, 1400], [-1500, 1900], [-2500, 2500], [-3000, 3600]];
  town.road(north, { highway: 'tertiary', name: 'Rietlingerstrasse' }, [
    { at: distanceAlong(north, ([x, y]) => x <= riverX(y)), span: 60, tags: BRIDGE },
  ]);
  town.line([grid(GRID_U.at(-1)!, 500), [1700, 900], [2600, 2200], [2900, 3600]], { highway: 'tertiary', name: 'Oberfeldstrasse' });
  const lakeRoad: Point[] = [[-1200, -160], [-1500, -600], [-1800, -1000]];
  town.road(lakeRoad, { highway: 'unclassified', name: 'Seestrasse' }, [
    { at: distanceAlong(lakeRoad, ([x, y]) => y <= RAIL_Y(x)), span: 40, tags: BRIDGE },
    { at: distanceAlong(lakeRoad, ([, y]) => y <= MOTORWAY_Y), span: 50, tags: BRIDGE },
  ]);
  // A footway under the railway at the station, and a footbridge over the river.
  const underpass: Point[] = [[20, -440], [20, -600]];
  town.road(underpass, { highway: 'footway', name: 'Bahnhofunterführung' }, [{ at: distanceAlong(underpass, ([x, y]) => y <= RAIL_Y(x)), span: 40, tags: TUNNEL }]);
  const footbridge: Point[] = [[-850, 1000], [-1200, 1050]];
  town.road(footbridge, { highway: 'footway', name: 'Lindachsteg' }, [{ at: distanceAlong(footbridge, ([x, y]) => x <= riverX(y)), span: 40, tags: BRIDGE }]);
  town.line([[-3600, 2600], [-2500, 2500]], { highway: 'unclassified', name: 'Alte Landstrasse nach Rietlingen' });

  const trunk: Point[] = [[TRUNK_X, -3600], [TRUNK_X, 3600]];
  town.road(trunk, { highway: 'trunk', ref: '2', name: 'Kantonsstrasse' }, [
    { at: 3600 + MOTORWAY_Y, span: 90, tags: BRIDGE },
    { at: 3600 + RAIL_Y(TRUNK_X), span: 70, tags: BRIDGE },
  ]);

  // Two one-way carriageways, 14 m apart: westbound drawn east to west.
  const motorway = { highway: 'motorway', ref: 'A 2', name: 'Autobahn A2', oneway: 'yes' };
  const crossings = (from: number, sign: 1 | -1) => [
    { at: from + sign * riverX(MOTORWAY_Y), span: 90, tags: BRIDGE },
    { at: from + sign * 2600, span: 600, tags: { ...TUNNEL, name: 'Hinterbergtunnel' } },
  ];
  town.road([[-3600, MOTORWAY_Y - 7], [3600, MOTORWAY_Y - 7]], motorway, crossings(3600, 1));
  town.road([[3600, MOTORWAY_Y + 7], [-3600, MOTORWAY_Y + 7]], motorway, crossings(3600, -1));
  const link = { highway: 'motorway_link', oneway: 'yes' };
  town.line([[-250, MOTORWAY_Y - 7], [0, -935], [172, -850]], link);
  town.line([[214, -1050], [350, -975], [600, MOTORWAY_Y - 7]], link);
  town.line([[600, MOTORWAY_Y + 7], [380, -925], [172, -850]], link);
  town.line([[214, -1050], [0, -970], [-250, MOTORWAY_Y + 7]], link);
  town.line([[1500, MOTORWAY_Y + 7], [1640, -915], [TRUNK_X, -860]], { highway: 'trunk_link', oneway: 'yes' });
  town.line([[TRUNK_X, -1040], [1640, -985], [1500, MOTORWAY_Y - 7]], { highway: 'trunk_link', oneway: 'yes' });
}

function railways(town: TownBuilder): void {
  const rail: Point[] = [-3600, -1200, 0, 1200, 3600].map((x): Point => [x, RAIL_Y(x)]);
  town.road(rail, { railway: 'rail', name: 'Seetallinie', usage: 'main' }, [
    { at: distanceAlong(rail, ([x]) => x >= riverX(RAIL_Y(x))), span: 80, tags: BRIDGE },
  ]);
  town.line([[-400, RAIL_Y(-400) + 12], [500, RAIL_Y(500) + 12]], { railway: 'rail', service: 'siding' });
  const light: Point[] = [[75, -500], grid(150, 60), grid(300, 170), [900, 900], [1700, 1800], [2500, 2300]];
  town.road(light, { railway: 'light_rail', name: 'Stadtbahn' }, [{ at: 300, span: 520, tags: TUNNEL }]);
}

/** The glider field: its area, a grass runway, a taxiway. Small fields have an ICAO code but no IATA. */
function airfield(town: TownBuilder): void {
  const [x, y] = AIRFIELD;
  town.area(box(x - 420, y - 120, x + 420, y + 120), { aeroway: 'aerodrome', name: 'Flugplatz Moos', icao: 'LSZM' });
  town.line([[x - 350, y - 30], [x + 350, y + 30]], { aeroway: 'runway', ref: '08/26' });
  town.line([[x - 300, y - 60], [x + 200, y - 20], [x + 250, y + 10]], { aeroway: 'taxiway' });
}

/** Houses along the blocks of the grid: terraces in the old town, detached houses elsewhere. */
function buildings(town: TownBuilder, next: () => number): void {
  for (let i = 1; i < GRID_U.length; i++) {
    for (let j = 1; j < GRID_V.length; j++) {
      const [u0, u1, v0, v1] = [GRID_U[i - 1]!, GRID_U[i]!, GRID_V[j - 1]!, GRID_V[j]!];
      const [cu, cv] = [(u0 + u1) / 2, (v0 + v1) / 2];
      if ([PARK, CEMETERY, SCHOOL, HOSPITAL, CHURCH].some((zone) => inside(zone, cu, cv))) continue;
      const dense = inside(OLD_TOWN, cu, cv);
      const street = V_STREETS[j - 1]!;
      const count = dense ? 6 : 3;
      const width = (u1 - u0 - 20) / count;
      for (let k = 0; k < count; k++) {
        for (const side of [0, 1] as const) {
          const depth = dense ? 14 : 10 + next() * 4;
          const w = dense ? width - 1 : width * (0.4 + next() * 0.15);
          const cx = u0 + 10 + width * (k + 0.5);
          const cy = side === 0 ? v0 + 8 + depth / 2 : v1 - 8 - depth / 2;
          const levels = dense ? 3 + Math.floor(next() * 3) : 1 + Math.floor(next() * 2);
          const number = 2 * k + side + 1;
          town.area(gridRect(cx, cy, w, depth), {
            building: dense ? 'apartments' : 'house',
            'building:levels': levels,
            ...(next() < 0.6 ? { height: levels * 3 + 2 } : {}),
            'addr:housenumber': String(number),
            'addr:street': side === 0 ? street : V_STREETS[j]!,
          });
        }
      }
    }
  }
  // Landmarks and larger buildings.
  town.area(gridRect(-225, 115, 18, 40), { building: 'church', height: 42, name: 'Reformierte Kirche', 'addr:housenumber': '1', 'addr:street': 'Kirchgasse' });
  town.area(gridRect(-525, 445, 60, 24), { building: 'school', height: 12, 'addr:housenumber': '12', 'addr:street': 'Schulstrasse' });
  town.area(gridRect(525, -215, 50, 30), { building: 'hospital', height: 22, 'addr:housenumber': '3', 'addr:street': 'Spitalweg' });
  town.area(box(40, -500, 110, -486), { building: 'train_station', height: 9, name: 'Bahnhof Altwasser' });
  for (let k = 0; k < 6; k++) {
    const [x, y] = [1020 + (k % 3) * 130, -300 + Math.floor(k / 3) * 200];
    town.area(box(x, y, x + 90 + next() * 20, y + 45 + next() * 20), { building: 'industrial', height: 8 + Math.round(next() * 6) });
  }
}

/** Each village: a few houses along its street, its residential area. */
function villages(town: TownBuilder, next: () => number): void {
  VILLAGES.forEach(([[x, y], name], n) => {
    town.area(blob(x, y, 300, 230, 0.1, 30 + n), { landuse: 'residential' });
    const street = `Dorfstrasse ${name}`;
    town.line([[x - 300, y - 40], [x, y], [x + 300, y + 50]], { highway: 'residential', name: street });
    for (let k = 0; k < 10; k++) {
      const along = -250 + k * 55;
      const side = k % 2 === 0 ? 1 : -1;
      const [bx, by] = [x + along, y + (along * 45) / 300 + side * (20 + next() * 10)];
      town.area(box(bx - 7, by - 6, bx + 7 + next() * 6, by + 6), { building: k === 4 ? 'farm' : 'house', 'addr:housenumber': String(k + 1), 'addr:street': street });
    }
  });
}

function places(town: TownBuilder): void {
  town.point([0, 160], { place: 'town', name: 'Altwasser', population: 14200 });
  town.point(grid(300, 600), { place: 'suburb', name: 'Oberfeld', population: 3900 });
  town.point([-720, -330], { place: 'suburb', name: 'Seewinkel', population: 2600 });
  town.point(grid(-80, 130), { place: 'neighbourhood', name: 'Altstadt' });
  town.point(grid(-620, 200), { place: 'neighbourhood', name: 'Mühlequartier' });
  town.point([1250, -120], { place: 'neighbourhood', name: 'Industrie Ost' });
  for (const [point, name, population] of VILLAGES) town.point([point[0], point[1] + 80], { place: 'village', name, population });
  town.point([-2950, -600], { place: 'hamlet', name: 'Moos', population: 90 });
}

/** Points of interest: [where, tags]. */
function pointsOfInterest(town: TownBuilder): void {
  const pois: [Point, Tags][] = [
    [[75, -493], { railway: 'station', name: 'Altwasser' }],
    [grid(-525, 445), { amenity: 'school', name: 'Schulhaus Oberfeld' }],
    [grid(525, -215), { amenity: 'hospital', name: 'Spital Altwasser' }],
    [grid(-225, 115), { amenity: 'place_of_worship', religion: 'christian', name: 'Reformierte Kirche' }],
    [grid(380, 30), { amenity: 'place_of_worship', religion: 'christian', name: 'St. Martin' }],
    [grid(300, 390), { leisure: 'park', name: 'Stadtpark' }],
    [grid(-75, 100), { amenity: 'townhall', name: 'Gemeindehaus' }],
    [grid(-170, 20), { tourism: 'museum', name: 'Ortsmuseum Altwasser' }],
    [grid(-130, 75), { amenity: 'cafe', name: 'Café Lindenhof' }],
    [grid(60, 45), { amenity: 'cafe', name: 'Kafi Zentral' }],
    [grid(-260, 45), { amenity: 'restaurant', name: 'Restaurant Sonne' }],
    [grid(210, 180), { amenity: 'restaurant', name: 'Gasthof zum Hirschen' }],
    [grid(-30, 185), { amenity: 'restaurant', name: 'Pizzeria Da Marco' }],
    [grid(-200, 180), { amenity: 'bar', name: 'Bar Lindach' }],
    [grid(120, -40), { amenity: 'fast_food', name: 'Kebab Haus' }],
    [grid(-60, -35), { amenity: 'bank', name: 'Raiffeisenbank' }],
    [grid(240, 70), { amenity: 'bank', name: 'Kantonalbank' }],
    [grid(-150, 130), { amenity: 'pharmacy', name: 'Apotheke am Markt' }],
    [grid(-330, 250), { amenity: 'library', name: 'Gemeindebibliothek' }],
    [grid(90, 70), { amenity: 'post_office', name: 'Post Altwasser' }],
    [grid(420, -120), { shop: 'supermarket', name: 'Coop' }],
    [grid(-420, -110), { shop: 'supermarket', name: 'Migros' }],
    [grid(-110, -20), { shop: 'bakery', name: 'Bäckerei Frei' }],
    [grid(160, 160), { shop: 'books', name: 'Buchhandlung Seiler' }],
    [[1500, 120], { amenity: 'fuel', name: 'Tankstelle Ost' }],
    [[90, -470], { highway: 'bus_stop', name: 'Altwasser, Bahnhof' }],
    [grid(-20, 75), { highway: 'bus_stop', name: 'Altwasser, Post' }],
    [grid(300, 515), { highway: 'bus_stop', name: 'Oberfeld' }],
    [[-700, -280], { highway: 'bus_stop', name: 'Seewinkel' }],
    [[-1950, -1080], { leisure: 'marina', name: 'Bootshafen Moos' }],
  ];
  for (const [point, tags] of pois) town.point(point, tags);
}

/** The municipality, the district to the east, the canton line and, far east, a national border. */
function boundaries(town: TownBuilder): void {
  const municipality = blob(0, 100, 2300, 2000, 0.08, 41, 24);
  town.line([...municipality, municipality[0]!], { boundary: 'administrative', admin_level: 8, name: 'Altwasser' });
  town.line([[2050, -3600], [2150, -800], [1950, 1200], [2200, 3600]], { boundary: 'administrative', admin_level: 6 });
  town.line([[-3600, 3100], [0, 3300], [3600, 3000]], { boundary: 'administrative', admin_level: 4 });
  town.line([[3350, -3600], [3300, 0], [3400, 3600]], { boundary: 'administrative', admin_level: 2 });
}
