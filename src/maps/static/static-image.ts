/**
 * One static image from start to finish: the weather layer if asked for, the map drawn by the
 * renderer with it under the labels, then the overlays (paths, markers, legend, attribution: the
 * map's, and the weather source's when there is weather) in CSS pixels on top, then the encoding.
 * Used by the render workers and by `meridian render`; everything it needs arrives in the job, so it runs the same in both.
 */

import { loadImage, type Canvas, type Image } from '@napi-rs/canvas';
import { attributionText, drawAttribution } from './draw/attribution.js';
import { frameOf } from './draw/frame.js';
import { drawMarkers } from './draw/markers.js';
import { drawPaths } from './draw/paths.js';
import { encodeImage } from './encode.js';
import { registerFonts } from './fonts.js';
import type { Path, MarkerGroup } from './overlays.js';
import type { LoadedMap } from '../registry.js';
import { compileStyle, type CompiledStyle } from '../../render/style/style.js';
import { Lru } from '../../platform/lru.js';
import { CACHED_LANGUAGES, localizedStyle } from '../language.js';
import { renderMap } from '../../render/renderer.js';
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

/** Per map, its style compiled for each language asked for lately ('' for the style's own). */
const compiled = new WeakMap<LoadedMap, Lru<string, CompiledStyle>>();

/** The map's style in `language`, compiled once per map, language and thread. */
export function compiledStyleOf(map: LoadedMap, language: string | null): CompiledStyle {
  let byLanguage = compiled.get(map);
  if (!byLanguage) {
    // One more than the languages: the style's own stays while they come and go.
    byLanguage = new Lru(CACHED_LANGUAGES + 1);
    compiled.set(map, byLanguage);
  }
  const key = language ?? '';
  return byLanguage.get(key) ?? byLanguage.set(key, compileStyle(localizedStyle(map.style, language)));
}

/** The map alone, as the renderer draws it for an image in `format`: JPEG has no alpha, so it is drawn over white. */
export async function drawMap(
  map: LoadedMap,
  viewport: Viewport,
  format: Format,
  language: string | null,
  signal?: AbortSignal,
  beneathLabels?: Canvas,
): Promise<Canvas> {
  const fonts = map.fonts();
  registerFonts(fonts);
  const images = await map.images(viewport.pixelRatio);
  const background = format === 'jpg' ? '#ffffff' : undefined;
  return renderMap(compiledStyleOf(map, language), map.sources, viewport, { signal, images, fonts, background, beneathLabels });
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
