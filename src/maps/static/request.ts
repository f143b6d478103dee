/**
 * The request side of a static map: `/api/maps/{mapId}/static/{area}/{width}x{height}{scale}.{format}`
 * and its query, checked and resolved to the final viewport. Choices where the spec is silent:
 *   - an area that is neither `lon,lat,zoom`, `minx,miny,maxx,maxy` nor `auto`, or an image part
 *     that is not `{width}x{height}[@2x].{format}`, is a 400 naming what is missing (a zoom, a
 *     height, a format) or what was expected, rather than a 404 that hides the mistake;
 *   - a single-valued query parameter given more than once takes its last value;
 *   - `padding` is a fraction in [0, 0.5) (0.5 would leave no room for the features);
 *   - booleans are `true`/`false`/`1`/`0`;
 *   - at most MAX_POINTS points in all paths and markers together;
 *   - the deprecated `fill`, `stroke`, `width` style every path that does not set its own, and each
 *     deprecated `encodedpath` is one more path, as `enc:<value>`;
 *   - `time` and `legend` need `weather`; `time` is RFC 3339 with its offset; no legend by default.
 */

import { parseColor, parseFill } from './color.js';
import { ATTRIBUTIONS, type Attribution } from './draw/attribution.js';
import { FORMATS, type Format } from '../image-format.js';
import { INVALID_IMAGE_SIZE, invalidFormat } from '../errors.js';
import { parseBoolean, parseMarkers, parsePath, parseWidth, type MarkerGroup, type Path, type PathDefaults } from './overlays.js';
import type { Viewport } from '../../render/view/viewport.js';
import { autoViewport, checkViewport, fitBounds, type Bounds } from './fit.js';
import { DEFAULT_PADDING } from './fit-defaults.js';
import { ApiError, MAX_URI_BYTES, URI_TOO_LONG } from '../../platform/errors.js';
import { parseLanguage } from '../language.js';


export const MIN_SIZE = 1;
export const MAX_SIZE = 2048;
export const MAX_POINTS = 10_000;
export const MAX_PADDING = 0.5;

export type Query = Record<string, string | string[] | undefined>;

export interface StaticRequest {
  mapId: string;
  kind: 'center' | 'bounds' | 'auto';
  /** The bounds of a bounds request as given; `null` for the other kinds. */
  bounds: Bounds | null;
  format: Format;
  /** The final view: width and height in CSS pixels, `pixelRatio` 2 for `@2x`. */
  viewport: Viewport;
  paths: Path[];
  markers: MarkerGroup[];
  attribution: Attribution;
  padding: number;
  shortest: boolean;
  /** The language labels are shown in (language.ts); null for the style's own. */
  language: string | null;
  /** `weather=VARIABLE[&time=ISO][&legend=corner]`: a weather moment under the labels; null without. */
  weather: WeatherRequest | null;
}

/** Where the weather legend goes, or `false` for none. */
export const LEGENDS = ['bottomleft', 'bottomright', 'topleft', 'topright', 'false'] as const;
export type Legend = (typeof LEGENDS)[number];

export interface WeatherRequest {
  variable: string;
  /** The moment shown; null for the run's first keyframe. */
  time: Date | null;
  legend: Legend;
}

const NUMBER = String.raw`-?(?:\d+(?:\.\d*)?|\.\d+)`;
const AREA = new RegExp(`^(?:auto|(${NUMBER}),(${NUMBER}),(${NUMBER})|(${NUMBER}),(${NUMBER}),(${NUMBER}),(${NUMBER}))$`);
const SIZE = /^(\d+)x(\d+)(@\d+x)?\.([A-Za-z0-9]+)$/;
const NUMBERS = new RegExp(`^${NUMBER}(?:,${NUMBER})*$`);
export const AREA_FORMS = '{lon},{lat},{zoom}, {minx},{miny},{maxx},{maxy} or auto';
export const IMAGE_FORM = '{width}x{height}[@2x].{format}';
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

