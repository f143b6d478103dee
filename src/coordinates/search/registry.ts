/**
 * The EPSG registry index: one entry per object of the EPSG authority in proj.db (CRSs, coordinate
 * operations, datums, ellipsoids, prime meridians, methods, coordinate systems, axes, areas and
 * units), with the words search looks them up by. Loaded once at start-up with a few SQL queries
 * (`loadRegistry`), then read-only.
 *
 * Why SQL rather than PROJ's C API: the API lists CRSs (`proj_get_crs_info_list_from_database`)
 * but gives the rest of what the index holds (axes, units, datums' ellipsoids and dates, operation
 * steps, every usage's extent) only by building each object (`proj_create_from_database`); built
 * one by one, the 8,004 EPSG CRSs alone take about 4 s here, where the SQL reads their rows in
 * 8 ms, and start-up must stay under 1 s. Everything that needs PROJ's judgment (operations,
 * exports, default transformations) goes through the C API (proj.ts).
 *
 * What proj.db (layout 1.x) does not carry, and how the index fills it in:
 * - Coordinate systems have no names: they get EPSG's naming pattern, built from their axes
 *   ("Cartesian 2D CS. Axes: easting, northing (E,N). Orientations: east, north. UoM: m.").
 * - No engineering or derived CRS, no engineering datum, no affine CS: the kinds exist, with no
 *   entries. Engineering tables of newer proj.db layouts are read when present.
 * - Point motion operations are transformations whose method is a "Point motion..." method.
 * - Area and bbox are those of the object's first usage, in PROJ's order (large-scale scopes first),
 *   so they agree with what PROJ reports; `area_code:` matches any of its usages.
 * - A projected CRS is also found by the name of its conversion, which is often the name users know
 *   it by (`Swiss Oblique Mercator 1995`, `SPCS83 New York East zone`, `Universal Polar
 *   Stereographic North`): those words count as alias words.
 */

import { familyOf, isCrsKind, KINDS, type Kind } from './kinds.js';
import { countryNames, type PlaceNames } from './place-names.js';
import { projInfo, queryRegistry } from '../proj/proj.js';
import { tokenize } from './query.js';

/** `[min_lon, min_lat, max_lon, max_lat]` in degrees; min_lon > max_lon when it crosses the antimeridian. */
export type Bbox = [number, number, number, number];

export interface RegistryEntry {
  code: number;
  kind: Kind;
  name: string;
  deprecated: boolean;
  /** Description of the area of use. */
  area: string | null;
  bbox: Bbox | null;
  aliases: readonly string[];
  /**
   * CRSs and coordinate systems: the unit of the first axis (of the horizontal part for compound
   * CRSs). Transformations: the unit of their target CRS. Units: their type (`length`, `angle`,
   * `scale`, `time`). Ellipsoids, prime meridians, axes: the unit they are given in. Otherwise null.
   */
  unit: string | null;
  /** Coordinate operations: accuracy in metres as EPSG gives it (conversions: 0, exact by definition); null otherwise or unknown. */
  accuracy: number | null;
  /** CRSs: the geodetic CRS they are based on (geodetic CRSs: themselves); null for vertical CRSs. */
  baseCrs: number | null;
  /** CRSs: their datum (through the base CRS for projected and compound CRSs). */
  datum: number | null;
  /** CRSs and geodetic datums: their ellipsoid. */
  ellipsoid: number | null;
  /**
   * Geodetic datums: the year of their publication date as EPSG gives it; CRSs: that of their
   * geodetic datum (a realization: Mexico ITRF2008 2010, Mexico ITRF92 1992). null when EPSG gives
   * none (datum ensembles: ETRS89, WGS 84) and for other kinds.
   */
  published: number | null;
  /** Operations, and projected CRSs through their conversion: the method. */
  method: number | null;
  /** Transformations and concatenated operations: their target CRS. */
  targetCrs: number | null;
  /** Codes of the areas of all usages. */
  areaCodes: readonly number[];
  /** Projected CRSs: the name of their conversion (`UTM zone 33N`), searched as an alias; otherwise null. */
  conversion: string | null;
  /** Vertical CRSs whose axis points down (depths), and compound CRSs with such a vertical part. */
  depth: boolean;
}

