/**
 * The searchable names of one imported OpenStreetMap extract (`meridian maps import`), built in
 * the import from the extract's features (tools/osm/geocoding-index.ts reads them with osmium) and
 * saved beside its maps (index-file.ts), in the layout of the world index (place-index.ts):
 * flat typed arrays and string arrays, names with their folded words in a dictionary
 * (dictionary.ts), and a grid for reverse lookups.
 *
 * Entries:
 *   - streets: one per named street (`highway=*` way with a name) per place, merged from its ways
 *     (a way that runs from one place into another is cut where it crosses: each place has its part);
 *   - addresses: `addr:housenumber` with `addr:street` (or `addr:place`) on nodes, buildings and
 *     entrances, named `<street> <number>`, and the numbers `addr:interpolation` ways stand for
 *     between two address nodes, placed along the way;
 *   - points of interest: named nodes and areas with a class (amenity, shop, tourism, ...);
 *   - places: `place=*` nodes (city and town as municipality, village and hamlet as locality,
 *     suburb and neighbourhood as neighbourhood).
 * Each has every name the extract gives it (`name`, `name:xx`) and a context: the place it lies in
 * (the extract's place node whose reach holds it, else the world's GeoNames place, as reverse.ts
 * finds it) and the country (the world's polygons). The context's words (the place's and the
 * country's names) are in the dictionary, so that `Willow Street, Oakland` finds the street.
 */

import type { Geometry, Position } from 'geojson';
import { buildDictionary, prefixSums, type Dictionary } from '../dictionary.js';
import { fold } from '../normalize.js';
import { ENTRY_KINDS, NO_COUNTRY, type PlaceIndex } from '../place-index.js';
import { countryAt, placeAt } from '../reverse.js';

/** Bumped whenever the index holds something else or in another layout. */
export const EXTRACT_INDEX_FORMAT = 1;

/** What an entry is, as the API names it (`place_type`). */
export const EXTRACT_KINDS = ['street', 'address', 'poi', 'municipality', 'locality', 'neighbourhood'] as const;
export type ExtractKind = (typeof EXTRACT_KINDS)[number];
export const STREET = 0;
export const ADDRESS = 1;
export const POI = 2;

/** An OpenStreetMap object as osmium exports it: its type and id, tags and geometry. */
export interface OsmFeature {
  type: 'node' | 'way' | 'relation';
  id: number;
  tags: Record<string, string>;
  geometry: Geometry;
}

/** The place and country an entry is in. */
export interface ExtractContext {
  /** The place: `municipality.2657896` (GeoNames) or `locality.n240109189` (the extract's node). */
  placeId: string | null;
  placeText: string | null;
  placeRef: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string | null;
}

export interface ExtractIndex extends Dictionary {
  format: number;
  /** The map id the extract was imported as. */
  map: string;
  kind: Uint8Array;
  lon: Float64Array;
  lat: Float64Array;
  /** [west, south, east, north] of each entry (a street's ways; a point's own position). */
  box: Float64Array;
  /** 0 node, 1 way, 2 relation: of the entry's object (a street's first way). */
  osmType: Uint8Array;
  osmId: Float64Array;
  /** Which street of its way an entry is (0 for all but the second and later parts of a way through several places); absent in indexes written before streets were cut at places. */
  part?: Uint8Array;
  /** 0..1, as the world's: a street or an address counts as a small village. */
  importance: Float32Array;
  /** Index into `categories`: `amenity=cafe`, `highway=residential`, `place=village`; 0 is none. */
  category: Uint16Array;
  categories: string[];
  /** An address's house number; '' for other entries. */
  housenumber: string[];
  /** Index into `contexts`. */
  context: Uint32Array;
  contexts: ExtractContext[];
  /** The words of each context's place and country names, as word numbers. */
  contextWordStart: Uint32Array;
  contextWords: Uint32Array;
  /** The entry's first name; its names run to the next entry's first. */
  firstName: Uint32Array;
  languages: string[];
  nameEntry: Uint32Array;
  nameLanguage: Uint8Array;
  nameText: string[];
  /** Streets' lines, for reverse lookups: entry → parts [lineStart[e], lineStart[e + 1]), part → flat lon, lat pairs [partStart[p], partStart[p + 1]). */
  lineStart: Uint32Array;
  partStart: Uint32Array;
  coords: Float64Array;
  /** Entries by grid cell (a street in every cell its box touches): row-major from (gridWest, gridSouth). */
  gridWest: number;
  gridSouth: number;
  cellSize: number;
  columns: number;
  rows: number;
  cellStart: Uint32Array;
  cellEntry: Uint32Array;
}

