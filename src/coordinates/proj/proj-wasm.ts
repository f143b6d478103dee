/**
 * This thread's PROJ: PROJ 9.9's C API compiled to WebAssembly (the emscripten module of npm
 * proj-wasm, used directly, not the package's high-level wrapper), one module instance and one
 * PJ_CONTEXT per thread, as PROJ contexts are not thread-safe. The module has only an in-memory
 * file system: proj.db is copied into it, and each grid becomes a lazy file there that is read
 * from disk the first time PROJ opens it.
 *
 * In this build PROJ's C++ exceptions are not caught inside the C API: they come out of the call
 * as JS exceptions (with PROJ's message). `call` turns them, and what PROJ logged during a call
 * that failed, into a `ProjError`, and puts back the stack pointer the unwinding left behind.
 *
 * Nor are they caught inside PROJ, where PROJ relies on catching them: native PROJ passes over a
 * registry operation it cannot instantiate (a method it does not implement, such as EPSG:9223's
 * time-specific Helmert, or a NADCON grid it has no name for) and goes on with the next candidate;
 * here the exception ends the whole operation search ("Unimplemented WGS 84 to ETRS89 (2)"). So
 * the first time such an exception leaves a call, the engine finds every registry operation it
 * cannot instantiate (a second or two of PROJ work, once per engine), switches to a copy of
 * proj.db without them, and runs the call again: the search then sees what native PROJ keeps.
 * A search that never met one of them gives the same answer with either database.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { pathToFileURL } from 'node:url';
import { checkEnginePackage, checkRegistry, dataSources, engineDirectory, type DataSources, type Registry } from './proj-data.js';

/** A failure PROJ reported, with PROJ's own words. */
export class ProjError extends Error {
  constructor(
    message: string,
    /** PROJ's exception class when it threw one, e.g. `osgeo::proj::io::NoSuchAuthorityCodeException`. */
    readonly exception: string | null = null,
  ) {
    super(message);
  }
}

type Ptr = number;
type ArgType = 'number' | 'string';

interface EmscriptenModule {
  FS: {
    mkdir(path: string): void;
    writeFile(path: string, data: Uint8Array): void;
    createLazyFile(parent: string, name: string, url: string, canRead: boolean, canWrite: boolean): void;
  };
  ENV: Record<string, string>;
  HEAPF64: Float64Array;
  cwrap(name: string, returnType: 'number' | null, argTypes: ArgType[]): (...args: (number | string)[]) => number;
  addFunction(fn: (...args: number[]) => void, signature: string): number;
  UTF8ToString(ptr: Ptr): string;
  stringToNewUTF8(text: string): Ptr;
  getValue(ptr: Ptr, type: 'i32' | '*' | 'double'): number;
  setValue(ptr: Ptr, value: number, type: 'i32' | '*'): void;
  stackSave(): number;
  stackRestore(sp: number): void;
  _malloc(size: number): Ptr;
  _free(ptr: Ptr): void;
}

/** The C functions Meridian calls, with their argument types (`string`: a `const char*` argument). */
const SIGNATURES = {
  proj_context_create: [],
  proj_context_set_database_path: ['number', 'string', 'number', 'number'],
  proj_log_level: ['number', 'number'],
  proj_log_func: ['number', 'number', 'number'],
  proj_context_errno: ['number'],
  proj_context_errno_string: ['number', 'number'],
  proj_context_get_database_metadata: ['number', 'string'],
  proj_create_from_database: ['number', 'string', 'string', 'number', 'number', 'number'],
  proj_destroy: ['number'],
  proj_get_name: ['number'],
  proj_get_type: ['number'],
  proj_is_deprecated: ['number'],
  proj_get_id_auth_name: ['number', 'number'],
  proj_get_id_code: ['number', 'number'],
  proj_get_area_of_use: ['number', 'number', 'number', 'number', 'number', 'number', 'number'],
  proj_as_proj_string: ['number', 'number', 'number', 'number'],
  proj_as_wkt: ['number', 'number', 'number', 'number'],
  proj_crs_get_sub_crs: ['number', 'number', 'number'],
  proj_crs_get_coordinate_system: ['number', 'number'],
  proj_crs_get_geodetic_crs: ['number', 'number'],
  proj_cs_get_axis_count: ['number', 'number'],
  proj_cs_get_axis_info: ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number'],
  proj_get_source_crs: ['number', 'number'],
  proj_get_target_crs: ['number', 'number'],
  proj_concatoperation_get_step_count: ['number', 'number'],
  proj_concatoperation_get_step: ['number', 'number', 'number'],
  proj_coordoperation_get_accuracy: ['number', 'number'],
  proj_coordoperation_get_method_info: ['number', 'number', 'number', 'number', 'number'],
  proj_coordoperation_is_instantiable: ['number', 'number'],
  proj_coordoperation_has_ballpark_transformation: ['number', 'number'],
  proj_coordoperation_get_grid_used_count: ['number', 'number'],
  proj_coordoperation_get_grid_used: ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number'],
  proj_coordoperation_create_inverse: ['number', 'number'],
  proj_coordoperation_get_towgs84_values: ['number', 'number', 'number', 'number', 'number'],
  proj_create_operation_factory_context: ['number', 'number'],
  proj_operation_factory_context_set_spatial_criterion: ['number', 'number', 'number'],
  proj_operation_factory_context_set_grid_availability_use: ['number', 'number', 'number'],
  proj_operation_factory_context_destroy: ['number'],
  proj_create_operations: ['number', 'number', 'number', 'number'],
  proj_list_get_count: ['number'],
  proj_list_get: ['number', 'number', 'number'],
  proj_list_destroy: ['number'],
  proj_crs_create_bound_crs: ['number', 'number', 'number', 'number'],
  proj_crs_create_bound_crs_to_WGS84: ['number', 'number', 'number'],
  proj_create_crs_to_crs_from_pj: ['number', 'number', 'number', 'number', 'number'],
  proj_normalize_for_visualization: ['number', 'number'],
  proj_trans_generic: ['number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number', 'number'],
} as const satisfies Record<string, readonly ArgType[]>;

