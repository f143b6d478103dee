/**
 * symbol: draws what the placement pass placed for this layer, icons first, then text as MapLibre
 * orders them. Glyphs are vector outlines (the font's own, from the catalog, at 24 px) scaled to
 * the text size, at the positions the glyph PBFs' metrics give, so they land where MapLibre's SDF
 * quads do.
 *
 * The halo is MapLibre's, drawn from the glyphs' distance fields as its shader does (text-halo.ts),
 * under the text. Each label's halo is made once, on a canvas from the pool (pixel-canvas.ts), for
 * an origin at the middle of a device pixel, and kept (halo-images.ts: 32 MiB of them per thread,
 * as a decoded Image once drawn again, the canvas going back to the pool when it is not kept);
 * it is put on the map at the label's own origin, Skia's bilinear sampling carrying the fraction of
 * a pixel between the two, so that a halo serves every view that shows the label, not only views
 * moved by whole pixels.
 * Icons are drawn piece by piece (icon-quads.ts: stretchable images with icon-text-fit), sampled
 * like MapLibre samples its atlas; SDF icons are rendered from their distance field with
 * icon-color and their halo (sdf-icon.ts).
 */

import { Path2D, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { Color } from '@maplibre/maplibre-gl-style-spec';
import type { RenderContext } from '../paint/context.js';
import { cssColor } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import type { DrawnGlyph, DrawnIcon, DrawnText, SymbolPlacement } from './placement.js';
import { renderSdfIcon } from './sdf-icon.js';
import { textHalo } from './text-halo.js';
import { HaloImages } from './halo-images.js';
import type { Lru } from '../../platform/lru.js';
import { rasterCache, type PixelRaster } from '../paint/pixel-canvas.js';

/** Rendered SDF icons per image, by everything their pixels depend on. */
const sdfCache = new WeakMap<Canvas, Lru<string, PixelRaster | null>>();
const SDF_CACHE_SIZE = 256;

/** Draws the labels the placement pass gave the layer (none when it placed none). */
export function drawSymbol(rc: RenderContext, layer: RenderLayer, placement: SymbolPlacement): void {
  const placed = placement.drawn.get(layer.id);
  if (!placed) return;
  const { ctx, pixelRatio } = rc;
  for (const icon of placed.icons) drawIcon(ctx, icon, pixelRatio);
  const paths = placed.texts.map((text) => textPaths(text.glyphs, pixelRatio));
  ctx.save();
  placed.texts.forEach((text, i) => drawHalo(ctx, text, paths[i]!, pixelRatio));
  placed.texts.forEach((text, i) => {
    ctx.setTransform(1, 0, 0, 1, text.origin.x * pixelRatio, text.origin.y * pixelRatio);
    drawFill(ctx, text, paths[i]!.byColor);
  });
  ctx.restore();
}

interface TextPaths {
  /** Names the label's glyphs in the halo cache. */
  readonly id: number;
  readonly pixelRatio: number;
  readonly byColor: ReadonlyMap<Color | null, Path2D>;
}

let nextPathsId = 0;

/** The paths of a label's glyphs, kept while placement keeps handing out the same glyphs. */
const pathCache = new WeakMap<readonly DrawnGlyph[], TextPaths>();

/**
 * A label's glyph outlines in device pixels from its origin, by fill colour: one path per label
 * and colour, so that Skia fills each label once rather than glyph by glyph.
 */
function textPaths(glyphs: readonly DrawnGlyph[], pixelRatio: number): TextPaths {
  const cached = pathCache.get(glyphs);
  if (cached?.pixelRatio === pixelRatio) return cached;
  const byColor = new Map<Color | null, Path2D>();
  for (const glyph of glyphs) {
    if (!glyph.glyph.path) continue;
    const s = glyph.scale * pixelRatio;
    const cos = Math.cos(glyph.angle);
    const sin = Math.sin(glyph.angle);
    const matrix = { a: cos * s, b: sin * s, c: -sin * s, d: cos * s, e: glyph.x * pixelRatio, f: glyph.y * pixelRatio };
    let path = byColor.get(glyph.color);
    if (!path) byColor.set(glyph.color, (path = new Path2D()));
    path.addPath(glyph.glyph.path, matrix);
  }
  const paths = { id: nextPathsId++, pixelRatio, byColor };
  pathCache.set(glyphs, paths);
  return paths;
}

/** Where within its device pixel a kept halo's label origin is drawn: the middle. */
const HALO_ORIGIN = 0.5;

/** Halos made lately, 32 MiB of them per thread (halo-images.ts); each drawn alone for an origin at (HALO_ORIGIN, HALO_ORIGIN). */
const halos = new HaloImages(16384, 32 * 1024 * 1024);

function drawHalo(ctx: SKRSContext2D, text: DrawnText, paths: TextPaths, pixelRatio: number): void {
  if (!(text.haloWidth > 0)) return;
  const color = cssColor(text.haloColor, text.opacity);
  if (!color) return;
  const key = `${paths.id} ${text.haloWidth} ${text.haloBlur} ${color}`;
  const halo = halos.get(key, () => textHalo(text.glyphs, pixelRatio, { color: text.haloColor, width: text.haloWidth, blur: text.haloBlur, opacity: text.opacity }));
  if (!halo) return;
  // Made for an origin at the middle of a pixel, put where the label's origin is: the image
  // lands within half a pixel of the grid either way, so sampling spreads no edge wider than that.
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(halo.source, text.origin.x * pixelRatio - HALO_ORIGIN + halo.x, text.origin.y * pixelRatio - HALO_ORIGIN + halo.y);
}

function drawFill(ctx: SKRSContext2D, text: DrawnText, byColor: ReadonlyMap<Color | null, Path2D>): void {
  for (const [own, path] of byColor) {
    const color = cssColor(own ?? text.color, text.opacity);
    if (!color) continue;
    ctx.fillStyle = color;
    ctx.fill(path);
  }
}

function drawIcon(ctx: SKRSContext2D, icon: DrawnIcon, pixelRatio: number): void {
  if (!(icon.opacity > 0)) return;
  if (icon.image.sdf) {
    // Rendered for the anchor's place within its device pixel (to an eighth of a pixel), and kept.
    const ax = Math.round(icon.anchorX * pixelRatio * 8) / 8;
    const ay = Math.round(icon.anchorY * pixelRatio * 8) / 8;
    const px = Math.floor(ax);
    const py = Math.floor(ay);
    const key = [ax - px, ay - py, pixelRatio, icon.angle, icon.size, icon.opacity, icon.haloWidth, icon.haloBlur, icon.color, icon.haloColor, ...icon.quads.flatMap((q) => Object.values(q))].join();
    let cache = sdfCache.get(icon.image.image);
    if (!cache) sdfCache.set(icon.image.image, (cache = rasterCache(SDF_CACHE_SIZE)));
    let rendered = cache.get(key);
    if (rendered === undefined) rendered = cache.set(key, renderSdfIcon(icon.image.image, icon.quads, (ax - px) / pixelRatio, (ay - py) / pixelRatio, icon.angle, pixelRatio, icon));
    if (rendered) {
      ctx.save();
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(rendered.canvas, px + rendered.x, py + rendered.y);
      ctx.restore();
    }
    return;
  }
  ctx.save();
  ctx.globalAlpha = Math.min(1, icon.opacity);
  ctx.imageSmoothingEnabled = icon.smooth;
  const cos = Math.cos(icon.angle);
  const sin = Math.sin(icon.angle);
  ctx.setTransform(cos * pixelRatio, sin * pixelRatio, -sin * pixelRatio, cos * pixelRatio, icon.anchorX * pixelRatio, icon.anchorY * pixelRatio);
  const { width, height } = icon.image.image;
  for (const quad of icon.quads) {
    // The quad's source may reach into the atlas padding around the image: keep the part on the image.
    const sx1 = Math.max(0, quad.sx);
    const sy1 = Math.max(0, quad.sy);
    const sx2 = Math.min(width, quad.sx + quad.sw);
    const sy2 = Math.min(height, quad.sy + quad.sh);
    if (!(sx2 > sx1 && sy2 > sy1)) continue;
    const kx = (quad.x2 - quad.x1) / quad.sw;
    const ky = (quad.y2 - quad.y1) / quad.sh;
    const dx = quad.x1 + (sx1 - quad.sx) * kx;
    const dy = quad.y1 + (sy1 - quad.sy) * ky;
    ctx.drawImage(icon.image.image, sx1, sy1, sx2 - sx1, sy2 - sy1, dx, dy, (sx2 - sx1) * kx, (sy2 - sy1) * ky);
  }
  ctx.restore();
}
