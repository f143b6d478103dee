/**
 * Reverse geocoding: what is at a point, most detailed first, one feature a level: the
 * neighbourhood (a GeoNames section of a city within 2 km), the populated place, its first-level
 * region, the country.
 *
 * - The country is the Natural Earth polygon the point is in (1:50m). Near a coast the simplified
 *   outline may leave the point at sea: then the country of the place found, if it is within 25 km.
 * - The place: GeoNames has points, not outlines, so a place is taken to reach a radius that grows
 *   with its population (1 km + 12 m × √population: 18 km for Paris' 2.1 million, 1.4 km for a
 *   village of 1,000), and the place whose radius the point is least far into (distance over
 *   radius) wins, among those within 50 km. A point in a village near a city gets the village; a
 *   point in the city's suburbs, the city.
 */

import { attributionOf, featureOf, type FeatureCollection } from './features.js';
import { distanceKm } from './forward.js';
import { cellNumber, COUNTRY, ENTRY_KINDS, GRID_COLUMNS, GRID_ROWS, NEIGHBOURHOOD, NO_COUNTRY, NO_REGION, REGION, type PlaceIndex } from './place-index.js';
import type { SearchOptions } from './parameters.js';

const PLACE_REACH_KM = 50;
const NEIGHBOURHOOD_REACH_KM = 2;
const COAST_KM = 25;

/** Whether (x, y) is inside a flat ring [x0, y0, x1, y1, ...] (even-odd rule). */
function insideRing(x: number, y: number, ring: Float64Array): boolean {
  let result = false;
  const n = ring.length / 2;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const xi = ring[2 * i]!;
    const yi = ring[2 * i + 1]!;
    const xj = ring[2 * j]!;
    const yj = ring[2 * j + 1]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) result = !result;
  }
  return result;
}

/** The country whose polygon holds the point (its longitudes may run past ±180), or NO_COUNTRY. */
export function countryAt(index: PlaceIndex, lon: number, lat: number): number {
  for (const shape of index.shapes) {
    const [west, south, east, north] = shape.box;
    if (lat < south || lat > north) continue;
    for (const x of [lon, lon + 360, lon - 360]) {
      if (x < west || x > east) continue;
      if (!insideRing(x, lat, shape.rings[0]!)) continue;
      if (shape.rings.slice(1).some((hole) => insideRing(x, lat, hole))) continue;
      return shape.country;
    }
  }
  return NO_COUNTRY;
}

/** The place (or, with `neighbourhoods`, the neighbourhood) the point is best taken to be in, with its distance. */
export function placeAt(index: PlaceIndex, lon: number, lat: number, neighbourhoods: boolean): { entry: number; km: number } | null {
  const reach = neighbourhoods ? NEIGHBOURHOOD_REACH_KM : PLACE_REACH_KM;
  const rows = Math.ceil(reach / 111) ;
  const row = Math.floor(cellNumber(lon, lat) / GRID_COLUMNS);
  let best: { entry: number; km: number; score: number } | null = null;
  for (let r = Math.max(0, row - rows); r <= Math.min(GRID_ROWS - 1, row + rows); r++) {
    const latitude = Math.min(89, Math.abs(r - 90) + 1);
    const columns = Math.min(GRID_COLUMNS / 2, Math.ceil(reach / (111 * Math.cos((latitude * Math.PI) / 180))) + 1);
    const column = cellNumber(lon, lat) % GRID_COLUMNS;
    for (let c = column - columns; c <= column + columns; c++) {
      const cell = r * GRID_COLUMNS + (((c % GRID_COLUMNS) + GRID_COLUMNS) % GRID_COLUMNS);
      for (let p = index.cellStart[cell]!; p < index.cellStart[cell + 1]!; p++) {
        const entry = index.cellEntry[p]!;
        if ((index.kind[entry] === NEIGHBOURHOOD) !== neighbourhoods) continue;
        const km = distanceKm(lon, lat, index.lon[entry]!, index.lat[entry]!);
        if (km > reach) continue;
        const score = neighbourhoods ? km : km / (1 + 0.012 * Math.sqrt(index.population[entry]!));
        if (!best || score < best.score) best = { entry, km, score };
      }
      if (columns * 2 + 1 >= GRID_COLUMNS) break;
    }
  }
  return best;
}

/** The reverse lookup's response. */
export function reverse(index: PlaceIndex, lon: number, lat: number, options: SearchOptions): FeatureCollection {
  const wants = (kind: number) => !options.kinds || options.kinds.has(ENTRY_KINDS[kind]!);
  const entries: number[] = [];
  const place = placeAt(index, lon, lat, false);
  if (wants(NEIGHBOURHOOD)) {
    const neighbourhood = placeAt(index, lon, lat, true);
    if (neighbourhood) entries.push(neighbourhood.entry);
  }
  if (place && wants(index.kind[place.entry]!)) entries.push(place.entry);
  // GeoNames has no outlines of regions either: the point is in the region of the place it is in.
  const region = place ? index.region[place.entry]! : NO_REGION;
  if (region !== NO_REGION && wants(REGION)) entries.push(index.regions[region]!.entry);
  let country = countryAt(index, lon, lat);
  if (country === NO_COUNTRY && place && place.km <= COAST_KM) country = index.country[place.entry]!;
  if (country !== NO_COUNTRY && wants(COUNTRY)) entries.push(index.countries[country]!.entry);
  const found = entries
    .filter((entry) => !options.countries || (index.country[entry] !== NO_COUNTRY && options.countries.has(index.countries[index.country[entry]!]!.code)))
    .slice(0, options.limit)
    .map((entry) => ({ entry }));
  return {
    type: 'FeatureCollection',
    features: found.map(({ entry }) => featureOf(index, entry, 1, options.languages)),
    query: [lon, lat],
    attribution: attributionOf(index, found),
  };
}
