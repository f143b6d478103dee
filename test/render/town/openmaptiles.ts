/**
 * The town in the OpenMapTiles v3 schema (https://openmaptiles.org/schema), as its imposm mapping
 * and layer SQL would make it from the same OSM data: layers water, water_name, waterway,
 * landcover, landuse, aeroway, aerodrome_label, transportation, transportation_name, building,
 * housenumber, poi, place and boundary, with the schema's class/subclass values, `brunnel`, `oneway`, `ramp`, `render_height`,
 * `rank`, `admin_level` and the name fields (`name`, `name_en`, `name_de`, `name:latin`,
 * `name_int`, plus `name:<lang>` where the town has one). The first zoom of each kind of feature
 * follows OpenMapTiles' zoom rules, cut off at the archive's first zoom.
 */

import type { Geometry } from 'geojson';
import { centroid, type Properties, type SchemaFeature } from './schema.js';
import type { Tags, TownFeature } from './town.js';

/** The name fields OpenMapTiles writes for a named feature (each language falls back to `name`). */
function names(tags: Tags): Properties {
  const name = tags.name;
  if (typeof name !== 'string') return {};
  const english = typeof tags['name:en'] === 'string' ? tags['name:en'] : undefined;
  return {
    name,
    name_en: english ?? name,
    name_de: name,
    'name:latin': name,
    name_int: english ?? name,
    ...(english === undefined ? {} : { 'name:en': english }),
  };
}

/** Highway values to transportation class, first zoom, and whether a link (ramp). */
const HIGHWAYS: Record<string, [cls: string, minzoom: number, ramp?: true]> = {
  motorway: ['motorway', 4],
  motorway_link: ['motorway', 10, true],
  trunk: ['trunk', 5],
  trunk_link: ['trunk', 10, true],
  primary: ['primary', 7],
  secondary: ['secondary', 9],
  tertiary: ['tertiary', 11],
  residential: ['minor', 13],
  unclassified: ['minor', 13],
  service: ['service', 13],
  track: ['track', 14],
  footway: ['path', 14],
  cycleway: ['path', 14],
  path: ['path', 14],
};

const RAILWAYS: Record<string, [cls: string, minzoom: number]> = { rail: ['rail', 9], light_rail: ['transit', 11] };

/** POI class and subclass by OSM tag, in order of importance (the first ones rank first). */
const POIS: [key: string, value: string, cls: string][] = [
  ['railway', 'station', 'railway'],
  ['amenity', 'hospital', 'hospital'],
  ['amenity', 'townhall', 'town_hall'],
  ['amenity', 'school', 'school'],
  ['tourism', 'museum', 'museum'],
  ['amenity', 'place_of_worship', 'place_of_worship'],
  ['leisure', 'park', 'park'],
  ['amenity', 'library', 'library'],
  ['amenity', 'post_office', 'post'],
  ['amenity', 'bank', 'bank'],
  ['amenity', 'pharmacy', 'pharmacy'],
  ['shop', 'supermarket', 'grocery'],
  ['amenity', 'restaurant', 'restaurant'],
  ['amenity', 'cafe', 'cafe'],
  ['amenity', 'bar', 'bar'],
  ['amenity', 'fast_food', 'fast_food'],
  ['shop', 'bakery', 'bakery'],
  ['shop', 'books', 'shop'],
  ['amenity', 'fuel', 'fuel'],
  ['highway', 'bus_stop', 'bus'],
  ['leisure', 'marina', 'harbor'],
];

/** POI ranks are counted within cells of this many degrees (OpenMapTiles ranks per grid cell). */
const POI_RANK_CELL = 0.005;

const PLACES: Record<string, [rank: number, minzoom: number]> = {
  town: [10, 10],
  village: [12, 10],
  suburb: [11, 11],
  hamlet: [14, 13],
  neighbourhood: [15, 13],
};

const ADMIN_LEVEL_NEIGHBOURS: Record<number, Properties> = { 2: { adm0_l: 'CH', adm0_r: 'DE' } };

/** OpenMapTiles' render_height: the height tag, else 3.66 m a storey, else 5 m. */
function renderHeight(tags: Tags): number {
  if (typeof tags.height === 'number') return tags.height;
  if (typeof tags['building:levels'] === 'number') return Math.round(tags['building:levels'] * 3.66);
  return 5;
}

function brunnel(tags: Tags): Properties {
  if (tags.bridge === 'yes') return { brunnel: 'bridge' };
  if (tags.tunnel === 'yes' || tags.tunnel === 'culvert') return { brunnel: 'tunnel' };
  return {};
}

function layerField(tags: Tags): Properties {
  return typeof tags.layer === 'number' ? { layer: tags.layer } : {};
}

