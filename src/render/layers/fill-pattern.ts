/**
 * fill with `fill-pattern`: each polygon filled with its sprite image on the world's pixel grid
 * (`pattern.ts`) times `fill-opacity`; `fill-color` is not used (MapLibre's fill-pattern program
 * ignores it), and a feature whose image the sprite lacks is not drawn. With `fill-antialias`, the
 * outline MapLibre draws in the pattern (or in `fill-outline-color` when the style gives one) is a
 * stroke one device pixel wide over the fill, as for plain fills. Features of one image and opacity
 * in a tile are one path; with a data-driven `fill-sort-key` only consecutive ones are.
 */

import { Path2D, type SKRSContext2D } from '@napi-rs/canvas';
import type { Color } from '@maplibre/maplibre-gl-style-spec';
import type { SpriteImage } from '../sprite/sprite.js';
import { clipTo, layerTranslate, type RenderContext } from '../paint/context.js';
import { patternImage, patternValue, WorldPattern } from '../paint/pattern.js';
import { cssColor, evaluateAt, isFeatureConstant, paintValue } from '../style/properties.js';
import type { RenderLayer } from '../style/style.js';
import { layerTiles } from '../tile/vector.js';

interface PatternBatch {
  image: SpriteImage;
  opacity: number;
  /** The outline's own colour (opacity included), when the style gives one. */
  outline: string | null;
  path: Path2D;
}

export function drawPatternFills(rc: RenderContext, ctx: SKRSContext2D, layer: RenderLayer): void {
  const loaded = rc.source(layer.source);
  if (!loaded) return;
  const { paint } = layer;
  const { globalState } = rc.style;
  const antialias = evaluateAt<boolean>(paint['fill-antialias']!, rc.zoom, globalState);
  const [dx, dy] = layerTranslate(rc, paint['fill-translate']!);
  const patternExpression = paint['fill-pattern']!;
  const opacityExpression = paint['fill-opacity']!;
  const outlineExpression = paint['fill-outline-color']!;
  // style.ts makes the outline the fill colour's expression unless the style gives its own.
  const ownOutline = antialias && outlineExpression !== paint['fill-color'];
  const constantPaint = isFeatureConstant(patternExpression) && isFeatureConstant(opacityExpression) && (!ownOutline || isFeatureConstant(outlineExpression));
  const sorted = !isFeatureConstant(layer.layout['fill-sort-key']!);
  const patterns = new Map<SpriteImage, WorldPattern>();

  for (const { tile, source, zooms, selected } of layerTiles(loaded.vector, layer, globalState, (type) => type !== 1, 'fill-sort-key')) {

    const batches: PatternBatch[] = [];
    const byKey = new Map<string, PatternBatch>();
    let last: PatternBatch | null | undefined;
    let lastKey = '';
    for (const index of selected) {
      let batch: PatternBatch | null | undefined = constantPaint ? last : undefined;
      if (batch === undefined) {
        const feature = constantPaint ? undefined : source.evaluationFeature(index);
        const opacity = paintValue<number>(opacityExpression, zooms, feature, tile.canonical);
        const image = patternImage(rc, patternValue(patternExpression, zooms, feature, tile.canonical));
        // MapLibre's vertex shader drops anything fainter than this.
        if (!image || !(opacity >= 0.01)) {
          last = constantPaint ? null : last;
          continue;
        }
        const outline = ownOutline ? cssColor(paintValue<Color | undefined>(outlineExpression, zooms, feature, tile.canonical), opacity) : null;
        const key = `${image.id}|${opacity}|${outline}`;
        batch = sorted ? (key === lastKey ? last : undefined) : byKey.get(key);
        if (!batch) {
          batch = { image, opacity, outline, path: new Path2D() };
          batches.push(batch);
          if (!sorted) byKey.set(key, batch);
        }
        lastKey = key;
      }
      if (!batch) continue;
      source.addTo(batch.path, index);
      last = batch;
    }
    if (batches.length === 0) continue;

    clipTo(ctx, tile.clip);
    if (dx !== 0 || dy !== 0) ctx.translate(dx, dy);
    for (const batch of batches) {
      let pattern = patterns.get(batch.image);
      if (!pattern) {
        pattern = new WorldPattern(rc, batch.image);
        patterns.set(batch.image, pattern);
      }
      // The fill, and the outline in the pattern: a stroke one device pixel wide over it.
      const area = antialias && !batch.outline ? new Path2D(batch.path) : batch.path;
      if (area !== batch.path) area.addPath(new Path2D(batch.path).stroke({ width: 1 }));
      ctx.save();
      ctx.clip(area, 'nonzero');
      ctx.globalAlpha = Math.min(1, batch.opacity);
      pattern.paint(ctx);
      ctx.restore();
      if (antialias && batch.outline) {
        ctx.lineWidth = 1;
        ctx.strokeStyle = batch.outline;
        ctx.stroke(batch.path);
      }
    }
    ctx.restore();
  }
}
