/**
 * One static image from start to finish: the weather layer if asked for, the map drawn by the
 * renderer with it under the labels, then the overlays (paths, markers, legend, attribution: the
 * map's, and the weather source's when there is weather) in CSS pixels on top, then the encoding.
 * Used by the render workers and by `meridian render`; everything it needs arrives in the job, so it runs the same in both.
 */

import { loadImage, type Image } from '@napi-rs/canvas';
import { attributionText, drawAttribution } from './draw/attribution.js';
import { frameOf } from './draw/frame.js';
import { drawMarkers } from './draw/markers.js';
import { drawPaths } from './draw/paths.js';
import { encodeImage } from './encode.js';
import type { Path, MarkerGroup } from './overlays.js';
import type { LoadedMap } from '../registry.js';
import { drawMap } from '../draw-map.js';
import type { Attribution } from './draw/attribution.js';
import type { Format } from '../image-format.js';
import { drawLegend, weatherImage, type StaticWeather } from './weather-layer.js';
import type { Viewport } from '../../render/view/viewport.js';

export interface StaticImageJob {
  viewport: Viewport;
  format: Format;
  paths: Path[];
  markers: MarkerGroup[];
  attribution: Attribution;
  /** The bytes of every marker icon the job uses, by URL (fetched beforehand, see icons.ts). */
  icons: Map<string, Uint8Array>;
  /** The language of the labels (language.ts); null for the style's own. */
  language: string | null;
  /** A weather moment drawn under the labels, with its legend (weather-layer.ts); none when absent. */
  weather?: StaticWeather;
}

/** A job for the map alone: no paths, markers or weather, the style's own labels, the attribution at the bottom right. */
export function plainImageJob(viewport: Viewport, format: Format): StaticImageJob {
  return { viewport, format, paths: [], markers: [], attribution: 'bottomright', icons: new Map(), language: null };
}

export async function renderStaticImage(map: LoadedMap, job: StaticImageJob, signal?: AbortSignal): Promise<Buffer> {
  const frame = frameOf(job.viewport);
  const weather = job.weather ? await weatherImage(frame, job.viewport.pixelRatio, job.weather) : undefined;
  const canvas = await drawMap(map, job.viewport, job.format, job.language, signal, weather);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(job.viewport.pixelRatio, 0, 0, job.viewport.pixelRatio, 0, 0);
  drawPaths(ctx, frame, job.paths);
  drawMarkers(ctx, frame, job.markers, await decodeIcons(job.icons));
  if (job.weather) drawLegend(ctx, frame, job.weather, job.attribution);
  drawAttribution(ctx, frame, attributionText(map.attribution, job.weather?.attribution), job.attribution);
  signal?.throwIfAborted();
  return encodeImage(canvas, job.format);
}

async function decodeIcons(icons: Map<string, Uint8Array>): Promise<Map<string, Image>> {
  const images = new Map<string, Image>();
  for (const [url, bytes] of icons) images.set(url, await loadImage(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)));
  return images;
}
