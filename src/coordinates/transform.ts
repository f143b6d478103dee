import { ApiError } from '../platform/errors.js';
import {
  boundCrsToCrs,
  crsInfo,
  crsToCrs,
  fromOperation,
  operationInfo,
  ProjError,
  type Binding,
  type OperationUsed,
  type Transformer,
} from './proj/proj.js';
import { Lru } from '../platform/lru.js';

/** A client error of the transform endpoint: its message is safe to return (becomes a 400). */
export class TransformError extends ApiError {}

export const maxTuples = 50;
export type Strategy = 'auto' | 'listed' | 'towgs84' | 'boundcrs';

export interface XYZ {
  x: number;
  y: number;
  z: number;
}

const number = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** `x,y[,z];x,y[,z];...`: 1 to 50 tuples of finite numbers. A missing z is 0. */
export function parseCoordinates(text: string): XYZ[] {
  const tuples = text.split(';');
  if (tuples.length > maxTuples) throw new TransformError(`At most ${maxTuples} coordinate tuples are allowed, got ${tuples.length}`);
  return tuples.map((tuple, index) => {
    const parts = tuple.split(',');
    if (parts.length < 2 || parts.length > 3) {
      throw new TransformError(`Coordinate tuple ${index + 1} "${tuple}" must be x,y or x,y,z`);
    }
    const values = parts.map((part) => {
      const trimmed = part.trim();
      const value = Number(trimmed);
      if (!number.test(trimmed) || !Number.isFinite(value)) {
        throw new TransformError(`Coordinate tuple ${index + 1} "${tuple}" holds "${part}", which is not a finite number`);
      }
      return value;
    });
    return { x: values[0]!, y: values[1]!, z: values[2] ?? 0 };
  });
}

/** `ops`: EPSG operation codes separated by `|`. */
export function parseOperations(text: string): number[] {
  const codes = text.split('|');
  if (codes.some((code) => !/^\d{1,9}$/.test(code))) {
    throw new TransformError(`ops must be EPSG operation codes separated by "|", got "${text}"`);
  }
  return codes.map(Number);
}

interface Plan {
  transformer: Transformer;
  strategy: Strategy;
}


/**
 * Chooses how to go from `source` to `target`. Without `ops`, PROJ's own choice per point
 * (`auto`). With `ops`, the first listed operation that connects the two systems, forward or
 * inverse, where a system is connected through itself or the geodetic CRS it is based on
 * (`listed`); else the systems patched with a listed operation's Helmert parameters (`towgs84`);
 * else both bound to WGS 84 by PROJ's defaults (`boundcrs`).
 */
export function plan(source: number, target: number, ops: readonly number[]): Plan {
  try {
    return choose(source, target, ops);
  } catch (error) {
    // What PROJ cannot do with the request's codes is the client's to know, in PROJ's words.
    if (error instanceof ProjError) throw new TransformError(error.message);
    throw error;
  }
}

function choose(source: number, target: number, ops: readonly number[]): Plan {
  const from = crsInfo(source);
  const to = crsInfo(target);
  if (ops.length === 0) return { transformer: crsToCrs(source, target), strategy: 'auto' };

  const operations = ops.map((code) => ({ code, info: operationInfo(code) }));
  const fromSystems = new Set([source, from.geodeticCrs]);
  const toSystems = new Set([target, to.geodeticCrs]);
  for (const { code, info } of operations) {
    const forward = fromSystems.has(info.sourceCrs) && toSystems.has(info.targetCrs);
    const inverse = info.reversible && fromSystems.has(info.targetCrs) && toSystems.has(info.sourceCrs);
    if (!forward && !inverse) continue;
    if (!info.instantiable) throw new TransformError(`Operation EPSG:${code} cannot run on this server: a grid it needs is missing`);
    const exact = forward ? info.sourceCrs === source && info.targetCrs === target : info.sourceCrs === target && info.targetCrs === source;
    if (exact) return { transformer: fromOperation(code, !forward), strategy: 'listed' };
    // Between the systems' geodetic bases: bind the side the operation starts from to it.
    const transformer = forward ? boundCrsToCrs(source, target, code, false) : boundCrsToCrs(source, target, false, code);
    return { transformer, strategy: 'listed' };
  }

  const helmert = (systems: Set<number | null>): Binding => {
    const match = operations.find(({ info }) => info.towgs84 !== null && systems.has(info.sourceCrs));
    return match ? match.code : false;
  };
  const sourceBinding = helmert(fromSystems);
  const targetBinding = helmert(toSystems);
  if (sourceBinding !== false || targetBinding !== false) {
    return { transformer: boundCrsToCrs(source, target, sourceBinding, targetBinding), strategy: 'towgs84' };
  }
  return { transformer: boundCrsToCrs(source, target, true, true), strategy: 'boundcrs' };
}

