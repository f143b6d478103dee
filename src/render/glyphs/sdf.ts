/**
 * A glyph's signed distance field as MapLibre's glyph PBFs carry it: at 24 px with a 3-px border,
 * made by tiny-sdf (radius 8, cutoff 0.25, the values MapLibre's shaders expect) from the glyph's
 * own outline, with the catalog's metrics. The PBFs (pbf.ts) send it to MapLibre clients; the label
 * renderer draws halos from it as MapLibre's shader does (symbol/text-halo.ts).
 *
 * tiny-sdf rasterises with a canvas' measureText and fillText; it is handed a stand-in context
 * whose measureText reports the catalog's (already integer) box and whose fillText fills the
 * glyph's outline, so the field's box is exactly the box the metrics state: texel (i, j) covers
 * [left - 3 + i, +1) x [-(top + ascender) - 3 + j, +1) in the outline's 24-px units, pen at (0, 0)
 * on the baseline, y down.
 */

import TinySDF from '@mapbox/tiny-sdf';
import { createCanvas, type SKRSContext2D } from '@napi-rs/canvas';
import { GLYPH_SIZE, type FontGlyph } from './catalog.js';
import { Lru } from '../../platform/lru.js';

/** The field's border around the glyph's box, 24-px units (MapLibre's GLYPH_PBF_BORDER). */
export const SDF_BUFFER = 3;
const RADIUS = 8;
const CUTOFF = 0.25;

export interface GlyphSdf {
  /** width x height bytes, row after row: 191 on the outline, 32 less per unit outside. */
  readonly data: Uint8ClampedArray;
  /** The glyph's box plus the border on each side. */
  readonly width: number;
  readonly height: number;
}

let rasterize: ((glyph: FontGlyph) => GlyphSdf) | undefined;

/** The glyph's field, made now; null for a blank glyph or an empty box. */
export function glyphSdf(glyph: FontGlyph): GlyphSdf | null {
  if (!(glyph.path && glyph.metrics.width > 0 && glyph.metrics.height > 0)) return null;
  rasterize ??= sdfRasterizer();
  return rasterize(glyph);
}

/**
 * Fields of the glyphs labels were drawn with lately (the catalog keeps one object per glyph):
 * about 1 KiB each, and a map in a script with thousands of glyphs should not keep all of them.
 */
const kept = new Lru<FontGlyph, GlyphSdf | null>(4096);

/** glyphSdf, kept for the next label that draws the glyph. */
export function keptGlyphSdf(glyph: FontGlyph): GlyphSdf | null {
  let field = kept.get(glyph);
  if (field === undefined) field = kept.set(glyph, glyphSdf(glyph));
  return field;
}

/** tiny-sdf drawing catalog glyphs: a function from a glyph to its field. */
function sdfRasterizer(): (glyph: FontGlyph) => GlyphSdf {
  let current: FontGlyph | null = null;
  // Large enough for any glyph tiny-sdf keeps (it clips to fontSize + 3 buffers).
  const canvas = createCanvas(GLYPH_SIZE + SDF_BUFFER * 8, GLYPH_SIZE + SDF_BUFFER * 8);
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
  const sdf = new CatalogSdf({ fontSize: GLYPH_SIZE, buffer: SDF_BUFFER, radius: RADIUS, cutoff: CUTOFF });
  return (glyph) => {
    current = glyph;
    real.clearRect(0, 0, canvas.width, canvas.height);
    const { data, width, height } = sdf.draw(String.fromCodePoint(glyph.codepoint)) as GlyphSdf;
    return { data, width, height };
  };
}