export type C = { [name in keyof typeof SIGNATURES]: (...args: (number | string)[]) => number };

// Values of PROJ's C enums used here (proj.h).
export const PJ_CATEGORY_CRS = 3;
export const PJ_CATEGORY_COORDINATE_OPERATION = 4;
export const PJ_PROJ_4 = 1;
export const PJ_WKT1_GDAL = 4;
export const PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION = 1;
export const PROJ_GRID_AVAILABILITY_KNOWN_AVAILABLE = 3;
export const PJ_FWD = 1;
const PJ_LOG_ERROR = 1;

/** Where PROJ looks for its files in the module's file system. */
const DATA_DIRECTORY = '/proj';
/** proj.db without the operations this engine cannot instantiate (see the header). */
const ENGINE_DATABASE = '/engine/proj.db';

async function instantiate(sources: DataSources): Promise<EmscriptenModule> {
  const factory = ((await import(pathToFileURL(path.join(engineDirectory, 'proj-emscripten.js')).href)) as {
    default: (options: object) => Promise<EmscriptenModule>;
  }).default;
  const module = await factory({
    // PROJ reads PROJ_DATA from the module's environment, which is fixed when the runtime starts.
    preRun: [(instance: EmscriptenModule) => (instance.ENV.PROJ_DATA = DATA_DIRECTORY)],
    // Errors reach Meridian through the log function and exceptions, never stdout/stderr.
    print: () => {},
    printErr: () => {},
  });
  module.FS.mkdir(DATA_DIRECTORY);
  module.FS.mkdir(path.dirname(ENGINE_DATABASE));
  module.FS.writeFile(`${DATA_DIRECTORY}/proj.db`, readFileSync(sources.database));
  for (const [name, file] of sources.files) module.FS.createLazyFile(DATA_DIRECTORY, name, file, true, false);
  return module;
}

checkEnginePackage();
export const sources = dataSources(process.env.PROJ_DATA);
const module = await instantiate(sources);

export const c = Object.fromEntries(
  Object.entries(SIGNATURES).map(([name, args]) => [name, module.cwrap(name, 'number', [...args])]),
) as C;

export const ctx: Ptr = c.proj_context_create();

/** What PROJ logged since the current call began. */
const logged: string[] = [];
c.proj_log_level(ctx, PJ_LOG_ERROR);
c.proj_log_func(ctx, 0, module.addFunction((_data, _level, message) => logged.push(module.UTF8ToString(message)), 'viii'));

/** A C string, or null for a null pointer. */
export const text = (ptr: Ptr): string | null => (ptr ? module.UTF8ToString(ptr) : null);

/** Why the current (or last) call failed: what PROJ logged, else its error code's text when it says more than "Unknown error". */
export function cause(): string | null {
  if (logged.length > 0) return logged[logged.length - 1]!;
  const code = c.proj_context_errno(ctx);
  const meaning = code ? text(c.proj_context_errno_string(ctx, code)) : null;
  return meaning && !meaning.startsWith('Unknown error') ? meaning : null;
}

/** How deep in `call` this thread is: only the outermost call runs its work again. */
let depth = 0;

/** Runs PROJ calls; a C++ exception out of them becomes a ProjError with PROJ's message. */
export function call<T>(work: () => T): T {
  try {
    return attempt(work);
  } catch (error) {
    if (depth === 0 && error instanceof ProjError && uninstantiable(error) && withoutUninstantiable()) return attempt(work);
    throw error;
  }
}

function attempt<T>(work: () => T): T {
  const stack = module.stackSave();
  logged.length = 0;
  depth++;
  try {
    return work();
  } catch (error) {
    // Emscripten's C++ exceptions carry the exception's address; anything else is not PROJ's.
    if (error instanceof Error && typeof (error as { excPtr?: unknown }).excPtr === 'number') {
      throw new ProjError(error.message, error.name);
    }
    throw error;
  } finally {
    depth--;
    module.stackRestore(stack);
  }
}

/** What PROJ throws exporting an operation it cannot instantiate (native PROJ catches these and passes the operation over). */
const UNINSTANTIABLE = /FormattingException|InvalidOperation|invalid_argument/;
const uninstantiable = (error: ProjError) => error.exception !== null && UNINSTANTIABLE.test(error.exception);