/** Where a word of an entry occurs; a posting carries the union of these bits. */
export const FIELD = {
  NAME: 1,
  ALIAS: 2,
  AREA: 4,
  /** One of the first words of the area description: the area is about that place. */
  AREA_LEAD: 8,
  CODE: 16,
  /**
   * A place of an area described as a short list of places ("Europe between 6°E and 12°E: Austria;
   * Denmark; Germany; ..."): the area is about each of them, less than about its lead.
   */
  AREA_LISTED: 32,
} as const;

/** Bits a posting's field takes. */
export const FIELD_BITS = 6;
const FIELD_SPAN = 1 << FIELD_BITS;

const AREA_LEAD_WORDS = 3;
/** An area that lists at most this many places is about each of them; a longer list merely covers them. */
const SHORT_LIST = 8;

/**
 * Words → entries, both ways. Words are sorted, so the words a prefix matches are a range of ids;
 * postings are flat typed arrays (compact, and cheap for the garbage collector).
 */
export interface TextIndex {
  words: readonly string[];
  /** Postings of word w: `postingEntry[postingStart[w] .. postingStart[w + 1])`, entry ids ascending. */
  postingStart: Uint32Array;
  postingEntry: Uint32Array;
  postingField: Uint8Array;
  /** Words of entry e: `entryWord[entryStart[e] .. entryStart[e + 1])`, word ids ascending. */
  entryStart: Uint32Array;
  entryWord: Uint32Array;
  entryField: Uint8Array;
}

export interface Registry {
  /** EPSG dataset version of proj.db, e.g. `v10.076`. */
  epsgVersion: string | null;
  /** Ordered by code, then by kind (the order of `KINDS`); an entry's id is its position. */
  entries: readonly RegistryEntry[];
  text: TextIndex;
  /** Entry ids by code (codes repeat across kinds: area 1024 and unit 1024...). */
  byCode: ReadonlyMap<number, readonly number[]>;
  /** CRS entry ids by the transformations listed for them (`trans:`). */
  byTransformation: ReadonlyMap<number, readonly number[]>;
  /** Entry ids by the related object the search filters name (`datum:`, `ellipsoid:`, `method:`, `area_code:`). */
  byDatum: ReadonlyMap<number, readonly number[]>;
  byEllipsoid: ReadonlyMap<number, readonly number[]>;
  byMethod: ReadonlyMap<number, readonly number[]>;
  byArea: ReadonlyMap<number, readonly number[]>;
  /** CRS entry by code. */
  crs: ReadonlyMap<number, RegistryEntry>;
  /** EPSG codes of the transformations from a geodetic CRS to WGS 84, current ones first, then by code. */
  toWgs84: ReadonlyMap<number, readonly number[]>;
  /** Entries per kind. */
  counts: Readonly<Record<Kind, number>>;
  /** Countries' names in other languages → the English words of the areas for them (place-names.ts). */
  places: PlaceNames;
}

type Cell = string | number | null;
type Row = Cell[];

const text = (cell: Cell): string => (cell === null ? '' : String(cell));
const num = (cell: Cell): number | null => (cell === null || cell === '' ? null : Number(cell));

/** PROJ shows EPSG's "degree (supplier to define representation)" as plain "degree"; so do we. */
const unitName = (name: string): string => name.replace(/ \(supplier to define representation\)$/, '');

/** WGS 84 in each geodetic CRS type: transformations "to WGS 84" end in one of these. */
const WGS84_CRS = [4326, 4979, 4978];

interface Draft extends Omit<RegistryEntry, 'area' | 'bbox' | 'aliases' | 'areaCodes'> {
  /** proj.db table the object comes from, for usages and aliases. */
  table: string;
}

const draft = (table: string, code: number, kind: Kind, name: string, deprecated: boolean): Draft => ({
  table,
  code,
  kind,
  name,
  deprecated,
  unit: null,
  accuracy: null,
  baseCrs: null,
  datum: null,
  ellipsoid: null,
  published: null,
  method: null,
  targetCrs: null,
  conversion: null,
  depth: false,
});

const rows = (sql: string): Row[] => queryRegistry(sql);

/** Objects are told apart by table and code: codes repeat across tables. */
const key = (table: string, code: number) => `${table}:${code}`;

function append<K, V>(map: Map<K, V[]>, at: K, value: V): void {
  const list = map.get(at);
  if (list) list.push(value);
  else map.set(at, [value]);
}