export function parseStaticRequest(
  mapId: string,
  spec: string,
  query: Query,
  rawUrlLength: number,
  allowedFormats: readonly Format[] = FORMATS,
): StaticRequest {
  if (rawUrlLength > MAX_URI_BYTES) throw new ApiError(URI_TOO_LONG, 'uri-too-long');
  const slash = spec.indexOf('/');
  if (slash < 0) throw new ApiError(`Missing image size and format after the area: ${IMAGE_FORM}`);
  const area = AREA.exec(spec.slice(0, slash)) ?? areaMistake(spec.slice(0, slash));
  const size = SIZE.exec(spec.slice(slash + 1)) ?? imageMistake(spec.slice(slash + 1));

  const format = FORMATS.find((known) => known === size[4]);
  if (!format || !allowedFormats.includes(format)) throw invalidFormat(size[4], allowedFormats);
  const width = Number(size[1]);
  const height = Number(size[2]);
  if (!(width >= MIN_SIZE && width <= MAX_SIZE && height >= MIN_SIZE && height <= MAX_SIZE)) {
    throw new ApiError(INVALID_IMAGE_SIZE);
  }
  if (size[3] !== undefined && size[3] !== '@2x') throw new ApiError(INVALID_IMAGE_SIZE);
  const pixelRatio = size[3] === '@2x' ? 2 : 1;

  const attribution = ATTRIBUTIONS.find((known) => known === single(query, 'attribution', 'bottomright')) ?? invalid('attribution');
  const padding = parsePadding(single(query, 'padding', String(DEFAULT_PADDING)));
  const shortest = parseBoolean(single(query, 'shortest', 'false')) ?? invalid('shortest');
  const latlng = parseBoolean(single(query, 'latlng', 'false')) ?? invalid('latlng');
  const defaults = deprecatedDefaults(query, shortest);
  const language = parseLanguage(query.language);
  const weather = parseWeather(query);

  const pathValues = [...all(query, 'path'), ...all(query, 'encodedpath').map((text) => `enc:${text}`)];
  const paths = pathValues.map((value) => parsePath(value, defaults, latlng));
  const markers = all(query, 'markers').map((value) => parseMarkers(value, latlng));
  const points = paths.reduce((sum, path) => sum + path.points.length, 0) + markers.reduce((sum, group) => sum + group.markers.length, 0);
  if (points > MAX_POINTS) throw new ApiError(`Too many points: at most ${MAX_POINTS} in all paths and markers`);

  const common = { mapId, format, paths, markers, attribution, padding, shortest, language, weather };
  if (area[1] !== undefined) {
    const center: [number, number] = [Number(area[1]), Number(area[2])];
    const zoom = Number(area[3]);
    checkViewport(center, zoom);
    return { ...common, kind: 'center', bounds: null, viewport: { center, zoom, width, height, pixelRatio } };
  }
  if (area[4] !== undefined) {
    const bounds: Bounds = [Number(area[4]), Number(area[5]), Number(area[6]), Number(area[7])];
    return { ...common, kind: 'bounds', bounds, viewport: fitBounds(bounds, width, height, padding, pixelRatio) };
  }
  const features = { paths, markers: markers.flatMap((group) => group.markers.map((marker): [number, number] => [marker.lon, marker.lat])) };
  return { ...common, kind: 'auto', bounds: null, viewport: autoViewport(features, width, height, padding, shortest, pixelRatio) };
}

/** A 400 saying what an area that is no known form lacks. */
function areaMistake(text: string): never {
  const count = NUMBERS.test(text) ? text.split(',').length : 0;
  if (count === 1 || count === 2) throw new ApiError(`Missing ${count === 1 ? 'latitude and zoom' : 'zoom'} in the area: ${AREA_FORMS}`);
  throw new ApiError(`Invalid area: ${AREA_FORMS}`);
}

/** A 400 saying what an image part that is not `{width}x{height}[@2x].{format}` lacks. */
function imageMistake(text: string): never {
  if (/^\d+(@\d+x)?\.[A-Za-z0-9]+$/.test(text)) throw new ApiError(`Missing image height: ${IMAGE_FORM}`);
  if (/^\d+x\d+(@\d+x)?\.?$/.test(text)) throw new ApiError(`Missing image format (png, jpg or webp): ${IMAGE_FORM}`);
  throw new ApiError(`Invalid image: ${IMAGE_FORM}`);
}

function deprecatedDefaults(query: Query, shortest: boolean): PathDefaults {
  const defaults: PathDefaults = { shortest };
  const fill = single(query, 'fill', undefined);
  const stroke = single(query, 'stroke', undefined);
  const width = single(query, 'width', undefined);
  if (fill !== undefined) {
    const parsed = parseFill(fill);
    if (parsed === undefined) invalid('fill');
    defaults.fill = parsed;
  }
  if (stroke !== undefined) defaults.stroke = parseColor(stroke) ?? invalid('stroke');
  if (width !== undefined) defaults.width = parseWidth(width) ?? invalid('width');
  return defaults;
}

/** An RFC 3339 date-time, with its offset (a time without one would depend on the server's zone). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

function parseWeather(query: Query): WeatherRequest | null {
  const variable = single(query, 'weather', undefined);
  const time = single(query, 'time', undefined);
  const legend = single(query, 'legend', undefined);
  if (variable === undefined) {
    if (time !== undefined || legend !== undefined) throw new ApiError(`${time !== undefined ? 'time' : 'legend'} needs weather=VARIABLE`);
    return null;
  }
  if (!/^[a-z0-9_:-]{1,130}$/.test(variable)) invalid('weather');
  let moment: Date | null = null;
  if (time !== undefined) {
    moment = new Date(time);
    if (!DATE_TIME.test(time) || Number.isNaN(moment.getTime())) throw new ApiError('Invalid time: an RFC 3339 date-time, such as 2026-11-26T12:00:00Z');
  }
  return { variable, time: moment, legend: LEGENDS.find((known) => known === (legend ?? 'false')) ?? invalid('legend') };
}

function parsePadding(text: string): number {
  const padding = Number(text);
  return DECIMAL.test(text) && padding < MAX_PADDING ? padding : invalid('padding');
}

function single<T extends string | undefined>(query: Query, name: string, fallback: T): string | T {
  const value = query[name];
  return (Array.isArray(value) ? value[value.length - 1] : value) ?? fallback;
}

function all(query: Query, name: string): string[] {
  const value = query[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function invalid(name: string): never {
  throw new ApiError(`Invalid ${name}`);
}
