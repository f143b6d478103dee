import Database from 'better-sqlite3';
import {
  c,
  call,
  cause,
  created,
  ctx,
  double,
  heap,
  hostPath,
  int,
  oneLineWkt,
  PJ_CATEGORY_COORDINATE_OPERATION,
  PJ_CATEGORY_CRS,
  PJ_FWD,
  PJ_PROJ_4,
  PJ_WKT1_GDAL,
  pointBuffer,
  PROJ_GRID_AVAILABILITY_KNOWN_AVAILABLE,
  PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION,
  ProjError,
  registry,
  scratch,
  sources,
  string,
  text,
} from './proj-wasm.js';
import { ENGINE } from './proj-data.js';

export { ProjError };

/**
 * Typed entry points to PROJ: one function per operation, as in PROJ's C API, over this thread's
 * engine (proj-wasm.ts: PROJ 9.9 in WebAssembly with its own PROJ context). What PROJ cannot do
 * is a ProjError with PROJ's own cause.
 */

export interface ProjInfo {
  projVersion: string;
  /** The proj.db file on this machine that the engine loaded. */
  databasePath: string | null;
  /** EPSG dataset version of proj.db, e.g. `v13.102`. */
  epsgVersion: string | null;
  epsgDate: string | null;
}

export interface Exports {
  /** PROJ.4 string with `+type=crs`. */
  proj4: string | null;
  /** WKT1 in the GDAL flavour. */
  wkt: string | null;
}

export interface Axis {
  name: string | null;
  direction: string | null;
  unit: string | null;
}

export interface CrsInfo {
  name: string | null;
  type: string;
  deprecated: boolean;
  /** `[west, south, east, north]` in degrees; west > east when the area crosses the antimeridian. */
  bbox: [number, number, number, number] | null;
  areaName: string | null;
  axes: Axis[];
  /** Unit of the first axis. */
  unit: string | null;
  /** EPSG code of the geodetic CRS it is based on (itself for a geodetic CRS), when it has one. */
  geodeticCrs: number | null;
  exports: Exports;
}

export interface GridUse {
  name: string | null;
  /** Full path of the grid file when PROJ found it. */
  path: string | null;
  available: boolean;
}

export interface OperationSummary {
  name: string | null;
  type: string;
  code: number | null;
  /** Metres; null when unknown. */
  accuracy: number | null;
  /** All grids it needs are present: it can run here. */
  instantiable: boolean;
  ballpark: boolean;
  /** EPSG codes of the transformations it is made of. */
  transformations: number[];
  /** Every transformation step comes from an EPSG operation (false: PROJ made one, e.g. between members of a datum ensemble). */
  transformationsComplete: boolean;
  /** The names of its transformation steps (PROJ's: "Inverse of ..." for one it inverts), joined by " + ". */
  transformationName: string;
  grids: GridUse[];
}

export interface OperationInfo extends OperationSummary {
  deprecated: boolean;
  bbox: [number, number, number, number] | null;
  areaName: string | null;
  sourceCrs: number | null;
  targetCrs: number | null;
  reversible: boolean;
  /** The seven Helmert parameters when the operation has them. */
  towgs84: number[] | null;
}

/** The operation PROJ applied to a point: its EPSG code where it has one, and PROJ's name of it. */
export interface OperationUsed {
  code: number | null;
  name: string;
}

export interface Transformer {
  /** Transforms in place, in GIS order (longitude/easting first). Failed points become NaN; returns their count. */
  transform(x: Float64Array, y: Float64Array, z: Float64Array): number;
  /** PROJ's cause for the points the last `transform` could not do (e.g. `webmerc: Invalid latitude`), when it gave one. */
  readonly failure: string | null;
  /** The operation applied to each point of the last `transform` (null for a point that failed). */
  readonly used: (OperationUsed | null)[];
  describe(): OperationSummary;
}

/** How a CRS is turned into a BoundCRS before transforming: an operation code, PROJ's default (true), or not (false). */
export type Binding = number | boolean;

type Ptr = number;