function tableExists(name: string): boolean {
  return queryRegistry(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, [name]).length > 0;
}

const GEODETIC_KIND: Record<string, Kind> = {
  'geographic 2D': 'CRS-GEOGCRS',
  'geographic 3D': 'CRS-GEOG3DCRS',
  geocentric: 'CRS-GCENCRS',
};

const CS_KIND: Record<string, Kind> = {
  Cartesian: 'CS-CARTESCS',
  vertical: 'CS-VERTCS',
  ellipsoidal: 'CS-ELLIPCS',
  spherical: 'CS-SPHERCS',
  ordinal: 'CS-ORDINAL',
  affine: 'CS-AFFINE',
};

const UNIT_KIND: Record<string, Kind> = {
  angle: 'UNIT-ANGUNIT',
  scale: 'UNIT-SCALEUNIT',
  length: 'UNIT-LENUNIT',
  time: 'UNIT-TIMEUNIT',
};

interface Units {
  name: Map<number, string>;
  short: Map<number, string>;
}

function loadUnits(drafts: Draft[]): Units {
  const units: Units = { name: new Map(), short: new Map() };
  for (const [code, name, type, short, deprecated] of rows(
    `SELECT code, name, type, proj_short_name, deprecated FROM unit_of_measure WHERE auth_name = 'EPSG'`,
  )) {
    const kind = UNIT_KIND[text(type)];
    units.name.set(Number(code), unitName(text(name)));
    if (short !== null) units.short.set(Number(code), text(short));
    if (!kind) continue;
    const entry = draft('unit_of_measure', Number(code), kind, text(name), deprecated === 1);
    entry.unit = text(type);
    drafts.push(entry);
  }
  return units;
}

interface CoordinateSystems {
  /** Unit of each CS's first axis. */
  unit: Map<number, string | null>;
  /** Vertical CSs whose axis points down. */
  down: Set<number>;
}

/** Coordinate systems and their axes. */
function loadCoordinateSystems(drafts: Draft[], units: Units): CoordinateSystems {
  const axes = new Map<number, { name: string; abbrev: string; orientation: string; unit: number | null }[]>();
  for (const [code, name, abbrev, orientation, cs, , unit] of rows(
    `SELECT code, name, abbrev, orientation, coordinate_system_code, coordinate_system_order, uom_code FROM axis
     WHERE auth_name = 'EPSG' AND coordinate_system_auth_name = 'EPSG' ORDER BY coordinate_system_code, coordinate_system_order`,
  )) {
    const unitCode = num(unit);
    const axis = { name: text(name), abbrev: text(abbrev), orientation: text(orientation), unit: unitCode };
    append(axes, Number(cs), axis);
    const entry = draft('axis', Number(code), 'AXIS', axis.name, false);
    entry.unit = unitCode === null ? null : (units.name.get(unitCode) ?? null);
    drafts.push(entry);
  }
  const csUnit = new Map<number, string | null>();
  const down = new Set<number>();
  for (const [code, type, dimension] of rows(`SELECT code, type, dimension FROM coordinate_system WHERE auth_name = 'EPSG'`)) {
    const kind = CS_KIND[text(type)];
    const own = axes.get(Number(code)) ?? [];
    const first = own[0]?.unit ?? null;
    csUnit.set(Number(code), first === null ? null : (units.name.get(first) ?? null));
    if (text(type) === 'vertical' && own[0]?.orientation === 'down') down.add(Number(code));
    if (!kind) continue;
    const typeName = text(type).charAt(0).toUpperCase() + text(type).slice(1);
    const uom = [...new Set(own.map((axis) => (axis.unit === null ? '' : (units.short.get(axis.unit) ?? units.name.get(axis.unit) ?? ''))))];
    const name =
      `${typeName} ${text(dimension)}D CS. Axes: ${own.map((axis) => axis.name.toLowerCase()).join(', ')} ` +
      `(${own.map((axis) => axis.abbrev).join(',')}). Orientations: ${own.map((axis) => axis.orientation).join(', ')}. ` +
      `UoM: ${uom.filter((unit) => unit !== '').join(', ')}.`;
    const entry = draft('coordinate_system', Number(code), kind, name, false);
    entry.unit = csUnit.get(Number(code)) ?? null;
    drafts.push(entry);
  }
  return { unit: csUnit, down };
}