const OSM_TYPES = ['node', 'way', 'relation'] as const;
/** Tags that make a named object a point of interest, in the order their value names its class. */
const POI_KEYS = ['amenity', 'shop', 'tourism', 'leisure', 'historic', 'office', 'craft', 'healthcare', 'sport', 'aeroway', 'railway', 'public_transport', 'man_made', 'natural', 'building'];
/** Named objects that are neither: lines (railways, rivers, boundaries) have names but no single place. */
const PLACE_KINDS: Record<string, { kind: ExtractKind; importance: number; reachKm: number }> = {
  city: { kind: 'municipality', importance: 0.7, reachKm: 10 },
  town: { kind: 'municipality', importance: 0.55, reachKm: 5 },
  village: { kind: 'locality', importance: 0.45, reachKm: 2 },
  hamlet: { kind: 'locality', importance: 0.35, reachKm: 1 },
  isolated_dwelling: { kind: 'locality', importance: 0.3, reachKm: 0.3 },
  suburb: { kind: 'neighbourhood', importance: 0.4, reachKm: 2 },
  quarter: { kind: 'neighbourhood', importance: 0.35, reachKm: 1 },
  neighbourhood: { kind: 'neighbourhood', importance: 0.3, reachKm: 0.7 },
};
/** Places that name where a street or an address is (neighbourhoods are parts of these). */
const SETTLEMENTS = new Set(['city', 'town', 'village', 'hamlet', 'isolated_dwelling']);
const MAJOR_ROADS = new Set(['motorway', 'trunk', 'primary', 'secondary', 'tertiary']);
const STREET_IMPORTANCE = 0.3;
const MAJOR_STREET_IMPORTANCE = 0.35;
const ADDRESS_IMPORTANCE = 0.3;
const POI_IMPORTANCE = 0.3;
/** The grid has at most about this many cells, whatever the extract's size. */
const MAX_CELLS = 1 << 20;
const MIN_CELL_DEGREES = 0.005;

interface Draft {
  kind: number;
  lon: number;
  lat: number;
  box: [number, number, number, number];
  osmType: number;
  osmId: number;
  /** 0, or which street of its way this is when the way runs through several places. */
  part?: number;
  importance: number;
  category: string;
  housenumber: string;
  context: number;
  names: { text: string; language: string }[];
  lines: Position[][];
}

/** The names of an object: `name` (no particular language), then every `name:xx` of a two- or three-letter language. */
function namesOf(tags: Record<string, string>): { text: string; language: string }[] {
  const names: { text: string; language: string }[] = [];
  if (tags.name) names.push({ text: tags.name, language: '' });
  for (const [key, value] of Object.entries(tags)) {
    const match = /^name:([a-z]{2,3})$/.exec(key);
    if (match && value) names.push({ text: value, language: match[1]! });
  }
  return names;
}

/** Lines of a geometry: a line's, a polygon's rings, every part's. */
function linesOf(geometry: Geometry): Position[][] {
  switch (geometry.type) {
    case 'Point':
      return [[geometry.coordinates]];
    case 'LineString':
      return [geometry.coordinates];
    case 'MultiLineString':
    case 'Polygon':
      return geometry.coordinates;
    case 'MultiPolygon':
      return geometry.coordinates.flat();
    default:
      return [];
  }
}

function boxOf(lines: readonly Position[][]): [number, number, number, number] {
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const line of lines) {
    for (const [lon, lat] of line as [number, number][]) {
      box[0] = Math.min(box[0], lon);
      box[1] = Math.min(box[1], lat);
      box[2] = Math.max(box[2], lon);
      box[3] = Math.max(box[3], lat);
    }
  }
  return box;
}

