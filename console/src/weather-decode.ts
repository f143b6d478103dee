/**
 * Reading Meridian's value-encoded weather tiles (README, Weather): each channel holds
 * `value = min + channel / 255 × (max − min)`, alpha 0 means no data, wind carries u in R and
 * v in G. Pure functions: the tile pixels come from weather-tiles.ts.
 */

import { xOfLongitude, yOfLatitude } from '../../src/platform/web-mercator.js';

export interface Decoding {
  channels: 'r' | 'rg';
  min: number;
  max: number;
}

export interface Keyframe {
  id: string;
  timestamp: string;
}

/** Tiles are 512 px in the EPSG:3857 XYZ pyramid. */
export const tileSize = 512;

export function channelValue(channel: number, decoding: Decoding): number {
  return decoding.min + (channel / 255) * (decoding.max - decoding.min);
}

/**
 * The value a pixel holds, or null without data: one number, or for two channels (u, v) the
 * vector's components.
 */
export function pixelValue(rgba: ArrayLike<number>, offset: number, decoding: Decoding): number[] | null {
  if (rgba[offset + 3] === 0) return null;
  const values = [channelValue(rgba[offset]!, decoding)];
  if (decoding.channels === 'rg') values.push(channelValue(rgba[offset + 1]!, decoding));
  return values;
}

/** Linear interpolation of two keyframes' values; no data in either is no data. */
export function interpolate(a: number[] | null, b: number[] | null, t: number): number[] | null {
  if (!a || !b) return null;
  return a.map((value, i) => value + (b[i]! - value) * t);
}

/** The two keyframes around `time` (ms) and how far between them it lies; clamped to the ends. */
export function keyframesAround(keyframes: readonly Keyframe[], time: number): { before: Keyframe; after: Keyframe; t: number } {
  const times = keyframes.map((k) => Date.parse(k.timestamp));
  if (time <= times[0]!) return { before: keyframes[0]!, after: keyframes[0]!, t: 0 };
  for (let i = 1; i < keyframes.length; i++) {
    if (time <= times[i]!) return { before: keyframes[i - 1]!, after: keyframes[i]!, t: (time - times[i - 1]!) / (times[i]! - times[i - 1]!) };
  }
  const last = keyframes[keyframes.length - 1]!;
  return { before: last, after: last, t: 0 };
}

/** The tile of zoom `z` holding a place, and the pixel in it. */
export function tilePixel(lon: number, lat: number, z: number): { x: number; y: number; px: number; py: number } {
  const scale = tileSize * 2 ** z;
  const worldX = (((xOfLongitude(lon) % 1) + 1) % 1) * scale;
  const worldY = yOfLatitude(lat) * scale;
  const clampPixel = (v: number) => Math.min(scale - 1, Math.max(0, Math.floor(v)));
  const wx = clampPixel(worldX);
  const wy = clampPixel(worldY);
  return { x: Math.floor(wx / tileSize), y: Math.floor(wy / tileSize), px: wx % tileSize, py: wy % tileSize };
}

/** What a colour ramp and a readout show of a value: wind as its speed. */
export function magnitude(values: number[]): number {
  return values.length === 2 ? Math.hypot(values[0]!, values[1]!) : values[0]!;
}

/** The compass direction wind blows from, in degrees (meteorological convention), from u and v. */
export function windFrom(u: number, v: number): number {
  return ((Math.atan2(-u, -v) * 180) / Math.PI + 360) % 360;
}
