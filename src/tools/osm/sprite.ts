/**
 * The sprite of the street styles (`styles/*.json`): exactly the images their `icon-image`
 * properties can name, so that a style and its sprite cannot drift apart. Images come from
 * @mapbox/maki's SVGs, stored as signed distance fields so that a style colours them by category
 * (`icon-color`) and rings them with a halo; the route shields, which maki has no shape for, are
 * drawn here as stretchable boxes for `icon-text-fit`.
 *
 * `icon-image` must name its images statically: a string, or `match`, `case`, `step`, `coalesce`
 * and `image` over strings. A computed name (`["get", "class"]`, `{class}` tokens) is refused, since
 * the sprite could not know which images it needs.
 */

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { writeSprite, type BuiltSprite, type SpriteImage } from '../sprite/build.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The committed styles, in the sources (tsc does not copy JSON into dist). */
export const stylesDir = path.join(root, 'src/tools/osm/styles');
export const STYLES = ['streets', 'light', 'dark'] as const;
export type StreetStyle = (typeof STYLES)[number];

/** The SVG icons of npm @mapbox/maki. */
export const MAKI_ICONS = path.join(path.dirname(createRequire(import.meta.url).resolve('@mapbox/maki/package.json')), 'icons');

/**
 * Route shields: a rounded box, 20 × 16 CSS pixels, whose middle stretches around the ref (the
 * corners stay round) and whose content box leaves 3 pixels of border and margin.
 */
function shield(fill: string, stroke: string): Omit<SpriteImage, 'name'> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="20" height="16" viewBox="0 0 20 16"><rect x="0.75" y="0.75" width="18.5" height="14.5" rx="3" fill="${fill}" stroke="${stroke}" stroke-width="1.5"/></svg>`;
  return { svg: Buffer.from(svg), options: { stretchX: [[4, 16]], stretchY: [[4, 12]], content: [3, 3, 17, 13] } };
}

const OWN_IMAGES: Record<string, Omit<SpriteImage, 'name'>> = {
  shield: shield('#ffffff', '#b9b1a4'),
  'shield-motorway': shield('#d8763a', '#b35b25'),
};

export async function readStreetStyle(name: StreetStyle): Promise<StyleSpecification> {
  return JSON.parse(await readFile(path.join(stylesDir, `${name}.json`), 'utf8')) as StyleSpecification;
}

/** The image names an `icon-image` value can produce. */
function imageNames(value: unknown, layer: string): string[] {
  if (typeof value === 'string') {
    if (value.includes('{')) throw new Error(`layer "${layer}": icon-image "${value}" has tokens; name the images`);
    return [value];
  }
  if (!Array.isArray(value)) throw new Error(`layer "${layer}": icon-image ${JSON.stringify(value)} is not a name or an expression`);
  const [op, ...args] = value as [unknown, ...unknown[]];
  const each = (values: unknown[]) => values.flatMap((item) => imageNames(item, layer));
  // Outputs sit at odd positions after the input (match) or from the start (case), the fallback last.
  const pairedOutputs = (rest: unknown[]) => [...rest.filter((_, i) => i % 2 === 1), rest[rest.length - 1]];
  switch (op) {
    case 'literal':
    case 'image':
      return imageNames(args[0], layer);
    case 'coalesce':
      return each(args);
    case 'match':
      return each(pairedOutputs(args.slice(1)));
    case 'case':
      return each(pairedOutputs(args));
    case 'step':
      return each(args.slice(1).filter((_, i) => i % 2 === 0));
    default:
      throw new Error(`layer "${layer}": icon-image computes its name with "${String(op)}"; name the images`);
  }
}

/** Every image the style's layers can ask for, sorted. */
export function styleImages(style: StyleSpecification): string[] {
  const names = new Set<string>();
  for (const layer of style.layers) {
    if (layer.type !== 'symbol' || layer.layout?.['icon-image'] === undefined) continue;
    for (const name of imageNames(layer.layout['icon-image'], layer.id)) names.add(name);
  }
  return [...names].sort();
}

/** Writes `<outBase>.json/.png` and `@2x` with every image the street styles use. */
export async function buildStreetSprite(outBase: string): Promise<BuiltSprite> {
  const styles = await Promise.all(STYLES.map(readStreetStyle));
  const names = [...new Set(styles.flatMap(styleImages))].sort();
  const images = await Promise.all(
    names.map(async (name): Promise<SpriteImage> => {
      const own = OWN_IMAGES[name];
      if (own) return { name, ...own };
      let svg: Buffer;
      try {
        svg = await readFile(path.join(MAKI_ICONS, `${name}.svg`));
      } catch {
        throw new Error(`the street styles use the image "${name}", which is neither a maki icon nor one of ${Object.keys(OWN_IMAGES).join(', ')}`);
      }
      return { name, svg, options: { sdf: true } };
    }),
  );
  return writeSprite(images, outBase);
}