/** Where a point stands for an object: a node's position, an area's centroid (of its largest outer ring), a line's point nearest its box's centre. */
export function anchorOf(geometry: Geometry): [number, number] | null {
  if (geometry.type === 'Point') return [geometry.coordinates[0]!, geometry.coordinates[1]!];
  if (geometry.type === 'Polygon' || geometry.type === 'MultiPolygon') {
    const outers = geometry.type === 'Polygon' ? [geometry.coordinates[0]!] : geometry.coordinates.map((polygon) => polygon[0]!);
    let best: [number, number] | null = null;
    let largest = -1;
    for (const ring of outers) {
      // Relative to the ring's first corner: from whole longitudes and latitudes the cross products
      // (thousands) cancel down to a building's area (1e-8 square degrees), and rounding moved its
      // centroid by up to hundreds of metres (out of the building, streets away).
      const [ox, oy] = (ring[0] ?? [0, 0]) as [number, number];
      let area = 0;
      let x = 0;
      let y = 0;
      for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
        const [xi, yi, xj, yj] = [ring[i]![0]! - ox, ring[i]![1]! - oy, ring[j]![0]! - ox, ring[j]![1]! - oy];
        const cross = xj * yi - xi * yj;
        area += cross;
        x += (xj + xi) * cross;
        y += (yj + yi) * cross;
      }
      if (Math.abs(area) > largest && area !== 0) {
        largest = Math.abs(area);
        best = [ox + x / (3 * area), oy + y / (3 * area)];
      }
    }
    return best ?? boxCentre(boxOf(outers));
  }
  const lines = linesOf(geometry);
  if (lines.length === 0 || lines.every((line) => line.length === 0)) return null;
  return nearestOnLines(lines, boxCentre(boxOf(lines)));
}

const boxCentre = (box: readonly number[]): [number, number] => [(box[0]! + box[2]!) / 2, (box[1]! + box[3]!) / 2];

/** Metres per degree of longitude and latitude around a latitude (an equirectangular approximation, plenty within a street). */
export function metresPerDegree(lat: number): [number, number] {
  return [111_320 * Math.cos((lat * Math.PI) / 180), 110_574];
}

/** The point of the lines nearest `to`, and its distance in metres. */
export function nearestPoint(lines: readonly (readonly Position[])[], to: readonly [number, number]): { point: [number, number]; metres: number } {
  const [kx, ky] = metresPerDegree(to[1]);
  let best: [number, number] = [lines[0]![0]![0]!, lines[0]![0]![1]!];
  let bestSquared = Infinity;
  for (const line of lines) {
    for (let i = 0; i < line.length; i++) {
      const a = line[i]!;
      const b = line[Math.min(i + 1, line.length - 1)]!;
      const ax = (a[0]! - to[0]) * kx;
      const ay = (a[1]! - to[1]) * ky;
      const dx = (b[0]! - a[0]!) * kx;
      const dy = (b[1]! - a[1]!) * ky;
      const length = dx * dx + dy * dy;
      const t = length === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length));
      const px = ax + t * dx;
      const py = ay + t * dy;
      const squared = px * px + py * py;
      if (squared < bestSquared) {
        bestSquared = squared;
        best = [a[0]! + t * (b[0]! - a[0]!), a[1]! + t * (b[1]! - a[1]!)];
      }
    }
  }
  return { point: best, metres: Math.sqrt(bestSquared) };
}

function nearestOnLines(lines: readonly Position[][], to: [number, number]): [number, number] {
  return nearestPoint(lines, to).point;
}

/** The class of a point of interest (`amenity=cafe`), or null when the object is none. */
function poiCategory(tags: Record<string, string>): string | null {
  for (const key of POI_KEYS) {
    const value = tags[key];
    if (value && value !== 'no') return `${key}=${value}`;
  }
  return null;
}

/** A place node of the extract that streets and addresses can be in. */
interface Settlement {
  id: string;
  text: string;
  ref: string;
  lon: number;
  lat: number;
  reachKm: number;
}

/** Degrees of the cells settlements are looked up by: more than the largest reach (10 km) at latitudes up to 60°. */
const SETTLEMENT_CELL = 0.2;
const bucketOf = (lon: number, lat: number) => `${Math.floor(lon / SETTLEMENT_CELL)},${Math.floor(lat / SETTLEMENT_CELL)}`;

