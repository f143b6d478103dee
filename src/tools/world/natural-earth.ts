import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Feature, LineString, MultiLineString, MultiPolygon, Polygon, Position } from 'geojson';
import { feature, mesh, neighbors } from 'topojson-client';
import type { GeometryCollection, GeometryObject, Topology } from 'topojson-specification';
import { MAX_LATITUDE } from '../../platform/web-mercator.js';

/**
 * Natural Earth as npm `world-atlas` ships it: TopoJSON of the admin-0 countries and of the land,
 * at three scales. Borders and coastlines come from the topology's arcs, so they line up exactly
 * with the fills and a border is never drawn twice or over a coastline.
 */

export type NaturalEarthScale = '110m' | '50m' | '10m';

export interface CountryProperties {
  name: string;
  /** ISO 3166-1 numeric code as world-atlas gives it ("076"); absent for a few disputed areas. */
  iso_n3?: string;
}

export interface NaturalEarth {
  land: Feature<Polygon | MultiPolygon, null>[];
  countries: Feature<Polygon | MultiPolygon, CountryProperties>[];
  /** Land borders between countries: the arcs two different countries share. */
  borders: LineString[];
  /** The land's outline, without the cuts Natural Earth makes along the antimeridian and the pole. */
  coastline: LineString[];
}

type Countries = Topology<{ countries: GeometryCollection<{ name: string }>; land: GeometryCollection }>;
type Land = Topology<{ land: GeometryCollection }>;

const require = createRequire(import.meta.url);

function readTopology<T>(file: string): T {
  return JSON.parse(readFileSync(require.resolve(`world-atlas/${file}`), 'utf8')) as T;
}

/**
 * world-atlas is made for spherical rendering (d3-geo): a ring may cross the antimeridian, with a
 * jump of nearly 360° in longitude, and Antarctica's ring goes round the pole. For a flat map the
 * longitudes are made continuous (past ±180°, which tiling wraps round), and a ring that goes round
 * a pole is closed along it.
 */
export function unwrap(points: readonly Position[]): Position[] {
  let offset = 0;
  return points.map((point, i) => {
    const previous = points[i - 1];
    if (previous) {
      const step = point[0]! - previous[0]!;
      if (step > 180) offset -= 360;
      else if (step < -180) offset += 360;
    }
    return offset === 0 ? point : [point[0]! + offset, point[1]!];
  });
}

function planarArea(ring: readonly Position[]): number {
  let area = 0;
  for (let i = 1; i < ring.length; i++) area += (ring[i]![0]! - ring[i - 1]![0]!) * (ring[i]![1]! + ring[i - 1]![1]!);
  return area / 2;
}

/** A ring of the sphere as a ring of the plane; null when it is flat there (a ring along a pole). */
export function planarRing(ring: readonly Position[]): Position[] | null {
  const points = unwrap(ring);
  const first = points[0]!;
  const last = points.at(-1)!;
  if (Math.abs(last[0]! - first[0]!) > 180) {
    // Around a pole: down to it, along it, and back up.
    const pole = points.reduce((sum, p) => sum + p[1]!, 0) < 0 ? -90 : 90;
    points.push([last[0]!, pole], [first[0]!, pole], first);
  }
  return Math.abs(planarArea(points)) < 1e-6 ? null : points;
}

function planarPolygon(rings: readonly Position[][]): Position[][] | null {
  const planar = rings.map(planarRing).filter((ring) => ring !== null);
  return planar.length ? planar : null;
}

function planarGeometry(geometry: Polygon | MultiPolygon): Polygon | MultiPolygon {
  if (geometry.type === 'Polygon') return { type: 'Polygon', coordinates: planarPolygon(geometry.coordinates) ?? [] };
  return { type: 'MultiPolygon', coordinates: geometry.coordinates.map(planarPolygon).filter((p) => p !== null) };
}

function polygons(collection: GeoJSON.FeatureCollection | GeoJSON.Feature): Feature<Polygon | MultiPolygon>[] {
  const features = collection.type === 'FeatureCollection' ? collection.features : [collection];
  return features
    .filter((f): f is Feature<Polygon | MultiPolygon> => f.geometry?.type === 'Polygon' || f.geometry?.type === 'MultiPolygon')
    .map((f) => ({ ...f, geometry: planarGeometry(f.geometry) }))
    .filter((f) => f.geometry.coordinates.length > 0);
}