/** Datums, ellipsoids and prime meridians; returns each geodetic datum's ellipsoid. */
function loadDatums(drafts: Draft[], units: Units): Map<number, number> {
  for (const [code, name, deprecated, unit] of rows(
    `SELECT code, name, deprecated, uom_code FROM ellipsoid WHERE auth_name = 'EPSG'`,
  )) {
    const entry = draft('ellipsoid', Number(code), 'ELLIPSOID', text(name), deprecated === 1);
    entry.unit = units.name.get(Number(unit)) ?? null;
    drafts.push(entry);
  }
  for (const [code, name, deprecated, unit] of rows(
    `SELECT code, name, deprecated, uom_code FROM prime_meridian WHERE auth_name = 'EPSG'`,
  )) {
    const entry = draft('prime_meridian', Number(code), 'PRIMEM', text(name), deprecated === 1);
    entry.unit = units.name.get(Number(unit)) ?? null;
    drafts.push(entry);
  }
  const ellipsoidOf = new Map<number, number>();
  // PROJ's C API gives no datum's publication date: it is read here with the rest of the row.
  for (const [code, name, deprecated, ellipsoid, epoch, ensemble, published] of rows(
    `SELECT code, name, deprecated, ellipsoid_code, frame_reference_epoch, ensemble_accuracy, publication_date FROM geodetic_datum WHERE auth_name = 'EPSG'`,
  )) {
    const kind: Kind = ensemble !== null ? 'DATUM-ENSEMDAT' : epoch !== null ? 'DATUM-DYNGEODDA' : 'DATUM-GEODDAT';
    const entry = draft('geodetic_datum', Number(code), kind, text(name), deprecated === 1);
    entry.ellipsoid = Number(ellipsoid);
    const year = typeof published === 'string' ? Number(published.slice(0, 4)) : NaN;
    entry.published = Number.isInteger(year) && year > 0 ? year : null;
    ellipsoidOf.set(entry.code, entry.ellipsoid);
    drafts.push(entry);
  }
  for (const [code, name, deprecated, ensemble] of rows(
    `SELECT code, name, deprecated, ensemble_accuracy FROM vertical_datum WHERE auth_name = 'EPSG'`,
  )) {
    drafts.push(draft('vertical_datum', Number(code), ensemble !== null ? 'DATUM-ENSEMDAT' : 'DATUM-VERTDAT', text(name), deprecated === 1));
  }
  if (tableExists('engineering_datum')) {
    for (const [code, name, deprecated] of rows(`SELECT code, name, deprecated FROM engineering_datum WHERE auth_name = 'EPSG'`)) {
      drafts.push(draft('engineering_datum', Number(code), 'DATUM-ENGDAT', text(name), deprecated === 1));
    }
  }
  return ellipsoidOf;
}