/** Finds the context (place and country) of points, from the extract's settlements and the world index. */
export class Contexts {
  readonly list: ExtractContext[] = [];
  readonly words: string[][] = [];
  private readonly byKey = new Map<string, number>();

  /** The settlements by cell of SETTLEMENT_CELL degrees, so that a point looks at those of 3 × 3 cells. */
  private readonly buckets = new Map<string, Settlement[]>();

  constructor(
    private readonly world: PlaceIndex,
    settlements: readonly Settlement[],
  ) {
    for (const settlement of settlements) {
      const key = bucketOf(settlement.lon, settlement.lat);
      const bucket = this.buckets.get(key);
      if (bucket) bucket.push(settlement);
      else this.buckets.set(key, [settlement]);
    }
  }

  at(lon: number, lat: number): number {
    let place: { id: string; text: string; ref: string } | null = null;
    let placeCountry = NO_COUNTRY;
    let best = Infinity;
    const [kx, ky] = metresPerDegree(lat);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const settlement of this.buckets.get(bucketOf(lon + dx * SETTLEMENT_CELL, lat + dy * SETTLEMENT_CELL)) ?? []) {
          const km = Math.hypot((settlement.lon - lon) * kx, (settlement.lat - lat) * ky) / 1000;
          if (km <= settlement.reachKm && km / settlement.reachKm < best) {
            best = km / settlement.reachKm;
            place = settlement;
          }
        }
      }
    }
    if (!place) {
      const found = placeAt(this.world, lon, lat, false);
      if (found) {
        const entry = found.entry;
        const id = this.world.geonamesId[entry]!;
        place = { id: `${ENTRY_KINDS[this.world.kind[entry]!]}.${id}`, text: this.world.nameText[this.world.firstName[entry]!]!, ref: `geonames:${id}` };
        placeCountry = this.world.country[entry]!;
      }
    }
    let country = countryAt(this.world, lon, lat);
    if (country === NO_COUNTRY) country = placeCountry;
    const code = country === NO_COUNTRY ? null : this.world.countries[country]!.code;
    const key = `${place?.ref ?? ''}|${code ?? ''}`;
    let number = this.byKey.get(key);
    if (number === undefined) {
      number = this.list.length;
      this.byKey.set(key, number);
      this.list.push({ placeId: place?.id ?? null, placeText: place?.text ?? null, placeRef: place?.ref ?? null, country: code });
      const words = new Set(place ? fold(place.text).split(' ') : []);
      if (country !== NO_COUNTRY) {
        // The country's names in every language the world index has (`usa`, `deutschland`).
        for (let name = this.world.firstName[this.world.countries[country]!.entry]!; name < this.world.nameEntry.length && this.world.nameEntry[name] === this.world.countries[country]!.entry; name++) {
          for (const word of fold(this.world.nameText[name]!).split(' ')) words.add(word);
        }
      }
      words.delete('');
      this.words.push([...words]);
    }
    return number;
  }
}

const positionKey = (position: Position) => `${position[0]},${position[1]}`;
/** House numbers between an interpolation way's ends, by its `addr:interpolation`. */
const INTERPOLATION_STEPS: Record<string, number> = { odd: 2, even: 2, all: 1 };
/** More numbers than this between two ends is a mistake in the data (a range typed for a whole town). */
const MAX_INTERPOLATED = 1000;

/**
 * The addresses an `addr:interpolation` way stands for (OpenStreetMap's way between two address
 * nodes: `odd`, `even`, `all` or a step): each number strictly between its ends' numbers, placed at
 * its share of the way's length (5 halfway between 1 and 9), named with its ends' street. Numbers
 * with letters (`10a`), ends on different streets and numbers that exist as addresses of their own
 * (`addresses`, which it adds to) are left out.
 */
