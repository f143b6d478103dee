/**
 * Text shaping as MapLibre's src/symbol/shaping.ts and tagged_string.ts do it, in glyph units
 * (24 px to the em): sections of formatted text, line breaking to text-max-width by the least
 * "badness" (raggedness squared plus penalties), each line trimmed, justified (left/center/right),
 * the block aligned on its text-anchor, every glyph's pen x and its line's y relative to the anchor.
 * Glyph metrics come from the font catalog, the same as the glyph PBFs state.
 *
 * Arabic letters take their joined shapes (arabic-shaping.ts) and a label with right-to-left text
 * has its lines, once broken in logical order, put in visual order (bidi.ts), as MapLibre GL JS
 * does without any plugin.
 *
 * Left out: vertical writing (labels are laid out horizontally only), and images inside text.
 */

import type { FontCatalog, FontGlyph } from '../glyphs/catalog.js';
import { applyArabicShaping } from './arabic-shaping.js';
import { containsRtlText, visualLines } from './bidi.js';

/** Where glyphs come from: the font catalog, or anything with its `glyph`. */
export type GlyphSource = Pick<FontCatalog, 'glyph'>;

export const ONE_EM = 24;
/** MapLibre's SHAPING_DEFAULT_OFFSET: moves the first baseline up to the middle of the em. */
export const SHAPING_DEFAULT_OFFSET = -17;

export interface TextSection {
  readonly text: string;
  readonly fontstack: readonly string[];
  readonly scale: number;
  /** The section's own colour (a `format` override), or null for the layer's. */
  readonly color: unknown;
}

export interface PositionedGlyph {
  readonly glyph: FontGlyph;
  /** Pen x and line y (the y that glyph tops are measured from), glyph units. */
  x: number;
  y: number;
  readonly scale: number;
  readonly section: number;
}

export interface Shaping {
  readonly lines: PositionedGlyph[][];
  readonly top: number;
  readonly bottom: number;
  readonly left: number;
  readonly right: number;
  readonly text: string;
}

export type SymbolAnchor = 'center' | 'left' | 'right' | 'top' | 'bottom' | 'top-left' | 'top-right' | 'bottom-left' | 'bottom-right';
export type TextJustify = 'left' | 'center' | 'right';

export function anchorAlignment(anchor: SymbolAnchor): { horizontal: number; vertical: number } {
  const horizontal = anchor.endsWith('right') ? 1 : anchor.endsWith('left') ? 0 : 0.5;
  const vertical = anchor.startsWith('bottom') ? 1 : anchor.startsWith('top') ? 0 : 0.5;
  return { horizontal, vertical };
}

export function anchorJustification(anchor: SymbolAnchor): TextJustify {
  return anchor.endsWith('right') ? 'right' : anchor.endsWith('left') ? 'left' : 'center';
}

interface Char {
  readonly char: string;
  readonly codepoint: number;
  readonly section: number;
}

const BREAKABLE = new Set([0x0a, 0x0d, 0x20, 0x26, 0x29, 0x2b, 0x2d, 0x2f, 0xad, 0xb7, 0x200b, 0x2010, 0x2013, 0x2027]);
const BREAKABLE_BEFORE = new Set([0x28]);

function isWhitespace(codepoint: number): boolean {
  return codepoint === 0x0a || codepoint === 0x0b || codepoint === 0x0d || codepoint === 0x20;
}

/** Ideographs and kana, where a line may break between any two characters. */
function allowsIdeographicBreaking(codepoint: number): boolean {
  return (
    (codepoint >= 0x2e80 && codepoint <= 0x9fff) || (codepoint >= 0xac00 && codepoint <= 0xd7af) || (codepoint >= 0xf900 && codepoint <= 0xfaff) ||
    (codepoint >= 0xfe30 && codepoint <= 0xfe4f) || (codepoint >= 0xff00 && codepoint <= 0xffef) || (codepoint >= 0x20000 && codepoint <= 0x3134f)
  );
}

/** Cursive scripts whose letters letter-spacing would pull apart (MapLibre's charAllowsLetterSpacing). */
export function allowsLetterSpacing(text: string): boolean {
  return !/[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff\u0700-\u074f\u1800-\u18af\u07c0-\u07ff]/.test(text);
}

interface Break {
  index: number;
  x: number;
  prior: Break | null;
  badness: number;
}