/** PROJ's PJ_TYPE values (proj.h), by number. */
const TYPE_NAMES = [
  'unknown', 'ellipsoid', 'prime_meridian', 'geodetic_reference_frame', 'dynamic_geodetic_reference_frame',
  'vertical_reference_frame', 'dynamic_vertical_reference_frame', 'datum_ensemble', 'unknown', 'geodetic_crs',
  'geocentric_crs', 'geographic_crs', 'geographic_2d_crs', 'geographic_3d_crs', 'vertical_crs', 'projected_crs',
  'compound_crs', 'temporal_crs', 'engineering_crs', 'bound_crs', 'other_crs', 'conversion', 'transformation',
  'concatenated_operation', 'other_coordinate_operation',
];
const GEOGRAPHIC_2D_CRS = 12;
const GEOGRAPHIC_3D_CRS = 13;
const COMPOUND_CRS = 16;
const TRANSFORMATION = 22;
const CONCATENATED_OPERATION = 23;
const OTHER_COORDINATE_OPERATION = 24;

const typeName = (type: number) => TYPE_NAMES[type] ?? 'unknown';

/** Runs `work` on a PROJ object, then frees it. */
function using<T>(pj: Ptr, work: (pj: Ptr) => T): T {
  try {
    return work(pj);
  } finally {
    c.proj_destroy(pj);
  }
}

/** What PROJ cannot compute about an object (an unsupported method, say) is absent, not an error. */
function optional<T>(compute: () => T): T | null {
  try {
    return call(compute);
  } catch (error) {
    if (error instanceof ProjError) return null;
    throw error;
  }
}

function fromDatabase(code: number, category: number, what: string): Ptr {
  try {
    return call(() => created(c.proj_create_from_database(ctx, 'EPSG', String(code), category, 0, 0), `Unknown ${what} EPSG:${code}`));
  } catch (error) {
    if (error instanceof ProjError && error.exception?.endsWith('NoSuchAuthorityCodeException')) {
      throw new ProjError(`Unknown ${what} EPSG:${code}`, error.exception);
    }
    if (error instanceof ProjError) throw new ProjError(`EPSG:${code}: ${error.message}`, error.exception);
    throw error;
  }
}

const requireCrs = (code: number) => fromDatabase(code, PJ_CATEGORY_CRS, 'CRS');
const requireOperation = (code: number) => fromDatabase(code, PJ_CATEGORY_COORDINATE_OPERATION, 'operation');

/** The EPSG code of an object, when EPSG is its first identifier. */
function idCode(pj: Ptr): number | null {
  if (text(c.proj_get_id_auth_name(pj, 0)) !== 'EPSG') return null;
  const code = text(c.proj_get_id_code(pj, 0));
  return code === null ? null : Number(code);
}

function areaOf(pj: Ptr): { bbox: [number, number, number, number] | null; areaName: string | null } {
  const found = c.proj_get_area_of_use(ctx, pj, scratch, scratch + 8, scratch + 16, scratch + 24, scratch + 32);
  // PROJ reports an unknown extent as -1000.
  const bbox: [number, number, number, number] | null = found && double(0) > -1000 ? [double(0), double(8), double(16), double(24)] : null;
  return { bbox, areaName: found ? string(32) : null };
}

function exportsOf(pj: Ptr): Exports {
  return {
    proj4: optional(() => text(c.proj_as_proj_string(ctx, pj, PJ_PROJ_4, 0))),
    wkt: optional(() => text(c.proj_as_wkt(ctx, pj, PJ_WKT1_GDAL, oneLineWkt))),
  };
}

/** The axes of the coordinate system that carries a CRS's first axes: compound CRSs answer for their first part. */
function axesOf(crs: Ptr): Axis[] {
  const horizontal = c.proj_get_type(crs) === COMPOUND_CRS ? c.proj_crs_get_sub_crs(ctx, crs, 0) : crs;
  if (!horizontal) return [];
  try {
    const cs = c.proj_crs_get_coordinate_system(ctx, horizontal);
    if (!cs) return [];
    return using(cs, () => {
      const axes: Axis[] = [];
      const count = c.proj_cs_get_axis_count(ctx, cs);
      for (let i = 0; i < count; i++) {
        // name, abbreviation, direction, factor (a double), unit name; unit authority and code not wanted.
        if (c.proj_cs_get_axis_info(ctx, cs, i, scratch, scratch + 4, scratch + 8, scratch + 16, scratch + 24, 0, 0)) {
          axes.push({ name: string(0), direction: string(8), unit: string(24) });
        }
      }
      return axes;
    });
  } finally {
    if (horizontal !== crs) c.proj_destroy(horizontal);
  }
}