function lines(geometry: MultiLineString): LineString[] {
  return geometry.coordinates.map((coordinates) => ({ type: 'LineString', coordinates: unwrap(coordinates) }));
}

/** Beyond this latitude Web Mercator has nothing to show; Natural Earth closes Antarctica there. */
const mercatorLimit = MAX_LATITUDE;

function onAntimeridian(lon: number): boolean {
  return Math.abs(Math.abs(lon) - 180) < 1e-4;
}

/** A segment that Natural Earth adds to close a polygon, not a real shore. */
function isCut(a: Position, b: Position): boolean {
  const alongAntimeridian = onAntimeridian(a[0]!) && a[0] === b[0];
  const pastPole = Math.abs(a[1]!) >= mercatorLimit && Math.abs(b[1]!) >= mercatorLimit;
  return alongAntimeridian || pastPole;
}

/** Splits lines where they run along a cut, leaving only the real shore. */
export function withoutCuts(input: readonly LineString[]): LineString[] {
  const out: LineString[] = [];
  for (const line of input) {
    let run: Position[] = [];
    const flush = () => {
      if (run.length >= 2) out.push({ type: 'LineString', coordinates: run });
      run = [];
    };
    line.coordinates.forEach((point, i) => {
      const previous = line.coordinates[i - 1];
      if (previous && isCut(previous, point)) flush();
      run.push(point);
    });
    flush();
  }
  return out;
}

export function readNaturalEarth(scale: NaturalEarthScale): NaturalEarth {
  const countries = readTopology<Countries>(`countries-${scale}.json`);
  const land = readTopology<Land>(`land-${scale}.json`);
  const countryFeatures = polygons(feature(countries, countries.objects.countries)).map((f) => ({
    type: 'Feature' as const,
    geometry: f.geometry,
    properties: {
      name: String(f.properties?.name),
      ...(f.id === undefined ? {} : { iso_n3: String(f.id) }),
    },
  }));
  return {
    land: polygons(feature(land, land.objects.land)).map((f) => ({ type: 'Feature', geometry: f.geometry, properties: null })),
    countries: countryFeatures,
    borders: lines(mesh(countries, countries.objects.countries, (a, b) => a !== b)),
    coastline: withoutCuts(lines(mesh(land, land.objects.land, (a, b) => a === b))),
  };
}

/**
 * A colour index per country such that neighbours differ, so a style can tint countries apart:
 * DSatur (most constrained country first), giving each the least used of the allowed colours, which
 * keeps the tints evenly spread. A new colour is opened only when all `colors` are taken around it.
 */
export function colorGraph(names: readonly string[], adjacency: readonly (readonly number[])[], colors: number): number[] {
  const color = new Array<number>(names.length).fill(-1);
  const used: number[] = [];
  for (let done = 0; done < names.length; done++) {
    let best = -1;
    let bestSaturation = -1;
    for (let i = 0; i < names.length; i++) {
      if (color[i] !== -1) continue;
      const saturation = new Set(adjacency[i]!.map((j) => color[j]).filter((c) => c !== -1)).size;
      const better =
        saturation > bestSaturation ||
        (saturation === bestSaturation && adjacency[i]!.length > adjacency[best]!.length) ||
        (saturation === bestSaturation && adjacency[i]!.length === adjacency[best]!.length && names[i]! < names[best]!);
      if (better) {
        best = i;
        bestSaturation = saturation;
      }
    }
    const taken = new Set(adjacency[best]!.map((j) => color[j]));
    let pick = -1;
    for (let c = 0; c < Math.max(colors, used.length); c++) {
      if (!taken.has(c) && (pick === -1 || (used[c] ?? 0) < (used[pick] ?? 0))) pick = c;
    }
    if (pick === -1) pick = used.length;
    color[best] = pick;
    used[pick] = (used[pick] ?? 0) + 1;
  }
  return color;
}

/**
 * Colour indexes by country name, from the most detailed topology (it has every country of the
 * coarser ones, and every land border), so a country keeps its tint at every zoom.
 */
export function countryColors(colors: number): Map<string, number> {
  const topology = readTopology<Countries>('countries-10m.json');
  const geometries = topology.objects.countries.geometries as GeometryObject[];
  const names = geometries.map((g) => String((g as { properties?: { name?: string } }).properties?.name));
  const color = colorGraph(names, neighbors(geometries), colors);
  return new Map(names.map((name, i) => [name, color[i]!]));
}