function badness(lineWidth: number, target: number, penalty: number, last: boolean): number {
  const raggedness = (lineWidth - target) ** 2;
  if (last) return lineWidth < target ? raggedness / 2 : raggedness * 2;
  return raggedness + Math.abs(penalty) * penalty;
}

function penalty(codepoint: number, next: number, penalizableIdeographic: boolean): number {
  let value = 0;
  if (codepoint === 0x0a || codepoint === 0x0d) value -= 10000;
  if (penalizableIdeographic) value += 150;
  if (codepoint === 0x28 || codepoint === 0xff08) value += 50;
  if (next === 0x29 || next === 0xff09) value += 50;
  return value;
}

function evaluateBreak(index: number, x: number, target: number, breaks: Break[], pen: number, last: boolean): Break {
  let best: Break | null = null;
  let bestBadness = badness(x, target, pen, last);
  for (const prior of breaks) {
    const value = badness(x - prior.x, target, pen, last) + prior.badness;
    if (value <= bestBadness) {
      best = prior;
      bestBadness = value;
    }
  }
  return { index, x, prior: best, badness: bestBadness };
}

/** MapLibre's determineLineBreaks: the char indices each line ends at. */
function lineBreaks(chars: readonly Char[], advance: (char: Char) => number, spacing: number, maxWidth: number): number[] {
  let total = 0;
  for (const char of chars) total += advance(char) + spacing;
  const text = chars.map((c) => c.char).join('');
  if (spacing >= 0 && total > 0 && total <= maxWidth && !/[\n\r]/.test(text)) return [chars.length];
  const target = total / Math.max(1, Math.ceil(total / maxWidth));
  const hasZeroWidthSpaces = text.includes('\u200b');
  const breaks: Break[] = [];
  let x = 0;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (i > 0) {
      const previous = chars[i - 1]!.codepoint;
      const ideographic = allowsIdeographicBreaking(previous);
      if (BREAKABLE.has(previous) || ideographic || (i + 1 < chars.length && BREAKABLE_BEFORE.has(char.codepoint))) {
        breaks.push(evaluateBreak(i, x, target, breaks, penalty(previous, char.codepoint, ideographic && hasZeroWidthSpaces), false));
      }
    }
    if (!isWhitespace(char.codepoint)) x += advance(char) + spacing;
  }
  const result: number[] = [];
  for (let b: Break | null = evaluateBreak(chars.length, x, target, breaks, 0, true); b; b = b.prior) result.unshift(b.index);
  return result;
}

export interface ShapeOptions {
  readonly maxWidth: number;
  readonly lineHeight: number;
  readonly anchor: SymbolAnchor;
  readonly justify: TextJustify;
  readonly spacing: number;
  readonly offset: readonly [number, number];
}

