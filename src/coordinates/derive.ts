/**
 * What search results need from PROJ itself, as plain data: a CRS's default transformation to
 * WGS 84 (PROJ's operation search: from under a millisecond to half a second a CRS), its exports,
 * the exports with each of its transformations built in, and the description of those
 * transformations. The registry index is not needed here: the serving thread says what to compute
 * and assembles the items (search.ts); this runs wherever it is sent, on a thread of the
 * coordinates pool (worker.ts) or in-line.
 *
 * Only the engine's typed entry points (proj.ts) are used, so any PROJ build behind them will do.
 * Work stops at a deadline between two PROJ calls: what was computed by then is returned, marked
 * incomplete, and the caller keeps it.
 */

import { PlanCache, transformPoints, type XYZ } from './transform.js';
import { boundExports, concatenationGrids, namingCode, crsInfo, operationInfo, operationsBetween, wgs84BoundExports, type Exports, type OperationInfo } from './proj/proj.js';

const WGS84 = 4326;

/** What to compute for one CRS of a page. */
export interface CrsWork {
  code: number;
  /** Its default transformation is not known yet: find it. */
  defaultTransformation: boolean;
  /** Its exports, bound to WGS 84 as PROJ binds it. */
  exports: boolean;
  /** Transformations whose exports with this CRS (bound to them) are wanted. */
  bound: readonly number[];
}

export interface DeriveTask {
  /** In the order of the page: the first ones get done first. */
  crs: readonly CrsWork[];
  /** Transformations whose description is wanted. */
  operations: readonly number[];
}

/**
 * PROJ's first candidate from a CRS to WGS 84 that runs here (see search.ts): the EPSG operations
 * it is made of, in order, and the EPSG code naming it all when there is one (the operation
 * itself, or the EPSG concatenated operation made of exactly those steps).
 */
export interface DefaultTransformation {
  code: number | null;
  steps: number[];
  name: string;
  accuracy: number | null;
}

/** A transformation of a CRS's list, as it works with that CRS. */
export interface BoundFacts {
  /** The CRS's exports with it built in; null: PROJ cannot build that. */
  exports: Exports | null;
  /** A transform from the CRS with it (`ops=`) answers, at the middle of the area both cover. */
  works: boolean;
}

export interface CrsFacts {
  code: number;
  /** When asked for: the default transformation, null when there is none. */
  defaultTransformation?: DefaultTransformation | null;
  exports?: Exports;
  /** The transformations of its list done so far. */
  bound: [number, BoundFacts][];
}

export interface Derived {
  crs: CrsFacts[];
  /** Descriptions of transformations (null: PROJ cannot build it), for those done. */
  operations: [number, OperationInfo | null][];
  /** False when the deadline came before everything asked for was computed. */
  complete: boolean;
}

/** PROJ cannot build every registry object (unsupported methods): such data is reported as absent. */
function attempt<T>(compute: () => T): T | null {
  try {
    return compute();
  } catch {
    return null;
  }
}

/**
 * The default transformation: PROJ's first candidate over the CRS's area that runs here (as
 * `proj_create_crs_to_crs` discards those whose grids are missing), when it is made of EPSG
 * operations (not a ballpark: CRSs on WGS 84's own datum have none).
 */
export function defaultTransformationOf(code: number): DefaultTransformation | null {
  const candidates = attempt(() => operationsBetween(code, WGS84)) ?? [];
  const best = candidates.find((operation) => operation.instantiable);
  if (!best || best.ballpark || best.transformations.length === 0) return null;
  return { code: namingCode(best), steps: best.transformations, name: best.transformationName, accuracy: best.accuracy };
}

/** Exports of a CRS bound to WGS 84 by PROJ; plain when PROJ cannot bind it. */
export function crsExportsOf(code: number): Exports {
  return attempt(() => wgs84BoundExports(code)) ?? attempt(() => crsInfo(code).exports) ?? { proj4: null, wkt: null };
}

