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

import { boundExports, crsInfo, operationInfo, operationsBetween, type Exports, type OperationInfo } from './proj.js';

const WGS84 = 4326;

/** What to compute for one CRS of a page. */
export interface CrsWork {
  code: number;
  /** Its default transformation is not known yet: find it. */
  defaultTransformation: boolean;
  /** Its exports, with the default transformation built in. */
  exports: boolean;
  /** The default transformation when it is known already (exports need it). */
  knownDefault?: number | null;
  /** Transformations whose exports with this CRS (bound to them) are wanted. */
  bound: readonly number[];
}

export interface DeriveTask {
  /** In the order of the page: the first ones get done first. */
  crs: readonly CrsWork[];
  /** Transformations whose description is wanted. */
  operations: readonly number[];
}

/** The best of PROJ's candidates from a CRS to WGS 84 that one EPSG code names (see search.ts). */
export interface DefaultTransformation {
  code: number;
  accuracy: number | null;
}

export interface CrsFacts {
  code: number;
  /** When asked for: the default transformation, null when there is none. */
  defaultTransformation?: DefaultTransformation | null;
  exports?: Exports;
  /** Exports with a transformation built in (null: PROJ cannot build it), for those done. */
  bound: [number, Exports | null][];
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

/** The default transformation: the first candidate that runs here, is not a ballpark, and is one EPSG code. */
export function defaultTransformationOf(code: number): DefaultTransformation | null {
  const candidates = attempt(() => operationsBetween(code, WGS84)) ?? [];
  const best = candidates.find((operation) => operation.instantiable && !operation.ballpark && operation.transformations.length === 1);
  return best ? { code: best.transformations[0]!, accuracy: best.accuracy } : null;
}

/** Exports of a CRS with its default transformation built in; plain when it has none or PROJ cannot bind it. */
export function crsExportsOf(code: number, defaultTransformation: number | null): Exports {
  const bound = defaultTransformation === null ? null : attempt(() => boundExports(code, defaultTransformation));
  return bound ?? attempt(() => crsInfo(code).exports) ?? { proj4: null, wkt: null };
}

export const boundExportsOf = (code: number, operation: number): Exports | null => attempt(() => boundExports(code, operation));

export const operationOf = (code: number): OperationInfo | null => attempt(() => operationInfo(code));

/** Computes what the task asks for, CRS by CRS, until done or `deadline` (of `now`'s clock). */
export function derive(task: DeriveTask, deadline = Infinity, now: () => number = () => performance.now()): Derived {
  const derived: Derived = { crs: [], operations: [], complete: false };
  const wanted = new Set(task.operations);
  const late = () => now() >= deadline;
  for (const work of task.crs) {
    const facts: CrsFacts = { code: work.code, bound: [] };
    derived.crs.push(facts);
    let known = work.knownDefault ?? null;
    if (work.defaultTransformation) {
      if (late()) return derived;
      facts.defaultTransformation = defaultTransformationOf(work.code);
      known = facts.defaultTransformation?.code ?? null;
    }
    if (work.exports) {
      if (late()) return derived;
      facts.exports = crsExportsOf(work.code, known);
    }
    for (const operation of work.bound) {
      if (wanted.delete(operation)) {
        if (late()) return derived;
        derived.operations.push([operation, operationOf(operation)]);
      }
      if (late()) return derived;
      facts.bound.push([operation, boundExportsOf(work.code, operation)]);
    }
  }
  for (const operation of wanted) {
    if (late()) return derived;
    derived.operations.push([operation, operationOf(operation)]);
  }
  derived.complete = true;
  return derived;
}