/** The EPSG code an operation comes from: its own, or that of the registry operation PROJ inverted or derived it from. */
function operationCode(op: Ptr): number | null {
  const authority = text(c.proj_get_id_auth_name(op, 0));
  if (authority !== 'EPSG' && authority !== 'INVERSE(EPSG)' && authority !== 'DERIVED_FROM(EPSG)') return null;
  const code = text(c.proj_get_id_code(op, 0));
  return code === null ? null : Number(code);
}

/**
 * The transformations an operation is made of (itself, or the steps of a concatenation; not the
 * CRSs' own conversions), with the EPSG code each comes from (null: PROJ made it, e.g. between
 * members of a datum ensemble) and its name.
 */
function transformationSteps(op: Ptr): { code: number | null; name: string }[] {
  const type = c.proj_get_type(op);
  const code = operationCode(op);
  if (type === CONCATENATED_OPERATION && code === null) {
    const steps = c.proj_concatoperation_get_step_count(ctx, op);
    return Array.from({ length: steps }, (_, i) => c.proj_concatoperation_get_step(ctx, op, i)).flatMap((step) =>
      step ? using(step, transformationSteps) : [],
    );
  }
  const transformation = type === TRANSFORMATION || type === OTHER_COORDINATE_OPERATION || type === CONCATENATED_OPERATION;
  return transformation ? [{ code, name: text(c.proj_get_name(op)) ?? '' }] : [];
}

let projGridNames: Map<string, string> | undefined;

/**
 * The name PROJ gives a grid file today (`us_noaa_conus.tif`) for the name EPSG gives it
 * (`conus.las`). PROJ reports EPSG's name for a registry operation and puts in its own only while
 * searching operations; its C API has no lookup of one for the other, hence SQL.
 */
function projGridName(name: string): string {
  projGridNames ??= new Map(queryRegistry('SELECT original_grid_name, proj_grid_name FROM grid_alternatives').map(([from, to]) => [String(from), String(to)]));
  return projGridNames.get(name) ?? name;
}

function gridsOf(op: Ptr): GridUse[] {
  const grids: GridUse[] = [];
  const count = c.proj_coordoperation_get_grid_used_count(ctx, op);
  for (let i = 0; i < count; i++) {
    // short name, full name, package name, URL (char*); direct download, open licence, available (int).
    if (c.proj_coordoperation_get_grid_used(ctx, op, i, scratch, scratch + 4, scratch + 8, scratch + 12, scratch + 16, scratch + 20, scratch + 24)) {
      const path = string(4);
      const name = string(0);
      grids.push({ name: name === null ? null : projGridName(name), path: path ? hostPath(path) : null, available: int(24) !== 0 });
    }
  }
  return grids;
}

function describeOperation(op: Ptr): OperationSummary {
  const accuracy = c.proj_coordoperation_get_accuracy(ctx, op);
  const steps = transformationSteps(op);
  return {
    name: text(c.proj_get_name(op)),
    type: typeName(c.proj_get_type(op)),
    code: idCode(op),
    accuracy: accuracy >= 0 ? accuracy : null,
    instantiable: c.proj_coordoperation_is_instantiable(ctx, op) !== 0,
    ballpark: c.proj_coordoperation_has_ballpark_transformation(ctx, op) !== 0,
    transformations: steps.flatMap((step) => (step.code === null ? [] : [step.code])),
    transformationsComplete: steps.every((step) => step.code !== null),
    transformationName: steps.map((step) => step.name).join(' + '),
    grids: gridsOf(op),
  };
}

/** The CRS with a transformation to WGS 84 (or another hub) built in: a BoundCRS. */
function boundWith(crs: Ptr, operation: number): Ptr {
  return using(requireOperation(bindable(operation)), (op) => {
    const hub = created(c.proj_get_target_crs(ctx, op), `Operation EPSG:${operation} has no target CRS`);
    return using(hub, () => created(c.proj_crs_create_bound_crs(ctx, crs, hub, op), `EPSG:${operation} cannot be built into the CRS`));
  });
}

/** Transformers hold a PROJ object that is freed when the transformer is collected. */
const transformers = new FinalizationRegistry<Ptr>((pj) => c.proj_destroy(pj));

