/**
 * The fonts labels are drawn with, by MapLibre font name ("Noto Sans Regular", "Open Sans Semibold",
 * ...): every .ttf/.otf/.ttc of the font folders, named "<family> <style>" from the font's own name
 * table (the typographic family and subfamily when it has them). The default folders are Debian's
 * fonts-noto-core, fonts-open-sans and fonts-noto-cjk, then `<dataDir>/fonts`, where any font added
 * is found by its name (a later folder wins on equal names).
 *
 * A fontstack's glyph for a codepoint comes from its first font that has it, then from the fallback
 * fonts of the stack's weight (Noto Sans, Noto Sans Arabic, Hebrew, Devanagari, Thai, Armenian,
 * Georgian, Noto Sans CJK SC, ...), then from any "Noto Sans <script>" font that has it.
 *
 * Glyph metrics are those of MapLibre's glyph PBFs as node-fontnik writes them, integers at 24 px:
 * left = round(xMin), width = round(xMax) - round(xMin), height = round(yMax) - round(yMin),
 * top = round(yMax) - ascender (the font's ascent, rounded), advance = floor(advance). The PBFs
 * (pbf.ts) and the label renderer read the same numbers, so both place every glyph alike.
 */

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as fontkit from 'fontkit';
import { Path2D } from '@napi-rs/canvas';

/** Glyph PBFs are rendered at this size (MapLibre's ONE_EM). */
export const GLYPH_SIZE = 24;

export const DEFAULT_FONT_DIRS: readonly string[] = [
  '/usr/share/fonts/truetype/noto',
  '/usr/share/fonts/truetype/open-sans',
  '/usr/share/fonts/opentype/noto',
];

export interface GlyphMetrics {
  readonly width: number;
  readonly height: number;
  readonly left: number;
  readonly top: number;
  readonly advance: number;
}

export interface FontGlyph {
  readonly codepoint: number;
  readonly metrics: GlyphMetrics;
  /** The font's ascent at 24 px, rounded: the baseline lies this far below a glyph's `top` origin. */
  readonly ascender: number;
  /** The outline at 24 px, pen at (0, 0) on the baseline, y down; null for blank glyphs. */
  readonly path: Path2D | null;
}

interface FontFile {
  readonly file: string;
  /** The font's postscript name inside a collection; undefined for a single font file. */
  readonly postscriptName: string | undefined;
}

const FALLBACK_FAMILIES = [
  'Noto Sans', 'Noto Sans Arabic', 'Noto Sans Hebrew', 'Noto Sans Devanagari', 'Noto Sans Thai', 'Noto Sans Armenian',
  'Noto Sans Georgian', 'Noto Sans Ethiopic', 'Noto Sans Bengali', 'Noto Sans Tamil', 'Noto Sans CJK SC', 'Noto Sans CJK JP',
  'Noto Sans CJK KR', 'Noto Sans Symbols', 'Noto Sans Symbols2',
];

const FONT_FILE = /\.(ttf|otf|ttc)$/i;

function key(name: string): string {
  return name.toLowerCase().replace(/\s+/g, ' ').trim();
}

export class FontCatalog {
  private static cached = new Map<string, FontCatalog>();
  private readonly files = new Map<string, FontFile>();
  private readonly displayNames = new Map<string, string>();
  private readonly fonts = new Map<string, fontkit.Font>();
  /** Glyphs by fontstack (names joined by commas) and codepoint. */
  private readonly glyphs = new Map<string, Map<number, FontGlyph | null>>();
  private readonly stackGlyphs = new WeakMap<readonly string[], Map<number, FontGlyph | null>>();
  private readonly outlines = new Map<string, Path2D | null>();
  private readonly fallbackCache = new Map<string, string[]>();

  /** The catalog of the default folders plus `fontDirs`, built once per list of folders. */
  static default(fontDirs: string[] = []): FontCatalog {
    const dirs = [...DEFAULT_FONT_DIRS, ...fontDirs];
    const id = dirs.join('\n');
    let catalog = FontCatalog.cached.get(id);
    if (!catalog) {
      catalog = new FontCatalog(dirs);
      FontCatalog.cached.set(id, catalog);
    }
    return catalog;
  }

  constructor(dirs: readonly string[]) {
    for (const dir of dirs) {
      if (!existsSync(dir)) continue;
      for (const entry of readdirSync(dir).sort()) {
        if (!FONT_FILE.test(entry)) continue;
        this.index(path.join(dir, entry));
      }
    }
  }

  private index(file: string): void {
    let opened: fontkit.Font | fontkit.FontCollection;
    try {
      opened = fontkit.openSync(file);
    } catch {
      return;
    }
    const collection = 'fonts' in opened ? opened.fonts : undefined;
    for (const font of collection ?? [opened as fontkit.Font]) {
      const family = font.getName('preferredFamily', 'en') ?? font.familyName;
      const style = font.getName('preferredSubfamily', 'en') ?? font.subfamilyName;
      if (!family) continue;
      const name = `${family} ${style || 'Regular'}`;
      this.files.set(key(name), { file, postscriptName: collection ? font.postscriptName : undefined });
      this.displayNames.set(key(name), name);
    }
  }

  /** Every font name, as the fonts spell it. */
  names(): string[] {
    return [...this.displayNames.values()];
  }