/** CRSs of all kinds; compound CRSs take base, datum, ellipsoid and unit from their horizontal part. */
function loadCrss(drafts: Draft[], systems: CoordinateSystems, ellipsoidOf: Map<number, number>): Map<number, Draft> {
  const csUnit = systems.unit;
  const crs = new Map<number, Draft>();
  const add = (entry: Draft) => {
    crs.set(entry.code, entry);
    drafts.push(entry);
  };
  for (const [code, name, type, deprecated, cs, datum] of rows(
    `SELECT code, name, type, deprecated, coordinate_system_code, datum_code FROM geodetic_crs WHERE auth_name = 'EPSG'`,
  )) {
    const kind = GEODETIC_KIND[text(type)];
    if (!kind) continue;
    const entry = draft('geodetic_crs', Number(code), kind, text(name), deprecated === 1);
    entry.unit = csUnit.get(Number(cs)) ?? null;
    entry.baseCrs = entry.code;
    entry.datum = num(datum);
    entry.ellipsoid = entry.datum === null ? null : (ellipsoidOf.get(entry.datum) ?? null);
    add(entry);
  }
  for (const [code, name, deprecated, cs, base, method, conversion] of rows(
    `SELECT p.code, p.name, p.deprecated, p.coordinate_system_code, p.geodetic_crs_code, c.method_code, c.name
     FROM projected_crs p LEFT JOIN conversion_table c ON c.auth_name = p.conversion_auth_name AND c.code = p.conversion_code
     WHERE p.auth_name = 'EPSG'`,
  )) {
    const entry = draft('projected_crs', Number(code), 'CRS-PROJCRS', text(name), deprecated === 1);
    const geodetic = crs.get(Number(base));
    entry.unit = csUnit.get(Number(cs)) ?? null;
    entry.baseCrs = num(base);
    entry.datum = geodetic?.datum ?? null;
    entry.ellipsoid = geodetic?.ellipsoid ?? null;
    entry.method = num(method);
    entry.conversion = conversion === null ? null : text(conversion);
    add(entry);
  }
  // Vertical and engineering CRSs read alike; older proj.db layouts have no engineering table.
  for (const [table, kind] of [['vertical_crs', 'CRS-VERTCRS'], ['engineering_crs', 'CRS-ENGCRS']] as const) {
    if (!tableExists(table)) continue;
    for (const [code, name, deprecated, cs, datum] of rows(
      `SELECT code, name, deprecated, coordinate_system_code, datum_code FROM ${table} WHERE auth_name = 'EPSG'`,
    )) {
      const entry = draft(table, Number(code), kind, text(name), deprecated === 1);
      entry.unit = csUnit.get(Number(cs)) ?? null;
      entry.datum = num(datum);
      entry.depth = systems.down.has(Number(cs));
      add(entry);
    }
  }
  for (const [code, name, deprecated, horizontal, vertical] of rows(
    `SELECT code, name, deprecated, horiz_crs_code, vertical_crs_code FROM compound_crs WHERE auth_name = 'EPSG' AND horiz_crs_auth_name = 'EPSG'`,
  )) {
    const entry = draft('compound_crs', Number(code), 'CRS-COMPOUNDCRS', text(name), deprecated === 1);
    const part = crs.get(Number(horizontal));
    entry.depth = crs.get(Number(vertical))?.depth ?? false;
    entry.unit = part?.unit ?? null;
    entry.baseCrs = part?.baseCrs ?? null;
    entry.datum = part?.datum ?? null;
    entry.ellipsoid = part?.ellipsoid ?? null;
    add(entry);
  }
  return crs;
}

/** Coordinate operations and their methods; returns the transformations to WGS 84 by source CRS. */
function loadOperations(drafts: Draft[], crs: Map<number, Draft>): Map<number, number[]> {
  const methods = new Map<number, string>();
  for (const [code, name] of rows(`SELECT code, name FROM conversion_method WHERE auth_name = 'EPSG'
                                  UNION SELECT code, name FROM coordinate_operation_method WHERE auth_name = 'EPSG'`)) {
    methods.set(Number(code), text(name));
  }
  for (const [code, name, deprecated, method] of rows(
    `SELECT code, name, deprecated, method_code FROM conversion_table WHERE auth_name = 'EPSG'`,
  )) {
    const entry = draft('conversion', Number(code), 'COORDOP-COPCON', text(name), deprecated === 1);
    entry.method = num(method);
    entry.accuracy = 0;
    drafts.push(entry);
  }
  const toWgs84 = new Map<number, { code: number; deprecated: boolean }[]>();
  for (const table of ['helmert_transformation', 'grid_transformation', 'other_transformation', 'concatenated_operation']) {
    const method = table === 'concatenated_operation' ? 'NULL, NULL' : 'method_code, method_name';
    for (const [code, name, deprecated, accuracy, from, to, methodCode, methodName] of rows(
      `SELECT code, name, deprecated, accuracy, source_crs_code, target_crs_code, ${method} FROM ${table}
       WHERE auth_name = 'EPSG' AND source_crs_auth_name = 'EPSG' AND target_crs_auth_name = 'EPSG'`,
    )) {
      const kind: Kind =
        table === 'concatenated_operation' ? 'COORDOP-COPCONO' : text(methodName).startsWith('Point motion') ? 'COORDOP-POIMOTO' : 'COORDOP-COPTRAN';
      const entry = draft(table, Number(code), kind, text(name), deprecated === 1);
      entry.accuracy = num(accuracy);
      entry.method = num(methodCode);
      entry.targetCrs = Number(to);
      entry.unit = crs.get(entry.targetCrs)?.unit ?? null;
      if (entry.method !== null && methodName !== null) methods.set(entry.method, text(methodName));
      drafts.push(entry);
      if (kind !== 'COORDOP-POIMOTO' && WGS84_CRS.includes(entry.targetCrs) && Number(from) !== entry.targetCrs) {
        append(toWgs84, Number(from), { code: entry.code, deprecated: entry.deprecated });
      }
    }
  }
  fillConcatenatedAccuracy(drafts);
  for (const [code, name] of rows(`SELECT DISTINCT method_code, method_name FROM conversion WHERE method_auth_name = 'EPSG'`)) {
    if (code !== null && !methods.has(Number(code))) methods.set(Number(code), text(name));
  }
  for (const [code, name] of methods) drafts.push(draft('coordinate_operation_method', code, 'METHOD', name, false));
  const ordered = new Map<number, number[]>();
  for (const [source, list] of toWgs84) {
    list.sort((a, b) => Number(a.deprecated) - Number(b.deprecated) || a.code - b.code);
    ordered.set(source, list.map((operation) => operation.code));
  }
  return ordered;
}