export function openMapTiles(town: readonly TownFeature[]): SchemaFeature[] {
  const out: SchemaFeature[] = [];
  const add = (layer: string, minzoom: number, geometry: Geometry, properties: Properties, id?: string | number) =>
    out.push({ layer, minzoom, feature: { type: 'Feature', ...(id === undefined ? {} : { id }), geometry, properties } });
  const pois: { tags: Tags; geometry: Geometry; id: string | number | undefined; cls: string; importance: number }[] = [];

  for (const { id, geometry, properties: tags } of town) {
    const intermittent = tags.intermittent === 'yes' ? 1 : 0;
    const area = geometry.type === 'Polygon';
    if (area && tags.natural === 'water') {
      const cls = tags.water === 'pond' ? 'pond' : tags.water === 'river' ? 'river' : 'lake';
      add('water', cls === 'lake' ? 10 : cls === 'river' ? 12 : 13, geometry, { class: cls, intermittent }, id);
      if (cls === 'lake' && tags.name !== undefined) {
        add('water_name', 10, { type: 'Point', coordinates: centroid(geometry) }, { class: 'lake', intermittent, ...names(tags) }, id);
      }
    } else if (typeof tags.waterway === 'string') {
      const minzoom = { river: 10, stream: 13, ditch: 14 }[tags.waterway] ?? 14;
      add('waterway', minzoom, geometry, { class: tags.waterway, intermittent, ...brunnel(tags), ...names(tags) }, id);
    } else if (area && (tags.landuse === 'forest' || tags.natural === 'wood')) {
      add('landcover', 10, geometry, { class: 'wood', subclass: tags.landuse === 'forest' ? 'forest' : 'wood' }, id);
    } else if (area && (tags.landuse === 'grass' || tags.landuse === 'meadow' || tags.leisure === 'park')) {
      add('landcover', 10, geometry, { class: 'grass', subclass: tags.leisure === 'park' ? 'park' : String(tags.landuse) }, id);
    } else if (area && (tags.landuse === 'farmland' || tags.landuse === 'allotments')) {
      add('landcover', 10, geometry, { class: 'farmland', subclass: String(tags.landuse) }, id);
    } else if (area && (tags.landuse === 'residential' || tags.landuse === 'industrial')) {
      add('landuse', 10, geometry, { class: tags.landuse }, id);
    } else if (area && (tags.landuse === 'cemetery' || tags.amenity === 'school' || tags.amenity === 'hospital')) {
      add('landuse', 12, geometry, { class: String(tags.landuse ?? tags.amenity) }, id);
    } else if (typeof tags.aeroway === 'string') {
      add('aeroway', 10, geometry, { class: tags.aeroway, ...(typeof tags.ref === 'string' ? { ref: tags.ref } : {}) }, id);
      if (tags.aeroway === 'aerodrome') {
        add('aerodrome_label', 10, { type: 'Point', coordinates: centroid(geometry) }, { ...names(tags), class: 'private', icao: String(tags.icao) }, id);
      }
    } else if (tags.man_made === 'pier') {
      add('transportation', 13, geometry, { class: 'pier' }, id);
    } else if (typeof tags.highway === 'string' && geometry.type === 'LineString') {
      const [cls, minzoom, ramp] = HIGHWAYS[tags.highway] ?? ['minor', 13];
      const subclass: Properties = cls === 'path' ? { subclass: tags.highway } : {};
      const service: Properties = typeof tags.service === 'string' ? { service: tags.service } : {};
      add('transportation', minzoom, geometry, {
        class: cls,
        ...subclass,
        ...(tags.oneway === 'yes' ? { oneway: 1 } : {}),
        ...(ramp ? { ramp: 1 } : {}),
        ...brunnel(tags),
        ...layerField(tags),
        ...service,
      }, id);
      if (tags.name !== undefined || tags.ref !== undefined) {
        const ref: Properties = typeof tags.ref === 'string' ? { ref: tags.ref, ref_length: tags.ref.length, network: cls === 'motorway' ? 'ch-national' : 'road' } : {};
        add('transportation_name', Math.max(minzoom, 12), geometry, { ...names(tags), ...ref, class: cls, ...subclass, ...brunnel(tags), ...layerField(tags) }, id);
      }
    } else if (typeof tags.railway === 'string' && geometry.type === 'LineString') {
      const [cls, minzoom] = RAILWAYS[tags.railway] ?? ['rail', 13];
      const service: Properties = typeof tags.service === 'string' ? { service: tags.service } : {};
      add('transportation', tags.service === undefined ? minzoom : 14, geometry, { class: cls, subclass: tags.railway, ...brunnel(tags), ...layerField(tags), ...service }, id);
    } else if (typeof tags.building === 'string') {
      add('building', 13, geometry, { render_height: renderHeight(tags), render_min_height: 0 }, id);
      if (typeof tags['addr:housenumber'] === 'string') {
        add('housenumber', 14, { type: 'Point', coordinates: centroid(geometry) }, { housenumber: tags['addr:housenumber'] }, id);
      }
    } else if (typeof tags.place === 'string') {
      const [rank, minzoom] = PLACES[tags.place] ?? [16, 14];
      add('place', minzoom, geometry, { ...names(tags), class: tags.place, rank }, id);
    } else if (tags.boundary === 'administrative') {
      const level = Number(tags.admin_level);
      add('boundary', 10, geometry, { admin_level: level, disputed: 0, maritime: 0, ...(ADMIN_LEVEL_NEIGHBOURS[level] ?? {}) }, id);
    }
    if (geometry.type === 'Point') {
      const importance = POIS.findIndex(([key, value]) => tags[key] === value);
      if (importance >= 0) pois.push({ tags, geometry, id, cls: POIS[importance]![2], importance });
    }
  }

  // rank: 1 for the most important POI of its cell, 2 for the next, ...
  const cells = new Map<string, typeof pois>();
  for (const poi of pois) {
    const [lon, lat] = centroid(poi.geometry);
    const cell = `${Math.floor(lon / POI_RANK_CELL)},${Math.floor(lat / POI_RANK_CELL)}`;
    cells.set(cell, [...(cells.get(cell) ?? []), poi]);
  }
  for (const members of cells.values()) {
    members.sort((a, b) => a.importance - b.importance || String(a.tags.name).localeCompare(String(b.tags.name)));
    members.forEach(({ tags, geometry, id, cls, importance }, k) => {
      const subclass = POIS[importance]![1];
      add('poi', importance < 4 ? 12 : 14, geometry, { ...names(tags), class: cls, subclass, rank: k + 1 }, id);
    });
  }
  return out;
}
