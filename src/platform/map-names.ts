/**
 * What names a map and its data, shared by the maps area (definitions, registry, configuration) and the
 * build-time tools that publish maps (tools/osm), which sit below the areas and may not import them.
 */

export const MAP_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The tile schemas Meridian has styles for: OpenMapTiles (`maps import`, and archives `maps add`
 * recognises as such), Protomaps basemap v4, and raster tiles.
 */
export const SCHEMAS = ['openmaptiles', 'protomaps', 'raster'] as const;
export type Schema = (typeof SCHEMAS)[number];
