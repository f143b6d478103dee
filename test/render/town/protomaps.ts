/**
 * The town in the Protomaps basemap v4 schema (https://docs.protomaps.com/basemaps/layers), as its
 * Planetiler profile would make it from the same OSM data: layers earth, landcover, landuse, water,
 * roads, buildings, places, pois and boundaries, with `kind`/`kind_detail`, `min_zoom`, `name`
 * (and `name:en` where the town has one), `ref`/`shield_text`, `oneway`, and `is_bridge`,
 * `is_tunnel`, `is_link` present only when true (the basemap styles test them with `has`).
 *
 * landcover is Natural Earth-like land cover that the real tiles carry below zoom 8 only; the
 * archive starts at zoom 10, so a coarse copy is in its first zoom alone (the light style fades the
 * layer out by zoom 7, so it must draw nothing there).
 */

import type { Geometry, Polygon } from 'geojson';
import { centroid, type Properties, type SchemaFeature } from './schema.js';
import { EXTENT_METRES, lonLat, type Tags, type TownFeature } from './town.js';

const FIRST_ZOOM = 10;

function names(tags: Tags): Properties {
  if (typeof tags.name !== 'string') return {};
  return { name: tags.name, ...(typeof tags['name:en'] === 'string' ? { 'name:en': tags['name:en'] } : {}) };
}

/** Highway values to kind, kind_detail and min_zoom; links are their road's kind with is_link. */
const HIGHWAYS: Record<string, [kind: string, minZoom: number]> = {
  motorway: ['highway', 3],
  motorway_link: ['highway', 11],
  trunk: ['major_road', 6],
  trunk_link: ['major_road', 11],
  primary: ['major_road', 7],
  secondary: ['major_road', 9],
  tertiary: ['major_road', 9],
  residential: ['minor_road', 12],
  unclassified: ['minor_road', 12],
  service: ['minor_road', 13],
  track: ['path', 13],
  footway: ['path', 14],
  cycleway: ['path', 14],
  path: ['path', 14],
};

const POIS: [key: string, value: string, kind: string, minZoom: number][] = [
  ['railway', 'station', 'station', 12],
  ['amenity', 'hospital', 'hospital', 13],
  ['amenity', 'school', 'school', 14],
  ['amenity', 'townhall', 'townhall', 14],
  ['tourism', 'museum', 'museum', 14],
  ['leisure', 'park', 'park', 13],
  ['amenity', 'place_of_worship', 'place_of_worship', 15],
  ['amenity', 'library', 'library', 15],
  ['amenity', 'post_office', 'post_office', 15],
  ['shop', 'supermarket', 'supermarket', 15],
  ['amenity', 'restaurant', 'restaurant', 16],
  ['amenity', 'cafe', 'cafe', 16],
  ['amenity', 'bar', 'bar', 16],
  ['amenity', 'fast_food', 'fast_food', 16],
  ['amenity', 'bank', 'bank', 16],
  ['amenity', 'pharmacy', 'pharmacy', 16],
  ['shop', 'bakery', 'bakery', 16],
  ['shop', 'books', 'books', 16],
  ['amenity', 'fuel', 'fuel', 16],
  ['highway', 'bus_stop', 'bus_stop', 16],
  ['leisure', 'marina', 'marina', 15],
];

const PLACES: Record<string, [kind: string, minZoom: number]> = {
  town: ['locality', 8],
  village: ['locality', 10],
  hamlet: ['locality', 12],
  suburb: ['macrohood', 11],
  neighbourhood: ['neighbourhood', 13],
};

/** Tilezen's population_rank: how many of these thresholds the population reaches. */
const POPULATION_STEPS = [1, 200, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 5_000_000, 10_000_000];

function populationRank(population: number): number {
  return POPULATION_STEPS.filter((step) => population >= step).length;
}

const BOUNDARY_KINDS: Record<number, string> = { 2: 'country', 4: 'region', 6: 'county', 8: 'locality' };

function flags(tags: Tags, highway: string): Properties {
  return {
    ...(tags.bridge === 'yes' ? { is_bridge: true } : {}),
    ...(tags.tunnel === 'yes' ? { is_tunnel: true } : {}),
    ...(highway.endsWith('_link') ? { is_link: true } : {}),
  };
}

function square(metres: number): Polygon {
  const corners: [number, number][] = [[-metres, -metres], [metres, -metres], [metres, metres], [-metres, metres], [-metres, -metres]];
  return { type: 'Polygon', coordinates: [corners.map(lonLat)] };
}