function interpolated(object: OsmFeature, line: Position[], addressNodes: ReadonlyMap<string, { street: string; number: string }>, addresses: Set<string>, contexts: Contexts): Draft[] {
  const scheme = object.tags['addr:interpolation']!;
  const from = addressNodes.get(positionKey(line[0]!));
  const to = addressNodes.get(positionKey(line.at(-1)!));
  const step = INTERPOLATION_STEPS[scheme] ?? (/^[1-9]\d{0,3}$/.test(scheme) ? Number(scheme) : 0);
  if (!from || !to || step === 0 || !/^\d+$/.test(from.number) || !/^\d+$/.test(to.number)) return [];
  const street = object.tags['addr:street'] ?? from.street;
  if (fold(from.street) !== fold(to.street) && !object.tags['addr:street']) return [];
  const a = Number(from.number);
  const b = Number(to.number);
  const parity = scheme === 'odd' ? 1 : scheme === 'even' ? 0 : -1;
  if (parity >= 0 && (a % 2 !== parity || b % 2 !== parity)) return [];
  if (a === b || Math.abs(b - a) / step - 1 > MAX_INTERPOLATED) return [];
  // Metres along the way at each vertex (equirectangular around its start: plenty within a street).
  const [kx, ky] = metresPerDegree(line[0]![1]!);
  const along = [0];
  for (let i = 1; i < line.length; i++) along.push(along[i - 1]! + Math.hypot((line[i]![0]! - line[i - 1]![0]!) * kx, (line[i]![1]! - line[i - 1]![1]!) * ky));
  const total = along.at(-1)!;
  const drafts: Draft[] = [];
  const direction = Math.sign(b - a);
  for (let n = a + direction * step; direction > 0 ? n < b : n > b; n += direction * step) {
    const target = (total * (n - a)) / (b - a);
    let i = 1;
    while (i < line.length - 1 && along[i]! < target) i++;
    const span = along[i]! - along[i - 1]!;
    const t = span === 0 ? 0 : (target - along[i - 1]!) / span;
    const lon = line[i - 1]![0]! + t * (line[i]![0]! - line[i - 1]![0]!);
    const lat = line[i - 1]![1]! + t * (line[i]![1]! - line[i - 1]![1]!);
    const context = contexts.at(lon, lat);
    const key = `${fold(street)}|${n}|${context}`;
    if (addresses.has(key)) continue;
    addresses.add(key);
    drafts.push({
      kind: ADDRESS,
      lon,
      lat,
      box: [lon, lat, lon, lat],
      osmType: OSM_TYPES.indexOf(object.type),
      osmId: object.id,
      importance: ADDRESS_IMPORTANCE,
      category: `addr:interpolation=${scheme}`,
      housenumber: String(n),
      context,
      names: [{ text: street, language: '' }],
      lines: [],
    });
  }
  return drafts;
}

/** Where along a segment from a point in context `from` the context changes: found by halving the segment (to a metre or so). */
function boundary(a: Position, b: Position, from: number, contexts: Contexts): Position {
  let lo = 0;
  let hi = 1;
  for (let step = 0; step < 12; step++) {
    const mid = (lo + hi) / 2;
    if (contexts.at(a[0]! + mid * (b[0]! - a[0]!), a[1]! + mid * (b[1]! - a[1]!)) === from) lo = mid;
    else hi = mid;
  }
  const t = (lo + hi) / 2;
  return [a[0]! + t * (b[0]! - a[0]!), a[1]! + t * (b[1]! - a[1]!)];
}

/**
 * A line cut into runs that each lie in one context (place and country). Most ways lie in one:
 * when its ends and its middle vertex agree, the line is taken whole without looking at every vertex.
 */
export function splitByContext(line: Position[], contexts: Contexts): { context: number; line: Position[] }[] {
  const contextOf = (p: Position) => contexts.at(p[0]!, p[1]!);
  const first = contextOf(line[0]!);
  if (line.length < 2 || (contextOf(line.at(-1)!) === first && contextOf(line[line.length >> 1]!) === first)) return [{ context: first, line }];
  const runs: { context: number; line: Position[] }[] = [];
  let current = { context: first, line: [line[0]!] };
  for (let i = 1; i < line.length; i++) {
    const here = contextOf(line[i]!);
    if (here !== current.context) {
      const cut = boundary(line[i - 1]!, line[i]!, current.context, contexts);
      current.line.push(cut);
      runs.push(current);
      current = { context: here, line: [cut] };
    }
    current.line.push(line[i]!);
  }
  runs.push(current);
  return runs;
}