/**
 * Plans are costly to make (a millisecond to seconds of PROJ's operation search) and cheap to use:
 * keep the recent ones, and the pairs PROJ refused, so that neither is searched again.
 */
export class PlanCache {
  private readonly plans: Lru<string, Plan | TransformError>;

  constructor(capacity = 256) {
    this.plans = new Lru(capacity);
  }

  get(source: number, target: number, ops: readonly number[]): Plan {
    const key = pairKey(source, target, ops);
    let entry = this.plans.get(key);
    if (entry === undefined) {
      try {
        entry = plan(source, target, ops);
      } catch (error) {
        if (!(error instanceof TransformError)) throw error;
        entry = error;
      }
      this.plans.set(key, entry);
    }
    if (entry instanceof TransformError) throw entry;
    return entry;
  }
}

/** Names a request's pair of systems and listed operations. */
export const pairKey = (source: number, target: number, ops: readonly number[]): string => `${source}|${target}|${ops.join('|')}`;

/** A point transformed by an operation no candidate reproduces (none known to happen): said so rather than guessed. */
const UNNAMED: OperationUsed = { code: null, name: '' };

export interface TransformResult {
  results: XYZ[];
  /** The operation PROJ applied to each point, in the order of `results`. */
  operations: OperationUsed[];
  transformer_selection_strategy: Strategy;
}

/** One transform request, as plain data (it crosses to a thread of the coordinates pool). */
export interface TransformTask {
  points: XYZ[];
  source: number;
  target: number;
  ops: number[];
}

/**
 * How a transform ended, as plain data: its result, or the client's error, which says whether it
 * is about the pair (every request for it gets it: remembered) or about these points.
 */
export type TransformOutcome = { result: TransformResult } | { refused: string; pair: boolean };

/** Where a transform's late end is told. */
export interface TransformLog {
  warn(details: object, message: string): void;
}

/** Where transforms run: a thread of the coordinates pool (pool.ts), or in-line. */
export interface Transforms {
  transform(task: TransformTask, log: TransformLog): Promise<TransformResult>;
}

/** Transforms on the calling thread: for benchmarks that compare it with the pool. */
export function inlineTransforms(): Transforms {
  const plans = new PlanCache();
  return { transform: async (task) => resultOf(runTransform(plans, task)) };
}

/** The result of a transform, or its refusal as the client's error. */
export function resultOf(outcome: TransformOutcome): TransformResult {
  if ('refused' in outcome) throw new TransformError(outcome.refused);
  return outcome.result;
}

/** Runs a transform with the plans of this thread. */
export function runTransform(cache: PlanCache, { points, source, target, ops }: TransformTask): TransformOutcome {
  let pairPlan: Plan;
  try {
    pairPlan = cache.get(source, target, ops);
  } catch (error) {
    if (error instanceof TransformError) return { refused: error.message, pair: true };
    throw error;
  }
  try {
    return { result: transformWith(pairPlan, points, source, target) };
  } catch (error) {
    if (error instanceof TransformError) return { refused: error.message, pair: false };
    throw error;
  }
}

/**
 * Transforms points in GIS order (x = longitude or easting). A point PROJ cannot transform
 * (outside the operation's domain, say) fails the request with a message naming it, rather
 * than coming back as an infinity.
 */
export function transformPoints(cache: PlanCache, points: readonly XYZ[], source: number, target: number, ops: readonly number[]): TransformResult {
  return transformWith(cache.get(source, target, ops), points, source, target);
}

function transformWith({ transformer, strategy }: Plan, points: readonly XYZ[], source: number, target: number): TransformResult {
  const x = Float64Array.from(points, (p) => p.x);
  const y = Float64Array.from(points, (p) => p.y);
  const z = Float64Array.from(points, (p) => p.z);
  let failures: number;
  try {
    failures = transformer.transform(x, y, z);
  } catch (error) {
    // PROJ throwing while it transforms (rather than marking points) is about this request's systems.
    if (error instanceof ProjError) throw new TransformError(`EPSG:${source} to EPSG:${target}: ${error.message}`);
    throw error;
  }
  if (failures > 0) {
    const failed = points.flatMap((_, i) => (Number.isNaN(x[i]) ? [i + 1] : []));
    throw new TransformError(
      `Coordinate tuple${failed.length > 1 ? 's' : ''} ${failed.join(', ')} cannot be transformed from EPSG:${source} to EPSG:${target}: ${transformer.failure ?? 'outside the area the transformation covers?'}`,
    );
  }
  return {
    results: points.map((_, i) => ({ x: x[i]!, y: y[i]!, z: z[i]! })),
    operations: transformer.used.map((used) => used ?? UNNAMED),
    transformer_selection_strategy: strategy,
  };
}
