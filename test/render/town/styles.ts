/**
 * The two real third-party styles the town is drawn with, pointed at its archives by relative
 * `pmtiles://` URLs (they sit next to the styles in _data/town):
 * - OpenMapTiles: the "basic-preview" style of npm tileserver-gl-styles, as shipped but its source;
 * - Protomaps: the "light" flavour of npm @protomaps/basemaps in English; its sprite and glyph URLs
 *   (on the internet) are replaced, the sprite by one under the same icon names (sprite.ts).
 * Glyphs are the placeholder of the suite's symbol cases: Meridian draws text from its font catalog
 * by font name, and the reference page (references.ts) answers this URL, relative to the page, with
 * glyph PBFs made from the same fonts.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { layers, namedFlavor } from '@protomaps/basemaps';

export const GLYPHS = 'fonts/{fontstack}/{range}.pbf';
/** The Protomaps sprite's base name, next to the style. */
export const PROTOMAPS_SPRITE = 'protomaps-sprite';
const ATTRIBUTION = 'Synthetic data';

type Style = Record<string, unknown> & { layers: unknown[] };

const require = createRequire(import.meta.url);

export function openMapTilesStyle(): Style {
  const file = path.join(path.dirname(require.resolve('tileserver-gl-styles/package.json')), 'styles/basic-preview/style.json');
  const style = JSON.parse(readFileSync(file, 'utf8')) as Style;
  return {
    ...style,
    sources: { openmaptiles: { type: 'vector', url: 'pmtiles://openmaptiles.pmtiles', attribution: ATTRIBUTION } },
    glyphs: GLYPHS,
  };
}

/** The Protomaps light style, with the sprite of sprite.ts beside it. */
export function protomapsStyle(): Style {
  return {
    version: 8,
    name: 'Protomaps light',
    glyphs: GLYPHS,
    sprite: PROTOMAPS_SPRITE,
    sources: { protomaps: { type: 'vector', url: 'pmtiles://protomaps.pmtiles', attribution: ATTRIBUTION } },
    layers: layers('protomaps', namedFlavor('light'), { lang: 'en' }),
  };
}

/** A style as JSON with one layer a line, so that a change shows as a small diff. */
export function styleJson(style: Style): string {
  const { layers: styleLayers, ...rest } = style;
  const head = JSON.stringify(rest, null, 2).slice(0, -2);
  return `${head},\n  "layers": [\n${styleLayers.map((layer) => `    ${JSON.stringify(layer)}`).join(',\n')}\n  ]\n}\n`;
}