/** Builds the index of an extract whose data lies within `bounds`, with `world` for the places and countries its features are in. */
export function buildExtractIndex(map: string, features: Iterable<OsmFeature>, world: PlaceIndex, bounds: readonly [number, number, number, number]): ExtractIndex {
  const objects: OsmFeature[] = [];
  const at = new Map<string, number>();
  // osmium exports a closed way both as a line and as an area: the line is kept for a street, the area for anything else.
  for (const feature of features) {
    const key = `${feature.type}${feature.id}`;
    const known = at.get(key);
    if (known === undefined) {
      at.set(key, objects.length);
      objects.push(feature);
    } else if (!feature.tags.highway && (feature.geometry.type === 'Polygon' || feature.geometry.type === 'MultiPolygon')) {
      objects[known] = feature;
    }
  }

  const settlements: Settlement[] = [];
  for (const object of objects) {
    const place = PLACE_KINDS[object.tags.place ?? ''];
    if (!place || !object.tags.name || !SETTLEMENTS.has(object.tags.place!)) continue;
    const anchor = anchorOf(object.geometry);
    if (!anchor) continue;
    const id = `${place.kind}.${object.type[0]}${object.id}`;
    settlements.push({ id, text: object.tags.name, ref: `osm:${object.type}/${object.id}`, lon: anchor[0], lat: anchor[1], reachKm: place.reachKm });
  }
  const contexts = new Contexts(world, settlements);

  const drafts: Draft[] = [];
  const streets = new Map<string, Draft>();
  /** How many streets each way has begun (more than one when it runs through several places). */
  const wayStreets = new Map<number, number>();
  /** Address nodes by position: the ends of `addr:interpolation` ways. */
  const addressNodes = new Map<string, { street: string; number: string }>();
  const addresses = new Set<string>();
  for (const object of objects) {
    const { tags, geometry } = object;
    const anchor = anchorOf(geometry);
    if (!anchor) continue;
    const names = namesOf(tags);
    const osmType = OSM_TYPES.indexOf(object.type);
    const isLine = geometry.type === 'LineString' || geometry.type === 'MultiLineString';

    if (tags.highway && isLine && names.length > 0) {
      // A way that runs from one place into another is cut where it leaves the first, so each
      // place has its own street: the parts go to the streets of their places.
      const parts = new Map<number, Position[][]>();
      for (const line of linesOf(geometry)) {
        for (const part of splitByContext(line, contexts)) parts.set(part.context, [...(parts.get(part.context) ?? []), part.line]);
      }
      for (const [context, lines] of parts) {
        const key = `${fold(names[0]!.text)}|${context}`;
        const street = streets.get(key);
        if (street) {
          street.lines.push(...lines);
          for (const name of names) if (!street.names.some((n) => n.language === name.language)) street.names.push(name);
          if (MAJOR_ROADS.has(tags.highway)) street.importance = MAJOR_STREET_IMPORTANCE;
          continue;
        }
        const draft: Draft = {
          kind: STREET,
          lon: anchor[0],
          lat: anchor[1],
          box: boxOf(lines),
          osmType,
          osmId: object.id,
          // The way's second street (its part in another place) is told apart by a number in its id.
          part: wayStreets.get(object.id) ?? 0,
          importance: MAJOR_ROADS.has(tags.highway) ? MAJOR_STREET_IMPORTANCE : STREET_IMPORTANCE,
          category: `highway=${tags.highway}`,
          housenumber: '',
          context,
          names,
          lines,
        };
        streets.set(key, draft);
        wayStreets.set(object.id, (wayStreets.get(object.id) ?? 0) + 1);
        drafts.push(draft);
      }
      continue;
    }

    const street = tags['addr:street'] ?? tags['addr:place'];
    const number = tags['addr:housenumber'];
    if (number && street) {
      if (object.type === 'node') addressNodes.set(positionKey(geometry.type === 'Point' ? geometry.coordinates : anchor), { street, number });
      const context = contexts.at(anchor[0], anchor[1]);
      const key = `${fold(street)}|${fold(number)}|${context}`;
      if (!addresses.has(key)) {
        addresses.add(key);
        drafts.push({
          kind: ADDRESS,
          lon: anchor[0],
          lat: anchor[1],
          box: [anchor[0], anchor[1], anchor[0], anchor[1]],
          osmType,
          osmId: object.id,
          importance: ADDRESS_IMPORTANCE,
          category: tags.entrance ? `entrance=${tags.entrance}` : tags.building ? `building=${tags.building}` : '',
          housenumber: number,
          context,
          names: [{ text: street, language: '' }],
          lines: [],
        });
      }
    }

    if (names.length === 0) continue;
    const place = PLACE_KINDS[tags.place ?? ''];
    const category = place ? `place=${tags.place}` : poiCategory(tags);
    // Named lines that are no street (railways, rivers, boundaries) have no one point to show.
    if (!category || (isLine && !place)) continue;
    drafts.push({
      kind: place ? EXTRACT_KINDS.indexOf(place.kind) : POI,
      lon: anchor[0],
      lat: anchor[1],
      box: [anchor[0], anchor[1], anchor[0], anchor[1]],
      osmType,
      osmId: object.id,
      importance: place ? place.importance : POI_IMPORTANCE,
      category,
      housenumber: '',
      context: contexts.at(anchor[0], anchor[1]),
      names,
      lines: [],
    });
  }
  for (const object of objects) {
    if (object.tags['addr:interpolation'] && object.geometry.type === 'LineString') {
      drafts.push(...interpolated(object, object.geometry.coordinates, addressNodes, addresses, contexts));
    }
  }
  for (const street of streets.values()) {
    street.box = boxOf(street.lines);
    [street.lon, street.lat] = nearestOnLines(street.lines, boxCentre(street.box));
  }
  return assemble(map, drafts, contexts, bounds);
}

