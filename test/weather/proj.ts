/**
 * Where the centres of weather tile pixels lie, according to PROJ rather than Meridian: each
 * pixel's EPSG:3857 metres come from the definition of the XYZ tile grid (the world a square of
 * 2πR metres a side, R = 6378137 m, from (-πR, +πR) at the top left, 512-px tiles, y down), and
 * PROJ's `cs2cs` turns them into longitude and latitude (EPSG:4326). Nothing here uses
 * src/weather/mercator.ts, so the tiler's own geometry can be checked against it.
 */

import { execFileSync } from 'node:child_process';
import { requirePeers } from '../peers.js';

/** Weather tiles are 512 px a side (their TileJSON and `tile_matrix_set` say so). */
export const TILE_PIXELS = 512;
const halfWorld = Math.PI * 6378137;

export interface LonLat {
  lon: number;
  lat: number;
}

/** EPSG:3857 metres of the centre of pixel (px, py) of tile z/x/y. */
export function pixelCentreMetres(z: number, x: number, y: number, px: number, py: number): [number, number] {
  const size = (2 * halfWorld) / (TILE_PIXELS * 2 ** z);
  return [-halfWorld + (x * TILE_PIXELS + px + 0.5) * size, halfWorld - (y * TILE_PIXELS + py + 0.5) * size];
}

/** EPSG:3857 → EPSG:4326 by cs2cs, one point per line; cs2cs writes EPSG:4326 latitude first. */
export function projLonLat(points: readonly [number, number][]): LonLat[] {
  requirePeers('proj');
  if (points.length === 0) return [];
  const input = points.map(([x, y]) => `${x.toPrecision(17)} ${y.toPrecision(17)}`).join('\n') + '\n';
  const output = execFileSync('cs2cs', ['-f', '%.12f', 'EPSG:3857', 'EPSG:4326'], { input, encoding: 'utf8' });
  const lines = output.trim().split('\n');
  if (lines.length !== points.length) throw new Error(`cs2cs answered ${lines.length} lines for ${points.length} points`);
  return lines.map((line) => {
    const [lat, lon] = line.trim().split(/\s+/).map(Number);
    if (!Number.isFinite(lat) || !Number.isFinite(lon)) throw new Error(`cs2cs answered "${line}"`);
    return { lon: lon!, lat: lat! };
  });
}

/** PROJ's longitude and latitude of the centres of these pixels of tile z/x/y. */
export function pixelCentres(z: number, x: number, y: number, pixels: readonly (readonly [number, number])[]): LonLat[] {
  return projLonLat(pixels.map(([px, py]) => pixelCentreMetres(z, x, y, px, py)));
}