/**
 * One of PROJ's candidates between two CRSs, ready to run, with what PROJ ranks it by per point
 * (src/coord_operation.cpp, src/trans.cpp: pj_get_suggested_operation).
 */
interface Candidate {
  pj: Ptr;
  used: OperationUsed;
  /** Metres; -1 when unknown, as PROJ has it. */
  accuracy: number;
  /** PROJ's pseudo-area of the area of use: (east - west) × (sin north - sin south), radians. */
  pseudoArea: number;
  /** The area's name says "- offshore". */
  offshore: boolean;
  unknownArea: boolean;
  /** Operations PROJ prefers whatever the area (NADCON5 NAD83 to NAD83(HARN), the GDA null transformations). */
  priority: boolean;
  /** The area of use in degrees, `[west, south, east, north]` (west > east across the antimeridian). */
  bbox: [number, number, number, number];
}

/** Whether a longitude and latitude in degrees lie in a box (across the antimeridian when west > east). */
function inBox([west, south, east, north]: readonly number[], lon: number, lat: number): boolean {
  if (lat < south! || lat > north!) return false;
  const x = ((((lon - west!) % 360) + 360) % 360) + west!;
  return x <= (east! < west! ? east! + 360 : east!);
}

const PRIORITY_OPERATIONS = /NAD83 to NAD83\(HARN\) \((47|48|49|50)\)|GDA94 to WGS 84 \(1\)|GDA2020 to WGS 84 \(2\)/;

/** Transforms points with `pj` in the point buffer, leaving `x`, `y`, `z` as they are: the results, x then y then z, `n` each. */
function transformCopy(pj: Ptr, x: Float64Array, y: Float64Array, z: Float64Array): Float64Array {
  const n = x.length;
  const buffer = pointBuffer(n);
  const at = buffer / 8;
  let memory = heap();
  memory.set(x, at);
  memory.set(y, at + n);
  memory.set(z, at + 2 * n);
  c.proj_trans_generic(pj, PJ_FWD, buffer, 8, n, buffer + 8 * n, 8, n, buffer + 16 * n, 8, n, 0, 0, 0);
  memory = heap();
  return memory.slice(at, at + 3 * n);
}

/** Transforms `input` with `pj`; whether its result at point `i` is exactly `x`, `y`, `z`'s (PROJ's). */
function agrees(pj: Ptr, input: readonly [Float64Array, Float64Array, Float64Array], x: Float64Array, y: Float64Array, z: Float64Array): (i: number) => boolean {
  const n = x.length;
  const mine = transformCopy(pj, ...input);
  return (i) => mine[i] === x[i] && mine[n + i] === y[i] && mine[2 * n + i] === z[i];
}

/** Whether `candidate` replaces `best` as PROJ's pick for a point both can transform (pj_get_suggested_operation). */
const preferred = (candidate: Candidate, best: Candidate | null): boolean =>
  !best ||
  (((candidate.accuracy >= 0 && candidate.accuracy < best.accuracy) ||
    (candidate.accuracy === best.accuracy && candidate.pseudoArea < best.pseudoArea && !(candidate.unknownArea && !best.unknownArea) && !best.priority)) &&
    !candidate.offshore);

class WasmTransformer implements Transformer {
  failure: string | null = null;
  used: (OperationUsed | null)[] = [];

  /**
   * `pj` transforms (PROJ's own choice per point when it holds several candidates); `candidates`
   * are those candidates, to name the one applied to each point; `single` names the operation
   * when there is just one.
   */
  constructor(
    private readonly pj: Ptr,
    private readonly single: OperationUsed | null,
    private readonly candidates: readonly Candidate[],
    /** Which side's coordinates are longitude and latitude in degrees, to test areas of use on (PROJ tests them on the source's). */
    private readonly lonLat: 'source' | 'target' | null = null,
  ) {
    transformers.register(this, pj);
    for (const candidate of candidates) transformers.register(candidate, candidate.pj);
  }

