/**
 * The `path` and `markers` query values of static maps. A value must match the pattern of the spec
 * (section 4.2) as a whole; the options then get their meaning here:
 *   path:    fill:<colour|none|false>, stroke:<colour>, width:<0 < n <= MAX_PATH_WIDTH CSS px>,
 *            shortest:<true|false|1|0>; then `enc:<Google polyline>` (lat/lon inside the encoding,
 *            takes the rest of the value) or two or more `lon,lat` pairs.
 *   markers: icon:<http(s) URL>, anchor:<one of ANCHORS>, scale:<0 < n <= MAX_MARKER_SCALE>;
 *            then `lon,lat[,colour]` entries.
 * A repeated option: the last one wins. `latlng` swaps the written pairs (not `enc:`, which is
 * lat/lon by definition). Coordinates must lie within |lon| <= 180 and |lat| <= 90.
 */

import { parseColor, parseFill, rgba, type RGBA } from './color.js';
import { lonLatOutside, outOfBounds } from '../errors.js';
import { decodePolyline, PolylineError } from './polyline.js';
import type { LonLat } from '../../platform/web-mercator.js';
import { ApiError } from '../../platform/errors.js';


export interface Path {
  fill: RGBA | null;
  stroke: RGBA;
  width: number;
  shortest: boolean;
  points: LonLat[];
  closed: boolean;
}

export const ANCHORS = [
  'top', 'left', 'bottom', 'right', 'center', 'topleft', 'bottomleft', 'topright', 'bottomright',
] as const;
export type Anchor = (typeof ANCHORS)[number];

export interface Marker {
  lon: number;
  lat: number;
  /** Colour of the default pin; `null` draws it in its own colour. */
  color: RGBA | null;
}

export interface MarkerGroup {
  /** URL of the icon image; `null` draws the default pin. */
  icon: string | null;
  anchor: Anchor;
  scale: number;
  markers: Marker[];
}

/** Path style defaults of a request: the deprecated `fill`/`stroke`/`width` and the `shortest` parameter. */
export interface PathDefaults {
  /** When set (even to `null`, no fill), it applies to every path, closed or not. */
  fill?: RGBA | null;
  stroke?: RGBA;
  width?: number;
  shortest?: boolean;
}

export const DEFAULT_STROKE = rgba(0, 64, 255, 0.7);
export const DEFAULT_CLOSED_FILL = rgba(255, 255, 255, 0.4);
export const DEFAULT_WIDTH = 1;
export const DEFAULT_ANCHOR: Anchor = 'bottom';
export const DEFAULT_SCALE = 1;
/** Wider strokes or larger markers than these cover the map rather than annotate it. */
export const MAX_PATH_WIDTH = 50;
export const MAX_MARKER_SCALE = 4;

// The spec's patterns with `-?\d+\.?\d*` rewritten as the equal language `-?\d+(?:\.\d*)?`: the
// original splits a run of digits in many ways, which backtracks exponentially on a near-miss.
const NUM = String.raw`-?\d+(?:\.\d*)?`;
const PAIR = `${NUM},${NUM}`;
const PATH_PATTERN = new RegExp(String.raw`^(?:(?:fill|stroke|width|shortest):[^|]+\|)*(?:enc:.+|(?:${PAIR}\|)+${PAIR})$`);
/** A path of a single point, which the pattern refuses: its error says what is missing. */
const ONE_POINT = new RegExp(String.raw`^(?:(?:fill|stroke|width|shortest):[^|]+\|)*${PAIR}$`);
export const ONE_POINT_PATH = 'Invalid path: a path needs at least two points';
const ENTRY = `${PAIR}(?:,[^|]+)?`;
// The spec's markers pattern repeats entries with `+`, asking for two; its prose says one or more,
// and a single marker is the common case, so the prose wins (`*`).
const MARKERS_PATTERN = new RegExp(String.raw`^(?:(?:icon|anchor|scale):[^|]+\|)*(?:${ENTRY}\|)*${ENTRY}$`);
const OPTION = /^(fill|stroke|width|shortest|icon|anchor|scale):(.+)$/s;
const ENTRY_PARTS = new RegExp(`^(${NUM}),(${NUM})(?:,(.+))?$`, 's');
const POSITIVE = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

