/**
 * A feature of a vector-tile schema, as a schema profile makes it from a town feature: the layer it
 * goes in, the zooms whose tiles hold it, and its properties in that schema.
 */

import type { Feature, Geometry } from 'geojson';

export type Properties = Record<string, string | number | boolean>;

export interface SchemaFeature {
  layer: string;
  /** The first zoom whose tiles hold the feature. */
  minzoom: number;
  /** The last zoom whose tiles hold it; the archive's last when not given. */
  maxzoom?: number;
  feature: Feature<Geometry, Properties>;
}

/** The mean of a polygon's outer ring or a line's points: where a label point of an area goes. */
export function centroid(geometry: Geometry): [number, number] {
  const points =
    geometry.type === 'Polygon' ? geometry.coordinates[0]!.slice(1)
    : geometry.type === 'LineString' ? geometry.coordinates
    : geometry.type === 'Point' ? [geometry.coordinates]
    : [];
  if (points.length === 0) throw new Error(`no centroid for a ${geometry.type}`);
  const mean = (k: 0 | 1) => Math.round((points.reduce((sum, p) => sum + p[k]!, 0) / points.length) * 1e7) / 1e7;
  return [mean(0), mean(1)];
}