  transform(x: Float64Array, y: Float64Array, z: Float64Array): number {
    const n = x.length;
    if (y.length !== n || z.length !== n) throw new Error('x, y and z must have the same length');
    // The points as given, to name the operation by (only when PROJ chose among several).
    const input = this.single ? null : ([Float64Array.from(x), Float64Array.from(y), Float64Array.from(z)] as const);
    const output = call(() => transformCopy(this.pj, x, y, z));
    x.set(output.subarray(0, n));
    y.set(output.subarray(n, 2 * n));
    z.set(output.subarray(2 * n));
    let failed = 0;
    for (let i = 0; i < n; i++) {
      // PROJ marks a point it cannot transform with HUGE_VAL (an infinity) in every coordinate.
      if (!Number.isFinite(x[i]!) || !Number.isFinite(y[i]!) || !Number.isFinite(z[i]!)) {
        x[i] = y[i] = z[i] = NaN;
        failed++;
      }
    }
    this.failure = failed > 0 ? cause() : null;
    const applied = input ? call(() => this.applied(input, x, y, z)) : null;
    this.used = Array.from({ length: n }, (_, i) => (Number.isNaN(x[i]!) ? null : (this.single ?? applied?.[i]?.used ?? null)));
    return failed;
  }

  /**
   * The candidate PROJ applied to each point, by PROJ's own rule (pj_get_suggested_operation): in
   * PROJ's order over the candidates whose area holds the point, a later one replaces the pick when
   * more accurate, or as accurate over a smaller named area, and not offshore. PROJ 9.9's
   * WebAssembly build does not export proj_trans_get_last_used_operation, and its multi-candidate
   * object has no name. Where the points are in degrees on one side, the pick goes by area alone and
   * is then checked by transforming the points with it (one batch per candidate picked, usually
   * one): its result must be exactly PROJ's. Points where it is not (PROJ fell back to another
   * candidate where its pick failed, or tested the area on the source CRS's bounds rather than in
   * degrees), and points of two projected CRSs, go to `scan`; points outside every candidate's
   * area take the first candidate, in PROJ's order, that gives PROJ's result (PROJ's fallback).
   */
  private applied(input: readonly [Float64Array, Float64Array, Float64Array], x: Float64Array, y: Float64Array, z: Float64Array): (Candidate | null)[] {
    const n = x.length;
    const degrees = this.lonLat === 'source' ? ([input[0], input[1]] as const) : this.lonLat === 'target' ? ([x, y] as const) : null;
    if (!degrees) return this.scan(input, x, y, z, null, Array.from({ length: n }, (_, i) => i));
    const [lon, lat] = degrees;
    const picked: (Candidate | null)[] = new Array(n).fill(null);
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(x[i]!)) continue;
      for (const candidate of this.candidates) if (inBox(candidate.bbox, lon[i]!, lat[i]!) && preferred(candidate, picked[i]!)) picked[i] = candidate;
    }
    let outside = Array.from({ length: n }, (_, i) => i).filter((i) => !picked[i] && !Number.isNaN(x[i]!));
    const unsure: number[] = [];
    for (const candidate of new Set(picked)) {
      if (!candidate) continue;
      const same = agrees(candidate.pj, input, x, y, z);
      for (let i = 0; i < n; i++) if (picked[i] === candidate && !same(i)) unsure.push(i);
    }
    if (unsure.length > 0) {
      const scanned = this.scan(input, x, y, z, degrees, unsure);
      for (const i of unsure) picked[i] = scanned[i]!;
    }
    // Outside every candidate's area PROJ tries them in its order and keeps the first result.
    for (const candidate of this.candidates) {
      if (outside.length === 0) break;
      const same = agrees(candidate.pj, input, x, y, z);
      for (const i of outside) if (same(i)) picked[i] = candidate;
      outside = outside.filter((i) => !picked[i]);
    }
    return picked;
  }

  /**
   * PROJ's rule over the candidates that give exactly PROJ's result at each point of `points`
   * (the one PROJ applied does), whose area holds the point where the points are in `degrees`:
   * every candidate transforms all the points.
   */
  private scan(
    input: readonly [Float64Array, Float64Array, Float64Array],
    x: Float64Array,
    y: Float64Array,
    z: Float64Array,
    degrees: readonly [Float64Array, Float64Array] | null,
    points: readonly number[],
  ): (Candidate | null)[] {
    const best: (Candidate | null)[] = new Array(x.length).fill(null);
    for (const candidate of this.candidates) {
      const inside = degrees ? points.filter((i) => inBox(candidate.bbox, degrees[0][i]!, degrees[1][i]!)) : points;
      if (inside.length === 0) continue;
      const same = agrees(candidate.pj, input, x, y, z);
      for (const i of inside) if (same(i) && preferred(candidate, best[i]!)) best[i] = candidate;
    }
    return best;
  }

  describe(): OperationSummary {
    return call(() => describeOperation(this.pj));
  }
}

