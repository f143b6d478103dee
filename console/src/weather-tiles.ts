/**
 * Weather tiles in the browser: fetches a keyframe's value-encoded tiles, keeps their decoded
 * pixels, and paints the values of a moment (two keyframes interpolated) with a colour ramp into
 * the image tiles of a MapLibre raster source, through the `meridian-weather://` protocol.
 */

import { addProtocol } from 'maplibre-gl';
import { gatedUrl } from './api.js';
import { interpolate, magnitude, pixelValue, tilePixel, tileSize, type Decoding, type Keyframe } from './weather-decode.js';
import { colorLookup, type Stop } from './weather-ramps.js';

/** What one painting of the layer shows. */
export interface WeatherMoment {
  key: string;
  format: string;
  decoding: Decoding;
  maxzoom: number;
  before: Keyframe;
  after: Keyframe;
  t: number;
  ramp: Stop[];
}

/** Decoded tiles are 1 MiB each: this many is enough for a screen at two keyframes. */
const cachedTiles = 96;
const pixels = new Map<string, Promise<Uint8ClampedArray | null>>();

/** The RGBA pixels of a keyframe's tile, or null where the pyramid has no tile (404). */
function tilePixels(moment: WeatherMoment, keyframe: Keyframe, z: number, x: number, y: number): Promise<Uint8ClampedArray | null> {
  const url = gatedUrl(`/tiles/${keyframe.id}/${z}/${x}/${y}.${moment.format}`, moment.key);
  const cached = pixels.get(url);
  if (cached) {
    pixels.delete(url);
    pixels.set(url, cached);
    return cached;
  }
  const loading = (async () => {
    const response = await fetch(url, { credentials: 'omit' });
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`weather tile ${z}/${x}/${y}: ${response.status} ${response.statusText}`);
    // The channels are numbers, not colours: no premultiplication, no colour management.
    const bitmap = await createImageBitmap(await response.blob(), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d', { willReadFrequently: true })!;
    context.drawImage(bitmap, 0, 0);
    bitmap.close();
    return context.getImageData(0, 0, canvas.width, canvas.height).data;
  })();
  loading.catch(() => pixels.delete(url));
  pixels.set(url, loading);
  if (pixels.size > cachedTiles) pixels.delete(pixels.keys().next().value!);
  return loading;
}

/** The moment's tile at z/x/y: beyond the pyramid, the covering tile of its deepest zoom. */
async function momentTile(moment: WeatherMoment, z: number, x: number, y: number) {
  const dz = Math.max(0, z - moment.maxzoom);
  const [pz, px, py] = [z - dz, x >> dz, y >> dz];
  const [a, b] = await Promise.all([tilePixels(moment, moment.before, pz, px, py), moment.t > 0 ? tilePixels(moment, moment.after, pz, px, py) : null]);
  return { a, b: moment.t > 0 ? b : a, dz, px, py, x, y };
}

const moments = new Map<number, WeatherMoment>();
let nextMoment = 1;
let registered = false;

/**
 * The tile URL template of a moment, for a raster source. Each moment gets its own URLs, so
 * MapLibre never mixes tiles of two moments.
 */
export function momentTiles(moment: WeatherMoment): string {
  if (!registered) {
    addProtocol('meridian-weather', async ({ url }) => ({ data: await paint(url) }));
    registered = true;
  }
  const id = nextMoment++;
  moments.set(id, moment);
  // Older moments are dropped once MapLibre cannot be asking for them any more.
  for (const old of moments.keys()) if (old < id - 4) moments.delete(old);
  return `meridian-weather://${id}/{z}/{x}/{y}`;
}

async function paint(url: string): Promise<ImageBitmap> {
  const [id, z, x, y] = url.slice('meridian-weather://'.length).split('/').map(Number) as [number, number, number, number];
  const moment = moments.get(id);
  const out = new ImageData(tileSize, tileSize);
  if (!moment) return createImageBitmap(out);
  const { a, b, dz, px, py } = await momentTile(moment, z, x, y);
  if (!a || !b) return createImageBitmap(out);
  const color = colorLookup(moment.ramp);
  // Over-zoomed tiles show a part of their ancestor, each source pixel spread over 2^dz.
  const scale = 2 ** dz;
  const originX = (x - px * scale) * (tileSize / scale);
  const originY = (y - py * scale) * (tileSize / scale);
  for (let j = 0; j < tileSize; j++) {
    const row = Math.floor(originY + j / scale) * tileSize;
    for (let i = 0; i < tileSize; i++) {
      const offset = (row + Math.floor(originX + i / scale)) * 4;
      const value = interpolate(pixelValue(a, offset, moment.decoding), pixelValue(b, offset, moment.decoding), moment.t);
      if (value) color(magnitude(value), out.data, (j * tileSize + i) * 4);
    }
  }
  return createImageBitmap(out);
}

/** The moment's value at a place (wind: u and v), read from the deepest zoom; null without data. */
export async function valueAt(moment: WeatherMoment, lon: number, lat: number): Promise<number[] | null> {
  const { x, y, px, py } = tilePixel(lon, lat, moment.maxzoom);
  const { a, b } = await momentTile(moment, moment.maxzoom, x, y);
  if (!a || !b) return null;
  const offset = (py * tileSize + px) * 4;
  return interpolate(pixelValue(a, offset, moment.decoding), pixelValue(b, offset, moment.decoding), moment.t);
}