export const boundExportsOf = (code: number, operation: number): Exports | null => attempt(() => boundExports(code, operation));

/** The middle of the part of two areas both cover (west > east: across the antimeridian); null when they do not meet. */
function commonMiddle(a: readonly number[], b: readonly number[]): XYZ | null {
  const unwrap = (box: readonly number[]) => [box[0]!, box[1]!, box[2]! < box[0]! ? box[2]! + 360 : box[2]!, box[3]!];
  const [aw, as, ae, an] = unwrap(a);
  for (const shift of [-360, 0, 360]) {
    const [bw, bs, be, bn] = unwrap(b).map((value, i) => (i % 2 === 0 ? value + shift : value));
    const [west, south, east, north] = [Math.max(aw!, bw!), Math.max(as!, bs!), Math.min(ae!, be!), Math.min(an!, bn!)];
    if (west <= east && south <= north) {
      const x = (west + east) / 2;
      return { x: x > 180 ? x - 360 : x, y: (south + north) / 2, z: 0 };
    }
  }
  return null;
}

/**
 * Whether `/coordinates/transform` from the CRS through the operation (`ops=`) to the operation's
 * target answers: at the middle of the area both cover, as the endpoint plans it. An operation
 * whose area misses the CRS's does not work with it.
 */
export function worksWith(code: number, operation: number, plans: PlanCache): boolean {
  return (
    attempt(() => {
      const info = operationInfo(operation);
      const crs = crsInfo(code);
      const middle = crs.bbox && info.bbox ? commonMiddle(crs.bbox, info.bbox) : null;
      if (!middle || info.targetCrs === null) return false;
      const [point] = transformPoints(plans, [middle], WGS84, code, []).results;
      transformPoints(plans, [point!], code, info.targetCrs, [operation]);
      return true;
    }) ?? false
  );
}

/**
 * The description of an operation; null when PROJ cannot build it. An EPSG concatenated operation
 * PROJ cannot build as a whole (8422: steps that do not chain for PROJ) is still described by the
 * grids its steps use, and cannot run here.
 */
export function operationOf(code: number): OperationInfo | null {
  const info = attempt(() => operationInfo(code));
  if (info) return info;
  const grids = attempt(() => concatenationGrids(code)) ?? [];
  if (grids.length === 0) return null;
  return {
    name: null, type: 'concatenated_operation', code, accuracy: null, instantiable: false, ballpark: false,
    transformations: [code], transformationsComplete: true, transformationName: '', grids,
    deprecated: false, bbox: null, areaName: null, sourceCrs: null, targetCrs: null, reversible: false, towgs84: null,
  };
}

/** Computes what the task asks for, CRS by CRS, until done or `deadline` (of `now`'s clock). */
export function derive(task: DeriveTask, deadline = Infinity, now: () => number = () => performance.now()): Derived {
  const derived: Derived = { crs: [], operations: [], complete: false };
  const wanted = new Set(task.operations);
  const late = () => now() >= deadline;
  const plans = new PlanCache();
  for (const work of task.crs) {
    const facts: CrsFacts = { code: work.code, bound: [] };
    derived.crs.push(facts);
    if (work.defaultTransformation) {
      if (late()) return derived;
      facts.defaultTransformation = defaultTransformationOf(work.code);
    }
    if (work.exports) {
      if (late()) return derived;
      facts.exports = crsExportsOf(work.code);
    }
    for (const operation of work.bound) {
      if (wanted.delete(operation)) {
        if (late()) return derived;
        derived.operations.push([operation, operationOf(operation)]);
      }
      if (late()) return derived;
      facts.bound.push([operation, { exports: boundExportsOf(work.code, operation), works: worksWith(work.code, operation, plans) }]);
    }
  }
  for (const operation of wanted) {
    if (late()) return derived;
    derived.operations.push([operation, operationOf(operation)]);
  }
  derived.complete = true;
  return derived;
}