function assemble(map: string, drafts: Draft[], contexts: Contexts, bounds: readonly [number, number, number, number]): ExtractIndex {
  const n = drafts.length;
  const categories = [''];
  const categoryNumber = new Map([['', 0]]);
  const languages = [''];
  const languageNumber = new Map([['', 0]]);
  const nameEntry: number[] = [];
  const nameLanguage: number[] = [];
  const nameText: string[] = [];
  const nameWordLists: string[][] = [];
  const firstName = new Uint32Array(n);
  drafts.forEach((draft, entry) => {
    firstName[entry] = nameEntry.length;
    const seen = new Set<string>();
    for (const name of draft.names) {
      const folded = fold(draft.housenumber ? `${name.text} ${draft.housenumber}` : name.text);
      if (folded === '' || seen.has(`${name.language}|${folded}`)) continue;
      seen.add(`${name.language}|${folded}`);
      if (!languageNumber.has(name.language)) {
        languageNumber.set(name.language, languages.length);
        languages.push(name.language);
      }
      nameEntry.push(entry);
      nameLanguage.push(languageNumber.get(name.language)!);
      nameText.push(name.text);
      nameWordLists.push(folded.split(' '));
    }
    if (!categoryNumber.has(draft.category)) {
      categoryNumber.set(draft.category, categories.length);
      categories.push(draft.category);
    }
  });
  const dictionary = buildDictionary(nameWordLists, contexts.words.flat());
  const wordNumber = new Map(dictionary.words.map((word, i) => [word, i]));
  const contextWordStart = prefixSums(Uint32Array.from(contexts.words.map((words) => words.length)));

  const lineStart = new Uint32Array(n + 1);
  const partStart: number[] = [0];
  const coords: number[] = [];
  drafts.forEach((draft, entry) => {
    lineStart[entry] = partStart.length - 1;
    for (const line of draft.lines) {
      for (const position of line) coords.push(position[0]!, position[1]!);
      partStart.push(coords.length / 2);
    }
  });
  lineStart[n] = partStart.length - 1;

  const [west, south, east, north] = bounds;
  const cellSize = Math.max(MIN_CELL_DEGREES, Math.sqrt(((east - west) * (north - south)) / MAX_CELLS));
  const columns = Math.max(1, Math.ceil((east - west) / cellSize) + 1);
  const rows = Math.max(1, Math.ceil((north - south) / cellSize) + 1);
  const column = (lon: number) => Math.min(columns - 1, Math.max(0, Math.floor((lon - west) / cellSize)));
  const row = (lat: number) => Math.min(rows - 1, Math.max(0, Math.floor((lat - south) / cellSize)));
  const cellsOf = function* (draft: Draft): Generator<number> {
    for (let r = row(draft.box[1]); r <= row(draft.box[3]); r++) for (let c = column(draft.box[0]); c <= column(draft.box[2]); c++) yield r * columns + c;
  };
  const cellCounts = new Uint32Array(columns * rows);
  for (const draft of drafts) for (const cell of cellsOf(draft)) cellCounts[cell]!++;
  const cellStart = prefixSums(cellCounts);
  const cellEntry = new Uint32Array(cellStart[cellCounts.length]!);
  const fill = cellStart.slice(0, cellCounts.length);
  drafts.forEach((draft, entry) => {
    for (const cell of cellsOf(draft)) cellEntry[fill[cell]!++] = entry;
  });

  return {
    format: EXTRACT_INDEX_FORMAT,
    map,
    kind: Uint8Array.from(drafts.map((d) => d.kind)),
    lon: Float64Array.from(drafts.map((d) => d.lon)),
    lat: Float64Array.from(drafts.map((d) => d.lat)),
    box: Float64Array.from(drafts.flatMap((d) => d.box)),
    osmType: Uint8Array.from(drafts.map((d) => d.osmType)),
    osmId: Float64Array.from(drafts.map((d) => d.osmId)),
    part: Uint8Array.from(drafts.map((d) => Math.min(255, d.part ?? 0))),
    importance: Float32Array.from(drafts.map((d) => d.importance)),
    category: Uint16Array.from(drafts.map((d) => categoryNumber.get(d.category)!)),
    categories,
    housenumber: drafts.map((d) => d.housenumber),
    context: Uint32Array.from(drafts.map((d) => d.context)),
    contexts: contexts.list,
    contextWordStart,
    contextWords: Uint32Array.from(contexts.words.flatMap((words) => words.map((word) => wordNumber.get(word)!))),
    firstName,
    languages,
    nameEntry: Uint32Array.from(nameEntry),
    nameLanguage: Uint8Array.from(nameLanguage),
    nameText,
    ...dictionary,
    lineStart,
    partStart: Uint32Array.from(partStart),
    coords: Float64Array.from(coords),
    gridWest: west,
    gridSouth: south,
    cellSize,
    columns,
    rows,
    cellStart,
    cellEntry,
  };
}