/** Shapes formatted text; null when no glyph of it exists. */
export function shapeText(catalog: GlyphSource, sections: readonly TextSection[], options: ShapeOptions): Shaping | null {
  const chars: Char[] = [];
  sections.forEach((section, index) => {
    for (const char of applyArabicShaping(section.text)) chars.push({ char, codepoint: char.codePointAt(0)!, section: index });
  });
  const glyphOf = (char: Char) => catalog.glyph(sections[char.section]!.fontstack, char.codepoint);
  const advance = (char: Char) => {
    const glyph = glyphOf(char);
    return glyph ? glyph.metrics.advance * sections[char.section]!.scale : 0;
  };
  const { lineHeight, spacing } = options;
  const ends = lineBreaks(chars, advance, spacing, options.maxWidth);
  const text = chars.map((c) => c.char).join('');
  const brokenLines = containsRtlText(text) ? visualOrder(chars, text, ends) : ends.map((end, i) => chars.slice(i === 0 ? 0 : ends[i - 1], end));
  const justify = options.justify === 'right' ? 1 : options.justify === 'left' ? 0 : 0.5;

  const lines: PositionedGlyph[][] = [];
  let y = 0;
  let maxLineLength = 0;
  let maxLineHeight = 0;
  let placed = 0;
  for (let line of brokenLines) {
    while (line.length > 0 && /^\s$/u.test(line[0]!.char)) line = line.slice(1);
    while (line.length > 0 && /^\s$/u.test(line[line.length - 1]!.char)) line = line.slice(0, -1);
    const positioned: PositionedGlyph[] = [];
    lines.push(positioned);
    if (line.length === 0) {
      y += lineHeight;
      continue;
    }
    const lineMaxScale = Math.max(...line.map((c) => sections[c.section]!.scale));
    const lineContentHeight = lineMaxScale * ONE_EM;
    let x = 0;
    for (const char of line) {
      const glyph = glyphOf(char);
      if (!glyph) continue;
      const { scale } = sections[char.section]!;
      // Smaller sections sit on the line's bottom (vertical-align "bottom", the default).
      const baselineOffset = lineContentHeight - scale * ONE_EM;
      positioned.push({ glyph, x, y: y + SHAPING_DEFAULT_OFFSET + baselineOffset, scale, section: char.section });
      x += glyph.metrics.advance * scale + spacing;
    }
    if (positioned.length > 0) {
      maxLineLength = Math.max(x - spacing, maxLineLength);
      const last = positioned[positioned.length - 1]!;
      const indent = (last.x + last.glyph.metrics.advance * last.scale) * justify;
      for (const glyph of positioned) glyph.x -= indent;
      placed += positioned.length;
    }
    const currentLineHeight = lineHeight * lineMaxScale;
    y += currentLineHeight;
    maxLineHeight = Math.max(currentLineHeight, maxLineHeight);
  }
  if (placed === 0) return null;

  const { horizontal, vertical } = anchorAlignment(options.anchor);
  const shiftX = (justify - horizontal) * maxLineLength;
  const shiftY = maxLineHeight !== lineHeight ? -y * vertical - SHAPING_DEFAULT_OFFSET : -vertical * lines.length * lineHeight + 0.5 * lineHeight;
  for (const line of lines) {
    for (const glyph of line) {
      glyph.x += shiftX;
      glyph.y += shiftY;
    }
  }
  const top = options.offset[1] - vertical * y;
  const left = options.offset[0] - horizontal * maxLineLength;
  return { lines, top, bottom: top + y, left, right: left + maxLineLength, text };
}

/** The lines of `text` (its `chars` joined) ending at `ends` (char indices, logical order), each in visual order. */
function visualOrder(chars: readonly Char[], text: string, ends: readonly number[]): Char[][] {
  const sectionOfUnit: number[] = [];
  const unitOfChar: number[] = [0];
  for (const char of chars) {
    for (let k = 0; k < char.char.length; k++) sectionOfUnit.push(char.section);
    unitOfChar.push(sectionOfUnit.length);
  }
  return visualLines(text, ends.map((end) => unitOfChar[end]!)).map((line) => {
    const out: Char[] = [];
    let unit = 0;
    for (const char of line.text) {
      out.push({ char, codepoint: char.codePointAt(0)!, section: sectionOfUnit[line.sourceIndices[unit]!]! });
      unit += char.length;
    }
    return out;
  });
}

export interface PositionedIcon {
  readonly top: number;
  readonly bottom: number;
  readonly left: number;
  readonly right: number;
}

/** The icon's box around the anchor (MapLibre's shapeIcon), CSS px at icon-size 1. */
export function shapeIcon(width: number, height: number, offset: readonly [number, number], anchor: SymbolAnchor): PositionedIcon {
  const { horizontal, vertical } = anchorAlignment(anchor);
  const left = offset[0] - width * horizontal;
  const top = offset[1] - height * vertical;
  return { left, top, right: left + width, bottom: top + height };
}

/** MapLibre's fitIconToText: the icon box stretched or centred on the text (text box at fontScale). */
export function fitIconToText(
  icon: PositionedIcon,
  text: Shaping,
  fit: 'width' | 'height' | 'both',
  padding: readonly [number, number, number, number],
  offset: readonly [number, number],
  fontScale: number,
): PositionedIcon {
  const width = icon.right - icon.left;
  const height = icon.bottom - icon.top;
  const textLeft = text.left * fontScale;
  const textRight = text.right * fontScale;
  const textTop = text.top * fontScale;
  const textBottom = text.bottom * fontScale;
  let left: number, right: number, top: number, bottom: number;
  if (fit === 'width' || fit === 'both') {
    left = offset[0] + textLeft - padding[3];
    right = offset[0] + textRight + padding[1];
  } else {
    left = offset[0] + (textLeft + textRight - width) / 2;
    right = left + width;
  }
  if (fit === 'height' || fit === 'both') {
    top = offset[1] + textTop - padding[0];
    bottom = offset[1] + textBottom + padding[2];
  } else {
    top = offset[1] + (textTop + textBottom - height) / 2;
    bottom = top + height;
  }
  return { left, right, top, bottom };
}
