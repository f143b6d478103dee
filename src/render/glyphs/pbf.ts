/**
 * MapLibre glyph PBFs (glyphs.proto: fontstacks { name, range, glyphs { id, bitmap, width, height,
 * left, top, advance } }) made from the font catalog: for 256 codepoints, each glyph its signed
 * distance field (sdf.ts) with the catalog's metrics.
 */

import { PbfWriter } from 'pbf';
import type { FontCatalog, FontGlyph } from './catalog.js';
import { glyphSdf, type GlyphSdf } from './sdf.js';

/** The PBF of codepoints start..start + 255 of a fontstack (its fonts, then their fallbacks). */
export function glyphRangePbf(catalog: FontCatalog, fontstack: readonly string[], start: number): Uint8Array {
  if (!Number.isInteger(start) || start < 0 || start > 65280 || start % 256 !== 0) throw new RangeError(`glyph range start ${start} is not a multiple of 256 in 0..65280`);
  const pbf = new PbfWriter();
  pbf.writeMessage(1, (_: unknown, out: PbfWriter) => {
    out.writeStringField(1, fontstack.join(','));
    out.writeStringField(2, `${start}-${start + 255}`);
    for (let codepoint = start; codepoint < start + 256; codepoint++) {
      const glyph = catalog.glyph(fontstack, codepoint);
      if (!glyph) continue;
      out.writeMessage(3, writeGlyph, { glyph, sdf: glyphSdf(glyph) });
    }
  }, undefined);
  return pbf.finish();
}

function writeGlyph({ glyph, sdf }: { glyph: FontGlyph; sdf: GlyphSdf | null }, out: PbfWriter): void {
  const { width, height, left, top, advance } = glyph.metrics;
  out.writeVarintField(1, glyph.codepoint);
  if (sdf && width > 0 && height > 0) out.writeBytesField(2, new Uint8Array(sdf.data.buffer, sdf.data.byteOffset, sdf.data.length));
  out.writeVarintField(3, width);
  out.writeVarintField(4, height);
  out.writeSVarintField(5, left);
  out.writeSVarintField(6, top);
  out.writeVarintField(7, advance);
}