export function protomaps(town: readonly TownFeature[]): SchemaFeature[] {
  const out: SchemaFeature[] = [];
  const add = (layer: string, minzoom: number, geometry: Geometry, properties: Properties, id?: string | number, maxzoom?: number) =>
    out.push({
      layer,
      minzoom: Math.max(minzoom, FIRST_ZOOM),
      ...(maxzoom === undefined ? {} : { maxzoom }),
      feature: { type: 'Feature', ...(id === undefined ? {} : { id }), geometry, properties },
    });

  // Land reaching past the town on every side, so that tiles around its edges have ground.
  add('earth', 0, square(EXTENT_METRES + 1400), { kind: 'earth', min_zoom: 0 });
  add('landcover', 0, square(EXTENT_METRES), { kind: 'farmland' }, undefined, FIRST_ZOOM);
  add('landcover', 0, square(900), { kind: 'urban_area' }, undefined, FIRST_ZOOM);

  for (const { id, geometry, properties: tags } of town) {
    if (tags.natural === 'water') {
      const kind = tags.water === 'pond' ? 'water' : String(tags.water);
      const minZoom = kind === 'lake' ? 6 : kind === 'river' ? 12 : 13;
      add('water', minZoom, geometry, { kind, min_zoom: minZoom, ...names(tags), ...(tags.intermittent === 'yes' ? { intermittent: true } : {}) }, id);
    } else if (typeof tags.waterway === 'string') {
      const minZoom = { river: 9, stream: 13, ditch: 14 }[tags.waterway] ?? 14;
      add('water', minZoom, geometry, { kind: tags.waterway, min_zoom: minZoom, ...names(tags), ...(tags.tunnel === undefined ? {} : { is_tunnel: true }) }, id);
    } else if (geometry.type === 'Polygon' && (typeof tags.landuse === 'string' || tags.natural === 'wood' || tags.leisure === 'park' || typeof tags.amenity === 'string')) {
      const kind = String(tags.landuse ?? tags.leisure ?? tags.amenity ?? tags.natural);
      const minZoom = kind === 'farmland' || kind === 'forest' || kind === 'residential' || kind === 'industrial' ? 10 : 12;
      add('landuse', minZoom, geometry, { kind, min_zoom: minZoom, ...names(tags) }, id);
    } else if (typeof tags.aeroway === 'string') {
      if (geometry.type === 'Polygon') add('landuse', 11, geometry, { kind: tags.aeroway, min_zoom: 11, ...names(tags) }, id);
      else add('roads', 11, geometry, { kind: 'other', kind_detail: tags.aeroway, min_zoom: 11, ...(typeof tags.ref === 'string' ? { ref: tags.ref } : {}) }, id);
    } else if (tags.man_made === 'pier') {
      if (geometry.type === 'Polygon') add('landuse', 13, geometry, { kind: 'pier', min_zoom: 13 }, id);
      else add('roads', 13, geometry, { kind: 'path', kind_detail: 'pier', min_zoom: 13 }, id);
    } else if (typeof tags.highway === 'string' && geometry.type === 'LineString') {
      const [kind, minZoom] = HIGHWAYS[tags.highway] ?? ['minor_road', 13];
      const ref: Properties = typeof tags.ref === 'string' ? { ref: tags.ref, shield_text: tags.ref.replace(/^A /, 'A') } : {};
      add('roads', minZoom, geometry, {
        kind,
        kind_detail: tags.highway,
        min_zoom: minZoom,
        ...names(tags),
        ...ref,
        ...(tags.oneway === 'yes' ? { oneway: 'yes' } : {}),
        ...flags(tags, tags.highway),
        ...(typeof tags.layer === 'number' ? { level: tags.layer } : {}),
      }, id);
    } else if (typeof tags.railway === 'string' && geometry.type === 'LineString') {
      const minZoom = tags.service === undefined ? 11 : 14;
      add('roads', minZoom, geometry, { kind: 'rail', kind_detail: tags.railway, min_zoom: minZoom, ...names(tags), ...flags(tags, tags.railway) }, id);
    } else if (typeof tags.building === 'string') {
      const height = typeof tags.height === 'number' ? tags.height : Number(tags['building:levels'] ?? 1) * 3;
      add('buildings', 13, geometry, { kind: 'building', height, min_zoom: 13 }, id);
      if (typeof tags['addr:housenumber'] === 'string') {
        add('buildings', 16, { type: 'Point', coordinates: centroid(geometry) }, { kind: 'address', addr_housenumber: tags['addr:housenumber'], min_zoom: 16 }, id);
      }
    } else if (typeof tags.place === 'string') {
      const [kind, minZoom] = PLACES[tags.place] ?? ['neighbourhood', 14];
      const population: Properties = typeof tags.population === 'number' ? { population: tags.population, population_rank: populationRank(tags.population) } : {};
      add('places', minZoom, geometry, { kind, kind_detail: tags.place, min_zoom: minZoom, ...names(tags), ...population }, id);
    } else if (tags.boundary === 'administrative') {
      const level = Number(tags.admin_level);
      add('boundaries', 0, geometry, { kind: BOUNDARY_KINDS[level] ?? 'locality', kind_detail: level, min_zoom: 0 }, id);
    }
    if (geometry.type === 'Point') {
      const poi = POIS.find(([key, value]) => tags[key] === value);
      if (poi) add('pois', poi[3], geometry, { kind: poi[2], min_zoom: poi[3], ...names(tags) }, id);
    }
  }
  return out;
}