/** A concatenated operation without an accuracy of its own has, as in PROJ, the sum of its steps' (when all are known). */
function fillConcatenatedAccuracy(drafts: Draft[]): void {
  const operations = new Map<number, Draft>();
  for (const entry of drafts) if (familyOf(entry.kind) === 'COORDOP') operations.set(entry.code, entry);
  const steps = new Map<number, number[]>();
  for (const [operation, step] of rows(
    `SELECT operation_code, step_code FROM concatenated_operation_step WHERE operation_auth_name = 'EPSG' AND step_auth_name = 'EPSG'`,
  )) {
    append(steps, Number(operation), Number(step));
  }
  for (const [code, list] of steps) {
    const concatenated = operations.get(code);
    if (!concatenated || concatenated.accuracy !== null) continue;
    const accuracies = list.map((step) => operations.get(step)?.accuracy ?? null);
    if (accuracies.every((accuracy) => accuracy !== null)) concatenated.accuracy = accuracies.reduce((sum, accuracy) => sum + accuracy!, 0);
  }
}

interface Extent {
  name: string;
  description: string;
  bbox: Bbox | null;
}

function loadExtents(drafts: Draft[]): Map<number, Extent> {
  const extents = new Map<number, Extent>();
  for (const [code, name, description, south, north, west, east, deprecated] of rows(
    `SELECT code, name, description, south_lat, north_lat, west_lon, east_lon, deprecated FROM extent WHERE auth_name = 'EPSG'`,
  )) {
    const box = [west, south, east, north].map(num);
    const bbox = box.every((value) => value !== null) ? (box as Bbox) : null;
    extents.set(Number(code), { name: text(name), description: text(description), bbox });
    drafts.push(draft('extent', Number(code), 'AREA', text(name), deprecated === 1));
  }
  return extents;
}

/** Area codes of every object's usages, first the one PROJ reports (large-scale scopes first). */
function loadUsages(): Map<string, number[]> {
  const usages = new Map<string, number[]>();
  for (const [table, code, extent] of rows(
    `SELECT u.object_table_name, u.object_code, u.extent_code FROM usage u
     LEFT JOIN scope s ON s.auth_name = u.scope_auth_name AND s.code = u.scope_code
     WHERE u.object_auth_name = 'EPSG' AND u.extent_auth_name = 'EPSG'
     ORDER BY u.object_table_name, u.object_code, CASE WHEN s.scope LIKE '%large scale%' THEN 0 ELSE 1 END, u.rowid`,
  )) {
    append(usages, key(text(table), Number(code)), Number(extent));
  }
  return usages;
}

function loadAliases(): Map<string, string[]> {
  const aliases = new Map<string, string[]>();
  for (const [table, code, name] of rows(`SELECT table_name, code, alt_name FROM alias_name WHERE auth_name = 'EPSG'`)) {
    append(aliases, key(text(table), Number(code)), text(name));
  }
  return aliases;
}

/** The words of a text with their field bits; with `pairs`, adjacent words run together too (`wgs84`). */
function fieldWords(value: string, field: number, pairs: boolean, lead = 0): [string, number][] {
  const tokens = tokenize(value);
  const words: [string, number][] = [];
  for (let i = 0; i < tokens.length; i++) {
    const bits = field | (i < lead ? FIELD.AREA_LEAD : 0);
    words.push([tokens[i]!, bits]);
    if (pairs && i > 0) words.push([tokens[i - 1]! + tokens[i]!, bits]);
  }
  return words;
}

