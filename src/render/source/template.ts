/**
 * Tile URL templates as MapLibre expands them: `{z}`, `{x}`, `{y}` (flipped for `scheme: "tms"`),
 * `{quadkey}`, `{prefix}`, `{bbox-epsg-3857}`, `{ratio}` (empty: tiles are drawn at their own
 * resolution), plus `{-y}`, the flipped row whatever the scheme (Leaflet's form). With several
 * templates, tile x/y takes template (x + y) mod count, as MapLibre spreads tiles over servers.
 */

import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type Scheme = 'xyz' | 'tms';

/** Half the circumference of the EPSG:3857 world, in metres. */
const HALF_WORLD = 20037508.342789244;

function quadkey(z: number, x: number, y: number): string {
  let key = '';
  for (let i = z; i > 0; i--) {
    const mask = 1 << (i - 1);
    key += (x & mask ? 1 : 0) + (y & mask ? 2 : 0);
  }
  return key;
}

function bbox3857(z: number, x: number, y: number): string {
  const size = (2 * HALF_WORLD) / 2 ** z;
  const fromBottom = 2 ** z - y - 1;
  return `${-HALF_WORLD + x * size},${-HALF_WORLD + fromBottom * size},${-HALF_WORLD + (x + 1) * size},${-HALF_WORLD + (fromBottom + 1) * size}`;
}

export function expandTemplate(templates: readonly string[], scheme: Scheme, z: number, x: number, y: number): string {
  const flipped = 2 ** z - y - 1;
  return templates[(x + y) % templates.length]!
    .replace(/{prefix}/g, (x % 16).toString(16) + (y % 16).toString(16))
    .replace(/{z}/g, String(z))
    .replace(/{x}/g, String(x))
    .replace(/{y}/g, String(scheme === 'tms' ? flipped : y))
    .replace(/{-y}/g, String(flipped))
    .replace(/{ratio}/g, '')
    .replace(/{quadkey}/g, quadkey(z, x, y))
    .replace(/{bbox-epsg-3857}/g, () => bbox3857(z, x, y));
}

export function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/** Whether the string starts with a URL scheme (`http:`, `file:`, `pmtiles:`…), as opposed to a path. */
export function hasScheme(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(value);
}

/**
 * A template relative to a URL, resolved by hand: `new URL()` would percent-encode the braces
 * of the tokens.
 */
export function resolveUrlTemplate(template: string, base: string): string {
  if (hasScheme(template)) return template;
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(base)?.[0] ?? '';
  if (template.startsWith('//')) return `${base.slice(0, base.indexOf(':') + 1)}${template}`;
  if (template.startsWith('/')) return origin + template;
  const bare = base.split(/[?#]/)[0]!;
  const folder = bare.length > origin.length ? bare.slice(0, bare.lastIndexOf('/') + 1) : `${origin}/`;
  return folder + template;
}

/** A local reference (a path, absolute or relative to baseDir, or a `file:` URL) as a path. */
export function localPath(reference: string, baseDir: string): string {
  return /^file:/i.test(reference) ? fileURLToPath(reference) : path.resolve(baseDir, reference);
}