/** The EPSG code naming an operation: its own, the one EPSG operation it applies, or the EPSG concatenated operation of exactly its steps. */
export function namingCode(operation: OperationSummary): number | null {
  if (operation.code !== null) return operation.code;
  if (!operation.transformationsComplete || operation.transformations.length === 0) return null;
  return operation.transformations.length === 1 ? operation.transformations[0]! : concatenationOf(operation.transformations);
}

const usedOf = (op: Ptr): OperationUsed => {
  const summary = describeOperation(op);
  return { code: namingCode(summary), name: summary.name ?? '' };
};

/** `pj` in GIS axis order (longitude/easting first); `pj` is freed. */
const normalized = (pj: Ptr): Ptr => using(pj, () => created(c.proj_normalize_for_visualization(ctx, pj), 'PROJ cannot order the axes for GIS'));

/** A transformer over one operation `pj` (which it frees). */
function transformer(pj: Ptr): Transformer {
  const used = usedOf(pj);
  return new WasmTransformer(normalized(pj), used, []);
}

/** PROJ's operation search between two CRS objects over their areas (partial intersection), best first: a PJ_OBJ_LIST, or 0. */
function createOperations(source: Ptr, target: Ptr): Ptr {
  const factory = c.proj_create_operation_factory_context(ctx, 0);
  c.proj_operation_factory_context_set_spatial_criterion(ctx, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION);
  c.proj_operation_factory_context_set_grid_availability_use(ctx, factory, PROJ_GRID_AVAILABILITY_KNOWN_AVAILABLE);
  try {
    return c.proj_create_operations(ctx, source, target, factory);
  } finally {
    c.proj_operation_factory_context_destroy(factory);
  }
}

/** PROJ's candidates from one CRS to the other as `proj_create_crs_to_crs` finds them, those that run here. */
function candidatesBetween(source: Ptr, target: Ptr): Candidate[] {
  const list = createOperations(source, target);
  if (!list) return [];
  try {
    const candidates: Candidate[] = [];
    for (let i = 0; i < c.proj_list_get_count(list); i++) {
      const op = c.proj_list_get(ctx, list, i);
      if (!op) continue;
      if (!c.proj_coordoperation_is_instantiable(ctx, op)) {
        c.proj_destroy(op);
        continue;
      }
      const { bbox, areaName } = areaOf(op);
      const [west, south, east, north] = (bbox ?? [-180, -90, 180, 90]).map((degrees) => (degrees * Math.PI) / 180) as [number, number, number, number];
      const used = usedOf(op);
      candidates.push({
        used,
        accuracy: c.proj_coordoperation_get_accuracy(ctx, op),
        pseudoArea: (east < west ? east + 2 * Math.PI - west : east - west) * (Math.sin(north) - Math.sin(south)),
        offshore: (areaName ?? '').includes('- offshore'),
        unknownArea: !areaName || areaName === 'unknown',
        priority: PRIORITY_OPERATIONS.test(used.name),
        bbox: bbox ?? [-180, -90, 180, 90],
        pj: normalized(op),
      });
    }
    return candidates;
  } finally {
    c.proj_list_destroy(list);
  }
}

/** PROJ's choice between two CRS objects (freed here), per point, by area of use. */
function between(source: Ptr, target: Ptr, description: string): Transformer {
  return using(source, () =>
    using(target, () => {
      const pj = created(c.proj_create_crs_to_crs_from_pj(ctx, source, target, 0, 0), `PROJ found no operation ${description}`);
      // With one candidate PROJ returns it, named; with several, an unnamed object that picks per point.
      if (text(c.proj_get_name(pj))) return transformer(pj);
      const inDegrees = (crs: Ptr) => [GEOGRAPHIC_2D_CRS, GEOGRAPHIC_3D_CRS].includes(c.proj_get_type(crs)) && axesOf(crs)[0]?.unit === 'degree';
      const lonLat = inDegrees(source) ? 'source' : inDegrees(target) ? 'target' : null;
      return new WasmTransformer(normalized(pj), null, candidatesBetween(source, target), lonLat);
    }),
  );
}

