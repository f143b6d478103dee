/**
 * Fonts of the renderer's own text (the attribution). Skia finds no fonts by itself in a bare
 * container, so the family is registered from the file the label font catalog (glyphs/catalog.ts)
 * has for it: Noto Sans from Debian's fonts-noto-core, which the setup installs. Without the file,
 * Skia falls back to whatever fonts the system has.
 */

import { GlobalFonts } from '@napi-rs/canvas';
import type { FontCatalog } from '../../render/glyphs/catalog.js';

export const SANS_FONT = 'Noto Sans';

let registered = false;

/** Registers the attribution font from the catalog the map's labels are drawn with (once per thread). */
export function registerFonts(catalog: FontCatalog): void {
  if (registered) return;
  registered = true;
  const file = catalog.file(`${SANS_FONT} Regular`);
  if (file) GlobalFonts.registerFromPath(file, SANS_FONT);
}
