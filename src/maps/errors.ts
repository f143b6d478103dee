import { ApiError } from '../platform/errors.js';

/** The documented error texts of the hosted service, so that every module uses the same words. */
export const OUT_OF_BOUNDS = 'Out of bounds';
export const INVALID_FORMAT = 'Invalid format';
export const INVALID_IMAGE_SIZE = 'Invalid image size';
export const INVALID_LANGUAGE = 'Invalid language';

/** Why a route that renders answers 503 (besides the key gate's reason). */
export const RENDER_UNAVAILABLE = 'Too many renders waiting, or the render ran too long';

/** A number as a message shows it: as given, without a long tail of decimals. */
function shown(value: number): string {
  return Number.isFinite(value) ? String(Math.round(value * 1e6) / 1e6) : String(value);
}

/** `Out of bounds: <detail>`: the documented words first, then which value is out and its range. */
export function outOfBounds(detail: string): ApiError {
  return new ApiError(`${OUT_OF_BOUNDS}: ${detail}`);
}

/** `zoom 30 is above 22`, `x 5 is outside 0..3 at zoom 2`, `latitude 86 is outside -85.0511..85.0511`. */
export function valueOutside(name: string, value: number, min: number, max: number, where = ''): string {
  const suffix = where ? ` ${where}` : '';
  if (value > max && name.startsWith('zoom')) return `${name} ${shown(value)} is above ${shown(max)}${suffix}`;
  if (value < min && name.startsWith('zoom')) return `${name} ${shown(value)} is below ${shown(min)}${suffix}`;
  return `${name} ${shown(value)} is outside ${shown(min)}..${shown(max)}${suffix}`;
}

/** A longitude and latitude pair checked against `maxLatitude`, or what is wrong with it. */
export function lonLatOutside([lon, lat]: readonly [number, number], maxLatitude: number): string | null {
  if (!(Math.abs(lon) <= 180)) return valueOutside('longitude', lon, -180, 180);
  if (!(Math.abs(lat) <= maxLatitude)) return valueOutside('latitude', lat, -Math.floor(maxLatitude * 1e4) / 1e4, Math.floor(maxLatitude * 1e4) / 1e4);
  return null;
}

/** `Invalid format: "gif" is not one of png, jpg, webp`; a given text that is not a plain word is not echoed. */
export function invalidFormat(given: string | undefined, allowed: readonly string[]): ApiError {
  const what = given !== undefined && /^[A-Za-z0-9]{1,12}$/.test(given) ? `"${given}"` : 'the format given';
  return new ApiError(`${INVALID_FORMAT}: ${what} is not one of ${allowed.join(', ')}`);
}
