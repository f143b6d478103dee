/**
 * Google Encoded Polyline Algorithm Format at precision 5: every value is a signed delta of the
 * previous one, times 1e5, zig-zag encoded and written in 5-bit chunks as characters 63..126.
 * Pairs are in lat/lon order inside the encoding; this module speaks [lat, lon] to stay faithful
 * to the format, callers swap.
 */

export class PolylineError extends Error {
  override readonly name = 'PolylineError';
}

const FACTOR = 1e5;
// 7 chunks of 5 bits hold any 32-bit delta; more can only come from garbage or hostile input.
const MAX_CHUNKS = 7;

export function decodePolyline(text: string): [number, number][] {
  const values: number[] = [];
  let index = 0;
  while (index < text.length) {
    let result = 0;
    let factor = 1;
    let chunks = 0;
    let chunk: number;
    do {
      if (index >= text.length) throw new PolylineError('truncated polyline');
      chunk = text.charCodeAt(index++) - 63;
      if (chunk < 0 || chunk > 63) throw new PolylineError('invalid polyline character');
      if (++chunks > MAX_CHUNKS) throw new PolylineError('polyline value too long');
      // Multiplication instead of shifts: 35 bits do not fit JavaScript's 32-bit bitwise operators.
      result += (chunk & 0x1f) * factor;
      factor *= 32;
    } while (chunk >= 0x20);
    values.push(result % 2 === 1 ? -(result + 1) / 2 : result / 2);
  }
  if (values.length % 2 !== 0) throw new PolylineError('polyline has a latitude without longitude');
  const points: [number, number][] = [];
  let lat = 0;
  let lon = 0;
  for (let i = 0; i < values.length; i += 2) {
    lat += values[i]!;
    lon += values[i + 1]!;
    points.push([lat / FACTOR, lon / FACTOR]);
  }
  return points;
}

export function encodePolyline(points: readonly (readonly [number, number])[]): string {
  let text = '';
  let previousLat = 0;
  let previousLon = 0;
  for (const [lat, lon] of points) {
    const scaledLat = Math.round(lat * FACTOR);
    const scaledLon = Math.round(lon * FACTOR);
    text += encodeValue(scaledLat - previousLat) + encodeValue(scaledLon - previousLon);
    previousLat = scaledLat;
    previousLon = scaledLon;
  }
  return text;
}

function encodeValue(delta: number): string {
  let value = delta < 0 ? -2 * delta - 1 : 2 * delta;
  let text = '';
  while (value >= 0x20) {
    text += String.fromCharCode(((value % 32) | 0x20) + 63);
    value = Math.floor(value / 32);
  }
  return text + String.fromCharCode(value + 63);
}
