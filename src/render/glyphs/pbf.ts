/**
 * MapLibre glyph PBFs (glyphs.proto: fontstacks { name, range, glyphs { id, bitmap, width, height,
 * left, top, advance } }) made from the font catalog: for 256 codepoints, each glyph a signed
 * distance field at 24 px with a 3-px border, made by tiny-sdf (radius 8, cutoff 0.25, the values
 * MapLibre's shaders expect) from the glyph's own outline, with the catalog's metrics.
 *
 * tiny-sdf rasterises with a canvas' measureText and fillText; it is handed a stand-in context
 * whose measureText reports the catalog's (already integer) box and whose fillText fills the
 * glyph's outline, so the field's box is exactly the box the metrics state.
 */

import TinySDF from '@mapbox/tiny-sdf';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { PbfWriter } from 'pbf';
import { GLYPH_SIZE, type FontCatalog, type FontGlyph } from './catalog.js';

const BUFFER = 3;
const RADIUS = 8;
const CUTOFF = 0.25;

interface SdfGlyph {
  data: Uint8ClampedArray;
  glyphWidth: number;
  glyphHeight: number;
}

/** The PBF of codepoints start..start + 255 of a fontstack (its fonts, then their fallbacks). */
export function glyphRangePbf(catalog: FontCatalog, fontstack: readonly string[], start: number): Uint8Array {
  if (!Number.isInteger(start) || start < 0 || start > 65280 || start % 256 !== 0) throw new RangeError(`glyph range start ${start} is not a multiple of 256 in 0..65280`);
  const rasterizer = sdfRasterizer();
  const pbf = new PbfWriter();
  pbf.writeMessage(1, (_: unknown, out: PbfWriter) => {
    out.writeStringField(1, fontstack.join(','));
    out.writeStringField(2, `${start}-${start + 255}`);
    for (let codepoint = start; codepoint < start + 256; codepoint++) {
      const glyph = catalog.glyph(fontstack, codepoint);
      if (!glyph) continue;
      out.writeMessage(3, writeGlyph, { glyph, sdf: rasterizer(glyph) });
    }
  }, undefined);
  return pbf.finish();
}

function writeGlyph({ glyph, sdf }: { glyph: FontGlyph; sdf: SdfGlyph | null }, out: PbfWriter): void {
  const { width, height, left, top, advance } = glyph.metrics;
  out.writeVarintField(1, glyph.codepoint);
  if (sdf && width > 0 && height > 0) out.writeBytesField(2, new Uint8Array(sdf.data.buffer, sdf.data.byteOffset, sdf.data.length));
  out.writeVarintField(3, width);
  out.writeVarintField(4, height);
  out.writeSVarintField(5, left);
  out.writeSVarintField(6, top);
  out.writeVarintField(7, advance);
}

/** tiny-sdf drawing catalog glyphs: a function from a glyph to its field (null when blank). */
function sdfRasterizer(): (glyph: FontGlyph) => SdfGlyph | null {
  let current: FontGlyph | null = null;
  // Large enough for any glyph tiny-sdf keeps (it clips to fontSize + 3 buffers).
  const canvas = createCanvas(GLYPH_SIZE + BUFFER * 8, GLYPH_SIZE + BUFFER * 8);
  const real: SKRSContext2D = canvas.getContext('2d');
  const standIn = {
    measureText: () => {
      const { metrics, ascender } = current!;
      const top = metrics.top + ascender;
      return {
        width: metrics.advance,
        actualBoundingBoxAscent: top,
        actualBoundingBoxDescent: metrics.height - top,
        actualBoundingBoxLeft: -metrics.left,
        actualBoundingBoxRight: metrics.left + metrics.width,
      };
    },
    clearRect: (x: number, y: number, w: number, h: number) => real.clearRect(x, y, w, h),
    fillText: (_: string, x: number, y: number) => {
      real.save();
      real.translate(x, y);
      real.fillStyle = 'black';
      real.fill(current!.path!);
      real.restore();
    },
    getImageData: (x: number, y: number, w: number, h: number) => real.getImageData(x, y, w, h),
  };
  class CatalogSdf extends TinySDF {
    protected _createCanvas(): unknown {
      return { getContext: () => standIn };
    }
  }
  const sdf = new CatalogSdf({ fontSize: GLYPH_SIZE, buffer: BUFFER, radius: RADIUS, cutoff: CUTOFF });
  return (glyph) => {
    if (!glyph.path) return null;
    current = glyph;
    real.clearRect(0, 0, canvas.width, canvas.height);
    return sdf.draw(String.fromCodePoint(glyph.codepoint)) as SdfGlyph;
  };
}
