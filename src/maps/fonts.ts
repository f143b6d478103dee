/**
 * Fonts of the renderer. Skia finds no fonts by itself in a bare container, so the families the
 * renderer uses are registered from files: Noto Sans from Debian's fonts-noto-core, which the setup
 * installs. Without the file, Skia falls back to whatever fonts the system has.
 */

import { existsSync } from 'node:fs';
import { GlobalFonts } from '@napi-rs/canvas';

export const SANS_FONT = 'Noto Sans';
const sansFile = '/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf';

let registered = false;

export function registerFonts(): void {
  if (registered) return;
  registered = true;
  if (existsSync(sansFile)) GlobalFonts.registerFromPath(sansFile, SANS_FONT);
}
