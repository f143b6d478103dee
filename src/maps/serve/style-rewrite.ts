/**
 * A map's style as a MapLibre client gets it from `/maps/{mapId}/style.json`: every reference to
 * data rewritten to Meridian's own URLs (see links.ts), so the client needs nothing but Meridian
 * and its key.
 *
 * - vector, raster and raster-dem sources: `url` is the source's TileJSON at Meridian (its tiles,
 *   zoom range, bounds, attribution and vector layers, settled from the style and the archive);
 *   `tiles` and `scheme` go (Meridian serves xyz); the style's other fields stay, as they override
 *   TileJSON in MapLibre as they do in Meridian.
 * - geojson sources: inline data as it is; data from a local file at Meridian's URL for it; an
 *   http(s) URL as it is (the style's author chose it).
 * - glyphs: always Meridian's `/fonts`, the fonts its renderer draws with, even when the style had
 *   no glyphs (a client needs them for any text).
 * - sprite: Meridian's `/maps/{mapId}/sprite`, one per entry of the array form, which stays an array.
 * - center and zoom: where the map opens (extent.ts), in place of the style author's.
 */

import type { SourceSpecification, StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { MapLinks } from './links.js';
import type { LoadedMap } from '../registry.js';
import { GeoJsonSource } from '../../render/source/geojson.js';

function rewriteSource(id: string, spec: SourceSpecification, map: LoadedMap, links: MapLinks): SourceSpecification {
  switch (spec.type) {
    case 'vector':
    case 'raster':
    case 'raster-dem': {
      const kept: Record<string, unknown> = { ...spec };
      for (const field of ['tiles', 'url', 'scheme']) delete kept[field];
      return { ...kept, url: links.tileJson(id) } as SourceSpecification;
    }
    case 'geojson': {
      if (typeof spec.data !== 'string') return spec;
      const source = map.sources.get(id);
      return source instanceof GeoJsonSource && source.dataFile !== undefined ? { ...spec, data: links.geojson(id) } : spec;
    }
    default:
      return spec;
  }
}

/** `style` (the map's, or one derived from it, e.g. in another language) with Meridian's URLs. */
export function rewriteStyle(map: LoadedMap, style: StyleSpecification, links: MapLinks): StyleSpecification {
  const sources = Object.fromEntries(Object.entries(style.sources).map(([id, spec]) => [id, rewriteSource(id, spec, map, links)]));
  const sprite =
    style.sprite === undefined
      ? {}
      : { sprite: typeof style.sprite === 'string' ? links.sprite(undefined) : style.sprite.map(({ id }) => ({ id, url: links.sprite(id) })) };
  const [lon, lat, zoom] = map.center;
  return { ...style, center: [lon, lat], zoom, sources, glyphs: links.glyphs, ...sprite };
}
