/**
 * Weather on a static map (`weather=VARIABLE&time=ISO`), drawn in the render thread as the console
 * paints it in the browser (console/src/weather-tiles.ts): the value-encoded tiles of the two
 * keyframes around the time, each channel decoded as `min + channel / 255 × (max − min)`, the two
 * interpolated linearly, wind shown as its speed, coloured by the variable's ramp
 * (weather/ramps.ts). Each image pixel takes the tile pixel under its centre (nearest) at
 * the pyramid zoom nearest the view's, the deepest zoom beyond it; no data (alpha 0) in either
 * keyframe is left transparent. The layer is an image the renderer draws under the labels, at the
 * console's default opacity (0.8).
 *
 * The legend: the ramp as a gradient bar with its first, middle and last stop values and the
 * variable's name and unit, on a light box in the chosen corner (above the attribution when they
 * share one).
 */

import { createCanvas, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import sharp from 'sharp';
import { openArchive } from '../../platform/pmtiles.js';
import { colorLookup, type Stop } from '../../weather/ramps.js';
import { SANS_FONT } from './fonts.js';
import type { Frame } from './draw/frame.js';
import type { Legend } from './request.js';
import type { WeatherMoment } from '../../weather/read/moment.js';

/** What a static image needs to draw a weather moment: the moment (weather/read/moment.ts), its ramp and legend. */
export interface StaticWeather extends WeatherMoment {
  ramp: Stop[];
  legend: Legend;
}

const TILE_SIZE = 512;
/** The console's default opacity of the weather layer (its `raster-opacity`), so the map shows through. */
export const OPACITY = 0.8;

/** The weather layer of an image: a canvas of the image's device pixels. */
export async function weatherImage(frame: Frame, pixelRatio: number, weather: StaticWeather): Promise<Canvas> {
  const width = Math.round(frame.width * pixelRatio);
  const height = Math.round(frame.height * pixelRatio);
  const z = Math.max(0, Math.min(weather.maxzoom, Math.round(frame.zoom)));
  const tiles = 2 ** z;
  // Tile pixel of each device column and row at zoom z (the world repeats east and west).
  const scale = (TILE_SIZE * tiles) / frame.worldSize;
  const columns = Int32Array.from({ length: width }, (_, i) => {
    const x = Math.floor((frame.left + (i + 0.5) / pixelRatio) * scale);
    return ((x % (TILE_SIZE * tiles)) + TILE_SIZE * tiles) % (TILE_SIZE * tiles);
  });
  const rows = Int32Array.from({ length: height }, (_, j) => {
    const y = Math.floor((frame.top + (j + 0.5) / pixelRatio) * scale);
    return y >= 0 && y < TILE_SIZE * tiles ? y : -1;
  });
  // The tiles the image needs, each decoded once; a row's tiles are looked up by column, not by name.
  const tileColumns = [...new Set(Array.from(columns, (x) => Math.floor(x / TILE_SIZE)))];
  const tileRows = [...new Set(Array.from(rows).filter((y) => y >= 0).map((y) => Math.floor(y / TILE_SIZE)))];
  const wanted = tileRows.flatMap((ty) => tileColumns.map((tx) => `${tx}/${ty}`));
  const [before, after] = await Promise.all(weather.archives.map((file) => tilePixels(file, z, wanted)));
  const slot = new Int32Array(tiles);
  tileColumns.forEach((tx, k) => (slot[tx] = k));

  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(width, height);
  // Read once: the canvas binding's ImageData.data is a getter.
  const pixels = image.data;
  const color = colorLookup(weather.ramp);
  const { min, max, channels } = weather.decoding;
  const decoded = Float64Array.from({ length: 256 }, (_, channel) => min + (channel / 255) * (max - min));
  const { t } = weather;
  const vector = channels === 'rg';
  for (let j = 0; j < height; j++) {
    const y = rows[j]!;
    if (y < 0) continue;
    const ty = Math.floor(y / TILE_SIZE);
    const rowA = tileColumns.map((tx) => before!.get(`${tx}/${ty}`));
    const rowB = tileColumns.map((tx) => after!.get(`${tx}/${ty}`));
    const rowOffset = (y % TILE_SIZE) * TILE_SIZE;
    for (let i = 0; i < width; i++) {
      const x = columns[i]!;
      const k = slot[Math.floor(x / TILE_SIZE)]!;
      const a = rowA[k];
      const b = rowB[k];
      if (!a || !b) continue;
      const offset = (rowOffset + (x % TILE_SIZE)) * 4;
      if (a[offset + 3] === 0 || b[offset + 3] === 0) continue;
      const r = decoded[a[offset]!]! + (decoded[b[offset]!]! - decoded[a[offset]!]!) * t;
      const g = vector ? decoded[a[offset + 1]!]! + (decoded[b[offset + 1]!]! - decoded[a[offset + 1]!]!) * t : 0;
      const at = (j * width + i) * 4;
      color(vector ? Math.hypot(r, g) : r, pixels, at);
      pixels[at + 3] = Math.round(pixels[at + 3]! * OPACITY);
    }
  }
  ctx.putImageData(image, 0, 0);
  return canvas;
}

/** Decoded RGBA pixels of the tiles `x/y` of zoom z of an archive; absent tiles are left out. */
async function tilePixels(file: string, z: number, tiles: string[]): Promise<Map<string, Uint8Array>> {
  const archive = await openArchive(file);
  try {
    const decoded = new Map<string, Uint8Array>();
    await Promise.all(
      tiles.map(async (key) => {
        const [x, y] = key.split('/').map(Number) as [number, number];
        const data = await archive.tile(z, x, y);
        if (!data) return;
        // The channels are numbers, not colours: raw values, no colour management.
        decoded.set(key, new Uint8Array(await sharp(Buffer.from(data)).ensureAlpha().raw().toBuffer()));
      }),
    );
    return decoded;
  } finally {
    await archive.close();
  }
}

const LEGEND = { width: 180, barHeight: 10, padding: 6, fontSize: 11, margin: 8, attributionHeight: 17 };

/** The legend in its corner, in CSS pixels; `attributionCorner` is where the attribution is drawn. */
export function drawLegend(ctx: SKRSContext2D, frame: Frame, weather: StaticWeather, attributionCorner: string): void {
  if (weather.legend === 'false') return;
  const { width, barHeight, padding, fontSize, margin } = LEGEND;
  const height = padding * 2 + fontSize + 4 + barHeight + 3 + fontSize;
  const boxWidth = Math.min(width, frame.width);
  const shared = attributionCorner === weather.legend ? LEGEND.attributionHeight : 0;
  const left = weather.legend.endsWith('left') ? Math.min(margin, frame.width - boxWidth) : Math.max(0, frame.width - boxWidth - margin);
  const top = weather.legend.startsWith('top') ? margin + shared : frame.height - height - margin - shared;
  ctx.save();
  ctx.fillStyle = 'rgba(255,255,255,0.8)';
  ctx.fillRect(left, top, boxWidth, height);
  ctx.fillStyle = 'rgba(0,0,0,0.8)';
  ctx.font = `${fontSize}px "${SANS_FONT}"`;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  ctx.fillText(`${weather.name} (${weather.unit})`, left + padding, top + padding, boxWidth - 2 * padding);
  const barTop = top + padding + fontSize + 4;
  const barWidth = boxWidth - 2 * padding;
  const stops = weather.ramp;
  const low = stops[0]![0];
  const span = stops[stops.length - 1]![0] - low || 1;
  const gradient = ctx.createLinearGradient(left + padding, 0, left + padding + barWidth, 0);
  for (const [value, colour] of stops) gradient.addColorStop((value - low) / span, colour);
  ctx.fillStyle = gradient;
  ctx.fillRect(left + padding, barTop, barWidth, barHeight);
  // The first, middle and last stops: enough to read the scale, never overlapping at this width.
  ctx.fillStyle = 'rgba(0,0,0,0.8)';
  const labelled = [...new Set([0, Math.floor((stops.length - 1) / 2), stops.length - 1])];
  labelled.forEach((index) => {
    const value = stops[index]![0];
    ctx.textAlign = index === 0 ? 'left' : index === stops.length - 1 ? 'right' : 'center';
    ctx.fillText(String(value), left + padding + ((value - low) / span) * barWidth, barTop + barHeight + 3);
  });
  ctx.restore();
}