  /** The file a font of that name (case-insensitive) is read from, or undefined when there is none. */
  file(name: string): string | undefined {
    return this.files.get(key(name))?.file;
  }

  /** Whether a font of that name (case-insensitive) is in the catalog. */
  has(name: string): boolean {
    return this.files.has(key(name));
  }

  private font(name: string): fontkit.Font | undefined {
    const id = key(name);
    let font = this.fonts.get(id);
    if (!font) {
      const entry = this.files.get(id);
      if (!entry) return undefined;
      font = fontkit.openSync(entry.file, entry.postscriptName) as fontkit.Font;
      this.fonts.set(id, font);
    }
    return font;
  }

  /** The fonts a stack looks into, in order: its own, then the fallbacks of its weight and slant. */
  private fallbacks(fontstack: readonly string[]): string[] {
    const stackKey = fontstack.join(',');
    let list = this.fallbackCache.get(stackKey);
    if (!list) {
      const first = key(fontstack[0] ?? '');
      const bold = /bold|black|heavy|semibold/.test(first);
      const italic = /italic|oblique/.test(first);
      const style = bold ? (italic ? 'Bold Italic' : 'Bold') : italic ? 'Italic' : 'Regular';
      const candidates = [...fontstack];
      for (const family of FALLBACK_FAMILIES) candidates.push(`${family} ${style}`, `${family} ${bold ? 'Bold' : 'Regular'}`, `${family} Regular`);
      for (const name of this.displayNames.values()) if (/^Noto Sans \S+ Regular$/.test(name)) candidates.push(name);
      list = [...new Set(candidates.map(key))].filter((name) => this.files.has(name));
      this.fallbackCache.set(stackKey, list);
    }
    return list;
  }

  /** The name of the font that draws `codepoint` for the stack, or undefined when none has it. */
  fontFor(fontstack: readonly string[], codepoint: number): string | undefined {
    for (const name of this.fallbacks(fontstack)) {
      if (this.font(name)!.hasGlyphForCodePoint(codepoint)) return name;
    }
    return undefined;
  }

  /** The stack's glyph for a codepoint, or null when no font has it. */
  glyph(fontstack: readonly string[], codepoint: number): FontGlyph | null {
    let glyphs = this.stackGlyphs.get(fontstack);
    if (!glyphs) {
      // Expressions hand out the same array for the same stack; equal arrays share the glyphs too.
      const id = fontstack.join(',');
      glyphs = this.glyphs.get(id);
      if (!glyphs) this.glyphs.set(id, (glyphs = new Map()));
      this.stackGlyphs.set(fontstack, glyphs);
    }
    let glyph = glyphs.get(codepoint);
    if (glyph === undefined) {
      const name = this.fontFor(fontstack, codepoint);
      glyph = name === undefined ? null : this.makeGlyph(name, codepoint);
      glyphs.set(codepoint, glyph);
    }
    return glyph;
  }

  private makeGlyph(name: string, codepoint: number): FontGlyph {
    const font = this.font(name)!;
    const glyph = font.glyphForCodePoint(codepoint);
    const scale = GLYPH_SIZE / font.unitsPerEm;
    const ascender = Math.round(font.ascent * scale);
    const advance = Math.floor(glyph.advanceWidth * scale);
    const box = glyph.bbox;
    const blank = !(box.maxX > box.minX && box.maxY > box.minY) || glyph.path.commands.length === 0;
    if (blank) return { codepoint, ascender, path: null, metrics: { width: 0, height: 0, left: 0, top: -ascender, advance } };
    const left = Math.round(box.minX * scale);
    const top = Math.round(box.maxY * scale);
    return {
      codepoint,
      ascender,
      path: this.outline(name, font, glyph.id, scale),
      metrics: { width: Math.round(box.maxX * scale) - left, height: top - Math.round(box.minY * scale), left, top: top - ascender, advance },
    };
  }

  /** A glyph's outline as a Skia path at 24 px, built once per font and glyph. */
  private outline(name: string, font: fontkit.Font, glyphId: number, scale: number): Path2D | null {
    const cacheKey = `${name}\n${glyphId}`;
    let outline = this.outlines.get(cacheKey);
    if (outline === undefined) {
      outline = toPath2D(font.getGlyph(glyphId).path.commands, scale);
      this.outlines.set(cacheKey, outline);
    }
    return outline;
  }
}

/** fontkit path commands (font units, y up) as a Path2D in pixels, y down. */
function toPath2D(commands: readonly fontkit.PathCommand[], scale: number): Path2D | null {
  if (commands.length === 0) return null;
  const path = new Path2D();
  const x = (value: number) => value * scale;
  const y = (value: number) => -value * scale;
  for (const { command, args } of commands) {
    switch (command) {
      case 'moveTo':
        path.moveTo(x(args[0]!), y(args[1]!));
        break;
      case 'lineTo':
        path.lineTo(x(args[0]!), y(args[1]!));
        break;
      case 'quadraticCurveTo':
        path.quadraticCurveTo(x(args[0]!), y(args[1]!), x(args[2]!), y(args[3]!));
        break;
      case 'bezierCurveTo':
        path.bezierCurveTo(x(args[0]!), y(args[1]!), x(args[2]!), y(args[3]!), x(args[4]!), y(args[5]!));
        break;
      case 'closePath':
        path.closePath();
        break;
    }
  }
  return path;
}
