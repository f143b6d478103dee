/**
 * A map drawn for a viewport: its style compiled once per map, language and thread, then drawn by the
 * renderer. Static images draw their overlays over it (static/static-image.ts); raster tiles cut it into
 * tiles (raster/metatile-image.ts).
 */

import type { Canvas } from '@napi-rs/canvas';
import { registerFonts } from './static/fonts.js';
import type { LoadedMap } from './registry.js';
import { compileStyle, type CompiledStyle } from '../render/style/style.js';
import { Lru } from '../platform/lru.js';
import { CACHED_LANGUAGES, localizedStyle } from './language.js';
import { renderMap } from '../render/renderer.js';
import type { Format } from './image-format.js';
import type { Viewport } from '../render/view/viewport.js';

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
