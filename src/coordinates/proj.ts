import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Typed entry points to PROJ's C API through Meridian's native addon (`native/proj`), built
 * against Debian's libproj by `npm run setup`. One function per operation, as in PROJ; each
 * thread that imports this module gets its own PROJ context.
 */

export interface ProjInfo {
  projVersion: string;
  databasePath: string | null;
  /** EPSG dataset version of proj.db, e.g. `v10.076`. */
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

export interface Transformer {
  /** Transforms in place, in GIS order (longitude/easting first). Failed points become NaN; returns their count. */
  transform(x: Float64Array, y: Float64Array, z: Float64Array): number;
  describe(): OperationSummary;
}

/** How a CRS is turned into a BoundCRS before transforming: an operation code, PROJ's default (true), or not (false). */
export type Binding = number | boolean;

interface Addon {
  info(): ProjInfo;
  query(sql: string, params?: readonly (string | number | null)[]): (string | number | null)[][];
  crs(code: string): CrsInfo;
  operation(code: string): OperationInfo;
  operations(source: string, target: string): OperationSummary[];
  boundExports(crs: string, operation: string): Exports;
  crsToCrs(source: string, target: string): Transformer;
  fromOperation(code: string, inverse: boolean): Transformer;
  boundCrsToCrs(source: string, target: string, sourceBinding: Binding, targetBinding: Binding): Transformer;
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const addon = createRequire(import.meta.url)(path.join(root, 'native/proj/build/Release/meridian_proj.node')) as Addon;

/** PROJ's version and the EPSG dataset of the proj.db in use. */
export const projInfo = (): ProjInfo => addon.info();

/** Read-only SQL over proj.db (SQLite): rows as arrays. */
export const queryRegistry = (sql: string, params: readonly (string | number | null)[] = []) => addon.query(sql, params);

/** An EPSG CRS; throws `Unknown CRS EPSG:<code>` when there is none. */
export const crsInfo = (code: number): CrsInfo => addon.crs(String(code));

/** An EPSG coordinate operation; throws when there is none. */
export const operationInfo = (code: number): OperationInfo => addon.operation(String(code));

/** The operations PROJ considers from one CRS to another, best first. */
export const operationsBetween = (source: number, target: number): OperationSummary[] =>
  addon.operations(String(source), String(target));

/** Exports of a CRS with a transformation to WGS 84 built in (TOWGS84 or its grid). */
export const boundExports = (crs: number, operation: number): Exports => addon.boundExports(String(crs), String(operation));

/** PROJ's own choice between two CRSs, per point, by area of use. */
export const crsToCrs = (source: number, target: number): Transformer => addon.crsToCrs(String(source), String(target));

/** One registry operation, forward or inverse. */
export const fromOperation = (code: number, inverse: boolean): Transformer => addon.fromOperation(String(code), inverse);

/** PROJ's choice between the two CRSs after binding each to WGS 84. */
export const boundCrsToCrs = (source: number, target: number, sourceBinding: Binding, targetBinding: Binding): Transformer =>
  addon.boundCrsToCrs(String(source), String(target), sourceBinding, targetBinding);