/** Source and target turned into BoundCRSs first: with an operation to WGS 84 (a code), PROJ's default (true), or not (false). */
function bind(crs: Ptr, how: Binding): Ptr {
  if (how === false) return crs;
  return using(crs, () =>
    typeof how === 'number' ? boundWith(crs, how) : created(c.proj_crs_create_bound_crs_to_WGS84(ctx, crs, 0), 'PROJ cannot bind the CRS to WGS 84'),
  );
}

let database: Database.Database | undefined;

/** PROJ's version and the EPSG dataset of the proj.db in use. */
export const projInfo = (): ProjInfo => ({
  projVersion: ENGINE.proj,
  databasePath: sources.database,
  epsgVersion: registry.epsgVersion,
  epsgDate: registry.epsgDate,
});

/**
 * Read-only SQL over proj.db (SQLite): rows as arrays. The registry index (registry.ts) reads whole
 * tables at once (units, coordinate systems and their axes, datums, aliases, usages), which PROJ's
 * C API has no listing for; it reads the same file the engine loaded, with better-sqlite3.
 */
export function queryRegistry(sql: string, params: readonly (string | number | null)[] = []): (string | number | null)[][] {
  database ??= new Database(sources.database, { readonly: true, fileMustExist: true });
  return database.prepare(sql).raw(true).all(...params) as (string | number | null)[][];
}

let concatenations: { stepsOf: Map<number, number[]>; bySteps: Map<string, number> } | undefined;

/**
 * The EPSG concatenated operations and their steps. SQL because PROJ's C API finds a concatenated
 * operation by code or name only, not by its steps, and cannot give the steps of one it cannot build.
 */
function concatenationTable() {
  if (concatenations) return concatenations;
  const stepsOf = new Map<number, number[]>();
  for (const [operation, step] of queryRegistry(
    `SELECT operation_code, step_code FROM concatenated_operation_step
     WHERE operation_auth_name = 'EPSG' AND step_auth_name = 'EPSG' ORDER BY operation_code, step_number`,
  )) {
    const list = stepsOf.get(Number(operation));
    if (list) list.push(Number(step));
    else stepsOf.set(Number(operation), [Number(step)]);
  }
  const bySteps = new Map<string, number>();
  // Two concatenations of the same steps (a deprecated one and its replacement): the higher code, the newer.
  for (const [operation, list] of [...stepsOf].sort(([a], [b]) => a - b)) bySteps.set(list.join(','), operation);
  return (concatenations = { stepsOf, bySteps });
}

/** The EPSG concatenated operation made of exactly these steps, in this order, or null. */
export const concatenationOf = (steps: readonly number[]): number | null => concatenationTable().bySteps.get(steps.join(',')) ?? null;

/** The grids the steps of an EPSG concatenated operation use (for one PROJ cannot build as a whole); [] for other codes. */
export const concatenationGrids = (code: number): GridUse[] =>
  (concatenationTable().stepsOf.get(code) ?? []).flatMap((step) => call(() => using(requireOperation(step), gridsOf)));

/** An EPSG CRS; throws `Unknown CRS EPSG:<code>` when there is none. */
export const crsInfo = (code: number): CrsInfo =>
  call(() =>
    using(requireCrs(code), (crs) => {
      const axes = axesOf(crs);
      const geodetic = optional(() => c.proj_crs_get_geodetic_crs(ctx, crs));
      return {
        name: text(c.proj_get_name(crs)),
        type: typeName(c.proj_get_type(crs)),
        deprecated: c.proj_is_deprecated(crs) !== 0,
        ...areaOf(crs),
        axes,
        unit: axes[0]?.unit ?? null,
        geodeticCrs: geodetic ? using(geodetic, idCode) : null,
        exports: exportsOf(crs),
      };
    }),
  );

