/**
 * The KVP encoding of WMTS 1.0.0 requests (`?SERVICE=WMTS&REQUEST=GetTile&...`, WMTS 7.1.1.1 and
 * 7.2.2.1): parameter names are case-insensitive (OWS 06-121r3, 11.5.2), values are not. A wrong
 * request is an OwsException naming the parameter, never a JSON error: this is what WMTS clients
 * read.
 */

import { ApiError } from '../../platform/errors.js';
import { CONTENT_TYPES, type Format } from '../image-format.js';
import { parseLanguage } from '../language.js';
import type { LoadedMap } from '../registry.js';
import { OwsException } from './ows-exception.js';
import type { RasterTileRequest } from './raster-tiles.js';
import { TILE_MATRIX_SETS, tileMatrices, tileMatrixSetOf } from './tile-matrix-set.js';

export const WMTS_VERSION = '1.0.0';
/** The one style every layer has. */
export const DEFAULT_STYLE = 'default';

export type WmtsKvpRequest = { request: 'GetCapabilities'; language: string | null } | { request: 'GetTile'; tile: RasterTileRequest };

/** The query's parameters by lower-cased name; a parameter given twice is refused. */
function parameters(query: Record<string, unknown>): Map<string, string> {
  const named = new Map<string, string>();
  for (const [name, value] of Object.entries(query)) {
    const lower = name.toLowerCase();
    if (Array.isArray(value) || named.has(lower)) throw new OwsException('InvalidParameterValue', name.toUpperCase(), `${name.toUpperCase()} is given more than once`);
    named.set(lower, String(value));
  }
  return named;
}

/** The request a query asks for, or the OwsException it deserves. `key` is the gate's, not WMTS's. */
export function parseWmtsKvp(map: LoadedMap, query: Record<string, unknown>): WmtsKvpRequest {
  const named = parameters(query);
  const required = (name: string): string => {
    const value = named.get(name.toLowerCase());
    if (value === undefined || value === '') throw new OwsException('MissingParameterValue', name, `${name} is missing`);
    return value;
  };
  const invalid = (name: string, expected: string) => new OwsException('InvalidParameterValue', name, `${name} must be ${expected}`);

  if (required('SERVICE') !== 'WMTS') throw invalid('SERVICE', 'WMTS');
  const operation = required('REQUEST');
  const version = named.get('version');
  const language = languageOf(named.get('language'));
  if (operation === 'GetCapabilities') {
    if (version !== undefined && version !== WMTS_VERSION) throw invalid('VERSION', WMTS_VERSION);
    const accepted = named.get('acceptversions');
    if (accepted !== undefined && !accepted.split(',').includes(WMTS_VERSION)) {
      throw new OwsException('VersionNegotiationFailed', 'ACCEPTVERSIONS', `ACCEPTVERSIONS must include ${WMTS_VERSION}, the one version served`);
    }
    return { request: 'GetCapabilities', language };
  }
  if (operation === 'GetFeatureInfo') throw new OwsException('OperationNotSupported', 'GetFeatureInfo', 'GetFeatureInfo is not offered: the layers are pictures');
  if (operation !== 'GetTile') throw invalid('REQUEST', 'GetCapabilities or GetTile');

  if (required('VERSION') !== WMTS_VERSION) throw invalid('VERSION', WMTS_VERSION);
  if (required('LAYER') !== map.id) throw invalid('LAYER', `the map's identifier, ${map.id}`);
  if (required('STYLE') !== DEFAULT_STYLE) throw invalid('STYLE', DEFAULT_STYLE);
  const mediaType = required('FORMAT');
  const format = map.formats.find((allowed) => CONTENT_TYPES[allowed] === mediaType);
  if (format === undefined) throw invalid('FORMAT', `one of ${map.formats.map((allowed) => CONTENT_TYPES[allowed]).join(', ')}`);
  const set = tileMatrixSetOf(required('TILEMATRIXSET'));
  if (!set) throw invalid('TILEMATRIXSET', `one of ${TILE_MATRIX_SETS.map((known) => known.identifier).join(', ')}`);
  const matrixName = required('TILEMATRIX');
  const matrix = tileMatrices(map, set).find((candidate) => candidate.identifier === matrixName);
  if (!matrix) throw invalid('TILEMATRIX', `a tile matrix of ${set.identifier}`);
  const row = index(required('TILEROW'), 'TILEROW', matrix.matrixSize);
  const column = index(required('TILECOL'), 'TILECOL', matrix.matrixSize);
  return { request: 'GetTile', tile: { tile: { z: matrix.z, x: column, y: row, size: set.tileSize, pixelRatio: 1 }, format: format satisfies Format, language } };
}

/** A row or column: a whole number, below the matrix's size (TileOutOfRange otherwise). */
function index(text: string, name: string, size: number): number {
  if (!/^\d{1,10}$/.test(text)) throw new OwsException('InvalidParameterValue', name, `${name} must be a whole number`);
  const value = Number(text);
  if (value >= size) throw new OwsException('TileOutOfRange', name, `${name} must be below ${size} in this tile matrix`);
  return value;
}

function languageOf(value: string | undefined): string | null {
  try {
    return parseLanguage(value === '' ? undefined : value);
  } catch (error) {
    if (error instanceof ApiError) throw new OwsException('InvalidParameterValue', 'LANGUAGE', error.message);
    throw error;
  }
}