/** The entries in the grid cells within `radiusKm` of a point (each once per cell it is in). */
export function* entriesNear(index: ExtractIndex, lon: number, lat: number, radiusKm: number): Generator<number> {
  const [kx, ky] = metresPerDegree(lat);
  const dLon = (radiusKm * 1000) / Math.max(kx, 1);
  const dLat = (radiusKm * 1000) / ky;
  const c0 = Math.max(0, Math.floor((lon - dLon - index.gridWest) / index.cellSize));
  const c1 = Math.min(index.columns - 1, Math.floor((lon + dLon - index.gridWest) / index.cellSize));
  const r0 = Math.max(0, Math.floor((lat - dLat - index.gridSouth) / index.cellSize));
  const r1 = Math.min(index.rows - 1, Math.floor((lat + dLat - index.gridSouth) / index.cellSize));
  for (let r = r0; r <= r1; r++) {
    for (let c = c0; c <= c1; c++) {
      const cell = r * index.columns + c;
      for (let p = index.cellStart[cell]!; p < index.cellStart[cell + 1]!; p++) yield index.cellEntry[p]!;
    }
  }
}

/** A street's lines, as positions. */
export function streetLines(index: ExtractIndex, entry: number): [number, number][][] {
  const lines: [number, number][][] = [];
  for (let part = index.lineStart[entry]!; part < index.lineStart[entry + 1]!; part++) {
    const line: [number, number][] = [];
    for (let p = index.partStart[part]!; p < index.partStart[part + 1]!; p++) line.push([index.coords[2 * p]!, index.coords[2 * p + 1]!]);
    lines.push(line);
  }
  return lines;
}
