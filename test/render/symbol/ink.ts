/**
 * Where a placed label's pixels must be, worked out apart from the renderer, and what a rendering
 * has there: for the symbol tests that check that each placed label is drawn, where it was placed.
 *
 * A one-line label's box follows MapLibre's shaping: as wide as its glyphs' advances (the font's,
 * rounded at 24 px as MapLibre's glyph PBFs round them, no kerning), one text-line-height tall
 * (1.2 em), put beside the anchor as text-anchor says, moved by text-offset (em), and grown by the
 * halo width. An icon's box is the image's size times icon-size, centred on the anchor.
 */

import * as fontkit from 'fontkit';
import type { Canvas } from '@napi-rs/canvas';
import { FontCatalog } from '../../../src/render/glyphs/catalog.js';
import type { PlacedLabel } from '../../../src/render/symbol/placement.js';

/** A rectangle in CSS px. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

const fonts = new Map<string, fontkit.Font>();

/** The advance width of `text` at `size` px in the catalog's font `fontName`, as MapLibre lays out one line. */
export function advanceWidth(text: string, size: number, fontName = 'Noto Sans Regular'): number {
  let font = fonts.get(fontName);
  if (!font) {
    const file = FontCatalog.default().file(fontName);
    if (!file) throw new Error(`no font ${fontName}`);
    font = fontkit.openSync(file) as fontkit.Font;
    fonts.set(fontName, font);
  }
  const units = font.glyphsForString(text).reduce((sum, glyph) => sum + Math.round((glyph.advanceWidth / font.unitsPerEm) * 24), 0);
  return (units * size) / 24;
}

export interface TextLayout {
  size: number;
  font?: string;
  /** text-anchor, or for a variable anchor the label's own. */
  anchor?: string;
  /** text-offset, em. */
  offset?: [number, number];
  haloWidth?: number;
}

/** The box a one-line text label's glyphs and halo must lie in. */
export function textBox(label: Pick<PlacedLabel, 'text' | 'x' | 'y'>, layout: TextLayout): Box {
  const { size, anchor = 'center', offset = [0, 0], haloWidth = 0 } = layout;
  const width = advanceWidth(label.text, size, layout.font);
  const height = 1.2 * size;
  const x0 = label.x + offset[0] * size - (anchor.endsWith('left') ? 0 : anchor.endsWith('right') ? width : width / 2);
  const y0 = label.y + offset[1] * size - (anchor.startsWith('top') ? 0 : anchor.startsWith('bottom') ? height : height / 2);
  return { x0: x0 - haloWidth, y0: y0 - haloWidth, x1: x0 + width + haloWidth, y1: y0 + height + haloWidth };
}

/** The box of an icon of width x height CSS px at icon-size `scale`, centred on the label's anchor. */
export function iconBox(label: Pick<PlacedLabel, 'x' | 'y'>, width: number, height: number, scale = 1): Box {
  return { x0: label.x - (width * scale) / 2, y0: label.y - (height * scale) / 2, x1: label.x + (width * scale) / 2, y1: label.y + (height * scale) / 2 };
}

export type Rgb = [number, number, number];

/** A pixel "of" a colour: opaque enough and within 64 of it in each channel (edges blend with what is under them). */
function isColor(data: Uint8ClampedArray, i: number, color: Rgb): boolean {
  return data[i + 3]! >= 192 && Math.abs(data[i]! - color[0]) <= 64 && Math.abs(data[i + 1]! - color[1]) <= 64 && Math.abs(data[i + 2]! - color[2]) <= 64;
}

export interface InkReport {
  /** Per box (in the order given), the device pixels inside it of each colour (by the colour's index). */
  inBoxes: number[][];
  /** Device pixels other than the background outside every box grown by `slack`. */
  outside: number;
  /** A few of them, CSS px, to show in a failure. */
  outsideSamples: string[];
}

/**
 * Counts, in a rendering at `pixelRatio`, the pixels of each of `colors` inside each box, and the
 * pixels that are not `background` (RGBA) outside all boxes grown by `slack` CSS px.
 */
export function inkReport(canvas: Canvas, pixelRatio: number, boxes: readonly Box[], colors: readonly Rgb[], background: [number, number, number, number], slack = 1): InkReport {
  const { width, height } = canvas;
  const data = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  const device = (box: Box, grow: number) => ({
    x0: Math.floor((box.x0 - grow) * pixelRatio),
    y0: Math.floor((box.y0 - grow) * pixelRatio),
    x1: Math.ceil((box.x1 + grow) * pixelRatio),
    y1: Math.ceil((box.y1 + grow) * pixelRatio),
  });
  const tight = boxes.map((box) => device(box, 0));
  const grown = boxes.map((box) => device(box, slack));
  const inBoxes = boxes.map(() => colors.map(() => 0));
  let outside = 0;
  const outsideSamples: string[] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const within = (b: Box) => x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1;
      tight.forEach((box, k) => {
        if (!within(box)) return;
        colors.forEach((color, c) => {
          if (isColor(data, i, color)) inBoxes[k]![c]!++;
        });
      });
      const ink = data[i] !== background[0] || data[i + 1] !== background[1] || data[i + 2] !== background[2] || data[i + 3] !== background[3];
      if (ink && !grown.some(within)) {
        outside++;
        if (outsideSamples.length < 5) outsideSamples.push(`${(x / pixelRatio).toFixed(1)},${(y / pixelRatio).toFixed(1)}`);
      }
    }
  }
  return { inBoxes, outside, outsideSamples };
}

/** Device pixels in a box. */
export function boxArea(box: Box, pixelRatio: number): number {
  return (box.x1 - box.x0) * (box.y1 - box.y0) * pixelRatio * pixelRatio;
}