/** The registry operations this engine cannot instantiate, once it has looked (see the header). */
let pruned: { table: string; auth: string; code: string }[] | undefined;

/** The tables behind coordinate_operation_view's `table_name` (helmert_transformation is a view). */
const OPERATION_TABLES: Record<string, string> = {
  grid_transformation: 'grid_transformation',
  helmert_transformation: 'helmert_transformation_table',
  other_transformation: 'other_transformation',
  concatenated_operation: 'concatenated_operation',
};

/**
 * Switches this engine to proj.db less the operations it cannot instantiate; false when it already
 * has (the exception then has another cause).
 */
function withoutUninstantiable(): boolean {
  if (pruned) return false;
  const registryCopy = new Database(readFileSync(sources.database));
  try {
    const operations = registryCopy.prepare('SELECT table_name, auth_name, code FROM coordinate_operation_view').raw(true).all() as [string, string, string][];
    pruned = operations
      .filter(([, auth, code]) => !instantiableOrMissingGrid(auth, String(code)))
      .map(([table, auth, code]) => ({ table, auth, code: String(code) }));
    const steps = registryCopy.prepare('DELETE FROM concatenated_operation_step WHERE operation_auth_name = ? AND operation_code = ?');
    const deletes = new Map(Object.entries(OPERATION_TABLES).map(([view, table]) => [view, registryCopy.prepare(`DELETE FROM ${table} WHERE auth_name = ? AND code = ?`)]));
    registryCopy.transaction(() => {
      for (const { table, auth, code } of pruned!) {
        deletes.get(table)!.run(auth, code);
        if (table === 'concatenated_operation') steps.run(auth, code);
      }
    })();
    module.FS.writeFile(ENGINE_DATABASE, registryCopy.serialize());
  } finally {
    registryCopy.close();
  }
  attempt(() => c.proj_context_set_database_path(ctx, ENGINE_DATABASE, 0, 0) || failed(`PROJ cannot open ${ENGINE_DATABASE}`));
  return true;
}

/** Whether PROJ can instantiate a registry operation, or would if its grids were here: false when PROJ throws trying. */
function instantiableOrMissingGrid(auth: string, code: string): boolean {
  try {
    attempt(() => {
      const op = c.proj_create_from_database(ctx, auth, code, PJ_CATEGORY_COORDINATE_OPERATION, 0, 0);
      if (op) {
        try {
          c.proj_coordoperation_is_instantiable(ctx, op);
        } finally {
          c.proj_destroy(op);
        }
      }
    });
    return true;
  } catch (error) {
    if (error instanceof ProjError && uninstantiable(error)) return false;
    throw error;
  }
}

/** The registry operations the engine passes over (empty until the first one was met): `AUTH:code`. */
export const passedOver = (): string[] => (pruned ?? []).map(({ auth, code }) => `${auth}:${code}`);

const failed = (message: string): never => {
  throw new ProjError(message);
};

/** The object a PROJ call returned; a null one is a ProjError naming PROJ's cause, or `failure`. */
export function created(ptr: Ptr, failure: string): Ptr {
  if (!ptr) {
    const why = cause();
    throw new ProjError(why ? `${failure}: ${why}` : failure);
  }
  return ptr;
}

/**
 * Scratch memory for output arguments (doubles, ints, `const char*`), reused by each call: PROJ
 * calls are synchronous and never nested here.
 */
export const scratch: Ptr = module._malloc(128);
export const double = (offset: number): number => module.getValue(scratch + offset, 'double');
export const int = (offset: number): number => module.getValue(scratch + offset, 'i32');
export const string = (offset: number): string | null => text(module.getValue(scratch + offset, '*'));

/** `{"MULTILINE=NO", NULL}`: the options for one-line WKT. */
export const oneLineWkt: Ptr = module._malloc(8);
module.setValue(oneLineWkt, module.stringToNewUTF8('MULTILINE=NO'), '*');
module.setValue(oneLineWkt + 4, 0, '*');

let points: Ptr = 0;
let capacity = 0;

/** Room for `n` points (x, y then z, each `n` doubles), grown when needed: its address. */
export function pointBuffer(n: number): Ptr {
  if (n > capacity) {
    if (points) module._free(points);
    capacity = Math.max(n, 64);
    points = module._malloc(capacity * 3 * 8);
  }
  return points;
}

/** The file on this machine behind a path of the module's file system (PROJ names grids by the latter). */
export function hostPath(file: string): string {
  const name = file.startsWith(`${DATA_DIRECTORY}/`) ? file.slice(DATA_DIRECTORY.length + 1) : null;
  return (name !== null && sources.files.get(name)) || file;
}

/** The module's memory as doubles (a new view after the memory grows). */
export const heap = (): Float64Array => module.HEAPF64;

/** The proj.db in use passed its integrity check: its EPSG version. */
export const registry: Registry = call(() => {
  const metadata = (key: string) => text(c.proj_context_get_database_metadata(ctx, key));
  return checkRegistry(metadata, sources.database, sources.replaced);
});