/** An EPSG coordinate operation; throws when there is none. */
export const operationInfo = (code: number): OperationInfo =>
  call(() =>
    using(requireOperation(code), (op) => {
      const source = optional(() => c.proj_get_source_crs(ctx, op));
      const target = optional(() => c.proj_get_target_crs(ctx, op));
      const inverse = optional(() => c.proj_coordoperation_create_inverse(ctx, op));
      if (inverse) c.proj_destroy(inverse);
      const towgs84 = optional(() => c.proj_coordoperation_get_towgs84_values(ctx, op, scratch, 7, 0)) ? Array.from({ length: 7 }, (_, i) => double(8 * i)) : null;
      return {
        ...describeOperation(op),
        deprecated: c.proj_is_deprecated(op) !== 0,
        ...areaOf(op),
        sourceCrs: source ? using(source, idCode) : null,
        targetCrs: target ? using(target, idCode) : null,
        reversible: Boolean(inverse),
        towgs84,
      };
    }),
  );

/** The operations PROJ considers from one CRS to another, best first. */
export const operationsBetween = (source: number, target: number): OperationSummary[] =>
  call(() =>
    using(requireCrs(source), (from) =>
      using(requireCrs(target), (to) => {
        const list = createOperations(from, to);
        if (!list) return [];
        try {
          const count = c.proj_list_get_count(list);
          return Array.from({ length: count }, (_, i) => c.proj_list_get(ctx, list, i)).flatMap((op) => (op ? [using(op, describeOperation)] : []));
        } finally {
          c.proj_list_destroy(list);
        }
      }),
    ),
  );

/** EPSG's method code for a longitude rotation (a change of prime meridian). */
const LONGITUDE_ROTATION = '9601';

/**
 * The transformation of `operation` that a BoundCRS can carry: itself, or for a concatenation of a
 * longitude rotation and a transformation (NTF (Paris) to WGS 84), that transformation, the prime
 * meridian being the CRS's own; as PROJ binds such a CRS (CRS::createBoundCRSToWGS84IfPossible).
 */
function bindable(operation: number): number {
  const steps = concatenationTable().stepsOf.get(operation);
  if (steps?.length !== 2) return operation;
  const method = using(requireOperation(steps[0]!), (op) => (c.proj_coordoperation_get_method_info(ctx, op, 0, 0, scratch) ? string(0) : null));
  return method === LONGITUDE_ROTATION ? steps[1]! : operation;
}

/** Exports of a CRS with a transformation to WGS 84 built in (TOWGS84 or its grid). */
export const boundExports = (crs: number, operation: number): Exports =>
  call(() => using(requireCrs(crs), (pj) => using(boundWith(pj, operation), exportsOf)));

/** Exports of a CRS bound to WGS 84 as PROJ binds it (projinfo's `--boundcrs-to-wgs84`): TOWGS84 or grids, when PROJ finds them. */
export const wgs84BoundExports = (crs: number): Exports =>
  call(() =>
    using(requireCrs(crs), (pj) =>
      using(created(c.proj_crs_create_bound_crs_to_WGS84(ctx, pj, 0), `EPSG:${crs} cannot be bound to WGS 84`), exportsOf),
    ),
  );

/** PROJ's own choice between two CRSs, per point, by area of use. */
export const crsToCrs = (source: number, target: number): Transformer =>
  call(() => {
    const from = requireCrs(source);
    return between(from, freedOnFailure(from, () => requireCrs(target)), `from EPSG:${source} to EPSG:${target}`);
  });

/** One registry operation, forward or inverse. */
export const fromOperation = (code: number, inverse: boolean): Transformer =>
  call(() => {
    let op = requireOperation(code);
    if (inverse) {
      op = using(op, () => created(c.proj_coordoperation_create_inverse(ctx, op), `Operation EPSG:${code} cannot be inverted`));
    }
    if (!c.proj_coordoperation_is_instantiable(ctx, op)) {
      c.proj_destroy(op);
      throw new ProjError(`Operation EPSG:${code} cannot run here (missing grid?)`);
    }
    return transformer(op);
  });

/** PROJ's choice between the two CRSs after binding each to WGS 84. */
export const boundCrsToCrs = (source: number, target: number, sourceBinding: Binding, targetBinding: Binding): Transformer =>
  call(() => {
    const from = bind(requireCrs(source), sourceBinding);
    const to = freedOnFailure(from, () => bind(requireCrs(target), targetBinding));
    return between(from, to, `from EPSG:${source} to EPSG:${target}`);
  });

/** `work`'s result; `pj` is freed only if `work` fails (it is still needed otherwise). */
function freedOnFailure<T>(pj: Ptr, work: () => T): T {
  try {
    return work();
  } catch (error) {
    c.proj_destroy(pj);
    throw error;
  }
}