export function parsePath(value: string, defaults: PathDefaults = {}, latlng = false): Path {
  if (!PATH_PATTERN.test(value)) throw ONE_POINT.test(value) ? new ApiError(ONE_POINT_PATH) : invalid('path');
  const { options, rest } = splitOptions(value);
  let fill: RGBA | null | undefined = defaults.fill;
  let stroke = defaults.stroke ?? DEFAULT_STROKE;
  let width = defaults.width ?? DEFAULT_WIDTH;
  let shortest = defaults.shortest ?? false;
  for (const [name, text] of options) {
    if (name === 'fill') fill = parseFillOption(text);
    else if (name === 'stroke') stroke = parseColor(text) ?? fail('path stroke');
    else if (name === 'width') width = parseWidth(text) ?? fail('path width');
    else shortest = parseBoolean(text) ?? fail('path shortest');
  }
  const points = rest.startsWith('enc:') ? decodeEnc(rest.slice(4)) : rest.split('|').map((pair) => readPair(pair, latlng));
  if (points.length < 2) throw new ApiError(ONE_POINT_PATH);
  for (const point of points) checkRange(point);
  const [first, last] = [points[0]!, points[points.length - 1]!];
  const closed = first[0] === last[0] && first[1] === last[1];
  if (fill === undefined) fill = closed ? DEFAULT_CLOSED_FILL : null;
  return { fill, stroke, width, shortest, points, closed };
}

export function parseMarkers(value: string, latlng = false): MarkerGroup {
  if (!MARKERS_PATTERN.test(value)) throw invalid('markers');
  const { options, rest } = splitOptions(value);
  let icon: string | null = null;
  let anchor = DEFAULT_ANCHOR;
  let scale = DEFAULT_SCALE;
  for (const [name, text] of options) {
    if (name === 'icon') icon = parseIconUrl(text) ?? fail('markers icon');
    else if (name === 'anchor') anchor = ANCHORS.find((known) => known === text) ?? fail('markers anchor');
    else scale = parseScale(text) ?? fail('markers scale');
  }
  const markers = rest.split('|').map((entry): Marker => {
    const match = ENTRY_PARTS.exec(entry) ?? fail('markers');
    const [lon, lat] = orient(Number(match[1]), Number(match[2]), latlng);
    checkRange([lon, lat]);
    const color = match[3] === undefined ? null : parseColor(match[3]) ?? fail('markers colour');
    return { lon, lat, color };
  });
  return { icon, anchor, scale, markers };
}

function parseFillOption(text: string): RGBA | null {
  const fill = parseFill(text);
  return fill === undefined ? fail('path fill') : fill;
}

export function parseBoolean(text: string): boolean | undefined {
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  return undefined;
}

export function parseWidth(text: string): number | undefined {
  return positiveUpTo(text, MAX_PATH_WIDTH);
}

function parseScale(text: string): number | undefined {
  return positiveUpTo(text, MAX_MARKER_SCALE);
}

function positiveUpTo(text: string, max: number): number | undefined {
  if (!POSITIVE.test(text)) return undefined;
  const number = Number(text);
  return number > 0 && number <= max ? number : undefined;
}

function parseIconUrl(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/** Splits the leading `name:value|` options from the coordinates; the pattern has already matched. */
function splitOptions(value: string): { options: [string, string][]; rest: string } {
  const options: [string, string][] = [];
  let rest = value;
  for (;;) {
    if (rest.startsWith('enc:')) break;
    const end = rest.indexOf('|');
    const match = end < 0 ? null : OPTION.exec(rest.slice(0, end));
    if (!match) break;
    options.push([match[1]!, match[2]!]);
    rest = rest.slice(end + 1);
  }
  return { options, rest };
}

function decodeEnc(text: string): LonLat[] {
  try {
    return decodePolyline(text).map(([lat, lon]) => [lon, lat]);
  } catch (error) {
    if (error instanceof PolylineError) throw invalid('path');
    throw error;
  }
}

function readPair(pair: string, latlng: boolean): LonLat {
  const comma = pair.indexOf(',');
  return orient(Number(pair.slice(0, comma)), Number(pair.slice(comma + 1)), latlng);
}

function orient(first: number, second: number, latlng: boolean): LonLat {
  return latlng ? [second, first] : [first, second];
}

function checkRange(point: LonLat): void {
  const outside = lonLatOutside(point, 90);
  if (outside !== null) throw outOfBounds(outside);
}

function invalid(what: string): ApiError {
  return new ApiError(`Invalid ${what}`);
}

function fail(what: string): never {
  throw invalid(what);
}