/**
 * The places of an area described as a short list: after the colon of "Europe between 6°E and 12°E:
 * Austria; Denmark - onshore and offshore; ..." (or the whole description), items separated by `;`
 * or `.`, each up to its " - " qualifier. None when the list is longer than SHORT_LIST.
 */
function listedPlaces(description: string): string[] {
  const list = description.slice(description.indexOf(':') + 1);
  const items = list.split(/[;.](?:\s|$)/u).filter((item) => item.trim().length > 0);
  if (items.length > SHORT_LIST) return [];
  // A place only the sea of which is in the area ("Spain - offshore") is not what the area is about.
  return items.filter((item) => !/ - .*offshore/.test(item) || / - .*onshore/.test(item)).map((item) => item.split(' - ')[0]!.trim());
}

function buildTextIndex(entries: readonly RegistryEntry[], extentOf: readonly (Extent | null)[]): TextIndex {
  const words: string[] = [];
  const idOf = new Map<string, number>();
  const lastEntry: number[] = [];
  const fieldOf: number[] = [];
  // Per entry, its distinct words as `word id * FIELD_SPAN + field bits` (ids in order of appearance for now).
  const postings: number[] = [];
  const entryStart = new Uint32Array(entries.length + 1);
  const areaWords = new Map<Extent, number[]>();
  const idFor = (word: string): number => {
    let id = idOf.get(word);
    if (id === undefined) {
      id = words.push(word) - 1;
      idOf.set(word, id);
    }
    return id;
  };
  let e = 0;
  const add = (id: number, bits: number) => {
    if (lastEntry[id] === e) {
      fieldOf[id] = fieldOf[id]! | bits;
      return;
    }
    lastEntry[id] = e;
    fieldOf[id] = bits;
    postings.push(id);
  };
  const addText = (value: string, field: number) => {
    for (const [word, bits] of fieldWords(value, field, true)) add(idFor(word), bits);
  };
  for (; e < entries.length; e++) {
    const entry = entries[e]!;
    entryStart[e] = postings.length;
    addText(entry.name, FIELD.NAME);
    for (const alias of entry.aliases) addText(alias, FIELD.ALIAS);
    if (entry.conversion !== null) addText(entry.conversion, FIELD.ALIAS);
    const extent = extentOf[e];
    if (extent) {
      // Areas are shared by many entries: their words are looked up once. Flat pairs of id, bits.
      let area = areaWords.get(extent);
      if (!area) {
        area = [
          ...fieldWords(extent.description, FIELD.AREA, false, AREA_LEAD_WORDS),
          ...listedPlaces(extent.description).flatMap((place) => fieldWords(place, FIELD.AREA | FIELD.AREA_LISTED, false)),
          ...fieldWords(extent.name, FIELD.AREA, false),
        ].flatMap(([word, bits]) => [idFor(word), bits]);
        areaWords.set(extent, area);
      }
      for (let i = 0; i < area.length; i += 2) add(area[i]!, area[i + 1]!);
    }
    add(idFor(String(entry.code)), FIELD.CODE);
    for (let i = entryStart[e]!; i < postings.length; i++) postings[i] = postings[i]! * FIELD_SPAN + fieldOf[postings[i]!]!;
  }
  entryStart[entries.length] = postings.length;

  // Words get their ids in sorted order, so that the words a prefix matches form a range of ids.
  const sorted = [...words].sort();
  const rank = new Uint32Array(words.length);
  sorted.forEach((word, position) => (rank[idOf.get(word)!] = position));
  const packed = Uint32Array.from(postings, (posting) => rank[Math.floor(posting / FIELD_SPAN)]! * FIELD_SPAN + (posting % FIELD_SPAN));
  const postingCount = new Uint32Array(words.length + 1);
  for (let i = 0; i < entries.length; i++) packed.subarray(entryStart[i]!, entryStart[i + 1]!).sort();
  const entryWord = new Uint32Array(packed.length);
  const entryField = new Uint8Array(packed.length);
  packed.forEach((posting, i) => {
    entryWord[i] = Math.floor(posting / FIELD_SPAN);
    entryField[i] = posting % FIELD_SPAN;
    postingCount[entryWord[i]! + 1]!++;
  });
  const postingStart = new Uint32Array(words.length + 1);
  for (let w = 0; w < words.length; w++) postingStart[w + 1] = postingStart[w]! + postingCount[w + 1]!;
  const postingEntry = new Uint32Array(packed.length);
  const postingField = new Uint8Array(packed.length);
  const fill = postingStart.slice(0, words.length);
  // Entries are visited in id order, so every posting list comes out sorted.
  for (let entry = 0; entry < entries.length; entry++) {
    for (let i = entryStart[entry]!; i < entryStart[entry + 1]!; i++) {
      const slot = fill[entryWord[i]!]!++;
      postingEntry[slot] = entry;
      postingField[slot] = entryField[i]!;
    }
  }
  return { words: sorted, postingStart, postingEntry, postingField, entryStart, entryWord, entryField };
}

function groupBy(entries: readonly RegistryEntry[], keys: (entry: RegistryEntry) => Iterable<number | null>): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  entries.forEach((entry, id) => {
    for (const value of new Set(keys(entry))) if (value !== null) append(groups, value, id);
  });
  return groups;
}

/** Reads the EPSG objects of proj.db into an index. Takes a few hundred milliseconds. */
export function loadRegistry(): Registry {
  const drafts: Draft[] = [];
  const units = loadUnits(drafts);
  const systems = loadCoordinateSystems(drafts, units);
  const ellipsoidOf = loadDatums(drafts, units);
  const crsDrafts = loadCrss(drafts, systems, ellipsoidOf);
  const toWgs84 = loadOperations(drafts, crsDrafts);
  const datumYear = new Map(drafts.filter((found) => found.table === 'geodetic_datum').map((found) => [found.code, found.published]));
  for (const found of drafts) if (isCrsKind(found.kind) && found.datum !== null) found.published = datumYear.get(found.datum) ?? null;
  const extents = loadExtents(drafts);
  const usages = loadUsages();
  const aliases = loadAliases();

  const kindOrder = new Map(KINDS.map((kind, i) => [kind, i]));
  drafts.sort((a, b) => a.code - b.code || kindOrder.get(a.kind)! - kindOrder.get(b.kind)!);
  const extentOf: (Extent | null)[] = [];
  const entries: RegistryEntry[] = drafts.map((found) => {
    const areaCodes = found.table === 'extent' ? [found.code] : (usages.get(key(found.table, found.code)) ?? []);
    const extent = areaCodes.length > 0 ? (extents.get(areaCodes[0]!) ?? null) : null;
    extentOf.push(extent);
    return {
      code: found.code,
      kind: found.kind,
      name: found.name,
      deprecated: found.deprecated,
      area: extent?.description ?? null,
      bbox: extent?.bbox ?? null,
      aliases: aliases.get(key(found.table, found.code)) ?? [],
      unit: found.unit,
      accuracy: found.accuracy,
      baseCrs: found.baseCrs,
      datum: found.datum,
      ellipsoid: found.ellipsoid,
      published: found.published,
      method: found.method,
      targetCrs: found.targetCrs,
      areaCodes,
      conversion: found.conversion,
      depth: found.depth,
    };
  });

  const crs = new Map<number, RegistryEntry>();
  for (const entry of entries) if (isCrsKind(entry.kind)) crs.set(entry.code, entry);
  const counts = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<Kind, number>;
  for (const entry of entries) counts[entry.kind]++;

  const textIndex = buildTextIndex(entries, extentOf);
  return {
    epsgVersion: projInfo().epsgVersion,
    entries,
    text: textIndex,
    byCode: groupBy(entries, (entry) => [entry.code]),
    byTransformation: groupBy(entries, (entry) =>
      isCrsKind(entry.kind) && entry.baseCrs !== null ? (toWgs84.get(entry.baseCrs) ?? []) : [],
    ),
    byDatum: groupBy(entries, (entry) => (isCrsKind(entry.kind) ? [entry.datum] : [])),
    byEllipsoid: groupBy(entries, (entry) => [entry.ellipsoid]),
    byMethod: groupBy(entries, (entry) => [entry.method]),
    byArea: groupBy(entries, (entry) => entry.areaCodes),
    crs,
    toWgs84,
    counts,
    places: countryNames([...extents.values()].map((extent) => extent.description), new Set(textIndex.words)),
  };
}
