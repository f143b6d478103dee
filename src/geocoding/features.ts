/**
 * An entry of the index as the API answers it: a GeoJSON Feature in MapTiler's (and Mapbox v5's)
 * shape, named in the first requested language that has a name for it, with its first-level
 * region and its country as context (`Munich, Bavaria, Germany`). A region named after the place
 * (`Canton of Zurich` for Zürich, `Berlin` for Berlin) is left out of `place_name`, which would
 * say the name twice, and kept in `context`.
 */

import { fold } from './normalize.js';
import { COUNTRY, ENTRY_KINDS, NO_COUNTRY, NO_REGION, REGION, type PlaceIndex } from './place-index.js';

export interface ContextItem {
  id: string;
  text: string;
  ref: string;
  country_code: string;
}

export interface GeocodingFeature {
  type: 'Feature';
  id: string;
  text: string;
  place_name: string;
  place_type: string[];
  place_type_name: string[];
  relevance: number;
  center: [number, number];
  bbox?: [number, number, number, number];
  geometry: { type: 'Point'; coordinates: [number, number] };
  properties: {
    ref: string;
    country_code: string | null;
    kind: 'admin_area' | 'place' | 'road' | 'address' | 'poi';
    population?: number;
    feature_code?: string;
    categories?: string[];
    osm_tag?: string;
    map?: string;
    accuracy?: 'interpolated';
  };
  /** An address's house number (its `text` is the street). */
  address?: string;
  context: ContextItem[];
  matching_text?: string;
  matching_place_name?: string;
}

export interface FeatureCollection {
  type: 'FeatureCollection';
  features: GeocodingFeature[];
  query: (string | number)[];
  attribution: string;
}

const TYPE_NAMES: Record<string, string> = { country: 'Country', region: 'Region', municipality: 'Municipality', locality: 'Locality', neighbourhood: 'Neighbourhood' };

export const GEONAMES = '<a href="https://www.geonames.org/" target="_blank">&copy; GeoNames</a>';
export const NATURAL_EARTH = '<a href="https://www.naturalearthdata.com/" target="_blank">Natural Earth</a>';
export const OPENSTREETMAP = '<a href="https://www.openstreetmap.org/copyright" target="_blank">&copy; OpenStreetMap contributors</a>';

/** The sources of the features' data, for `attribution`: GeoNames for places, Natural Earth for countries' shapes. */
export function attributionOf(index: PlaceIndex, features: readonly { entry: number }[]): string {
  const places = features.length === 0 || features.some(({ entry }) => index.kind[entry] !== COUNTRY);
  const countries = features.length === 0 || features.some(({ entry }) => index.kind[entry] === COUNTRY || index.country[entry] !== NO_COUNTRY);
  return [places ? GEONAMES : null, countries ? NATURAL_EARTH : null].filter((part) => part !== null).join(' ');
}

export function countryName(index: PlaceIndex, country: number, languages: readonly string[]): string {
  const display = index.countries[country]!.display;
  for (const language of languages) if (display[language]) return display[language];
  return display.en ?? index.nameText[index.firstName[index.countries[country]!.entry]!]!;
}

export function regionName(index: PlaceIndex, region: number, languages: readonly string[]): string {
  const display = index.regions[region]!.display;
  for (const language of languages) if (display[language]) return display[language];
  return display['']!;
}

/** The entry's name in the first of `languages` that has one, else its default name. */
export function entryText(index: PlaceIndex, entry: number, languages: readonly string[]): string {
  const kind = index.kind[entry]!;
  if (kind === COUNTRY) return countryName(index, index.country[entry]!, languages);
  if (kind === REGION) return regionName(index, index.region[entry]!, languages);
  const end = entry + 1 < index.kind.length ? index.firstName[entry + 1]! : index.nameEntry.length;
  for (const language of languages) {
    const wanted = index.languages.indexOf(language);
    for (let name = index.firstName[entry]!; name < end && wanted > 0; name++) if (index.nameLanguage[name] === wanted) return index.nameText[name]!;
  }
  return index.nameText[index.firstName[entry]!]!;
}

/** Whether the region's name holds the place's, word for word (`Kanton Zürich` and `Zürich`): then `place_name` names it once. */
function namedAfter(region: string, place: string): boolean {
  return ` ${fold(region)} `.includes(` ${fold(place)} `);
}

/** A first-level region as a context item. */
export function regionContext(index: PlaceIndex, region: number, languages: readonly string[], countryCode: string | null): ContextItem {
  const geonamesId = index.geonamesId[index.regions[region]!.entry]!;
  const code = index.regions[region]!.code;
  return { id: geonamesId ? `region.${geonamesId}` : `region.${code}`, text: regionName(index, region, languages), ref: `iso:${code}`, country_code: countryCode?.toLowerCase() ?? '' };
}

/** The context of a place or a region: its region (a place's), then its country. */
export function contextOf(index: PlaceIndex, entry: number, languages: readonly string[]): ContextItem[] {
  const kind = index.kind[entry]!;
  const country = index.country[entry]!;
  const code = country === NO_COUNTRY ? null : index.countries[country]!.code;
  const context: ContextItem[] = [];
  if (kind === COUNTRY) return context;
  const region = index.region[entry]!;
  if (kind !== REGION && region !== NO_REGION) context.push(regionContext(index, region, languages, code));
  if (code !== null) context.push({ id: `country.${code}`, text: countryName(index, country, languages), ref: `iso:${code}`, country_code: code.toLowerCase() });
  return context;
}

/** `place_name`: the name, then the context's names, without a region named after the place. */
function placeNameOf(text: string, context: readonly ContextItem[]): string {
  return [text, ...context.filter((item) => !(item.id.startsWith('region.') && namedAfter(item.text, text))).map((item) => item.text)].join(', ');
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** `matched`: the name the query matched, when it is not the one shown (`Deutschland` for Germany). */
export function featureOf(index: PlaceIndex, entry: number, relevance: number, languages: readonly string[], matched?: string): GeocodingFeature {
  const kind = ENTRY_KINDS[index.kind[entry]!]!;
  const country = index.country[entry]!;
  const code = country === NO_COUNTRY ? null : index.countries[country]!.code;
  const text = entryText(index, entry, languages);
  const context = contextOf(index, entry, languages);
  const center: [number, number] = [round(index.lon[entry]!), round(index.lat[entry]!)];
  const region = kind === 'region' ? index.regions[index.region[entry]!]! : null;
  const bbox = kind === 'country' ? index.countries[country]!.bbox : region ? region.bbox : null;
  const ref = kind === 'country' ? `iso:${code}` : region ? `iso:${region.code}` : `geonames:${index.geonamesId[entry]}`;
  const id = kind === 'country' ? `country.${code}` : region && !index.geonamesId[entry] ? `region.${region.code}` : `${kind}.${index.geonamesId[entry]}`;
  const feature: GeocodingFeature = {
    type: 'Feature',
    id,
    text,
    place_name: placeNameOf(text, context),
    place_type: [kind],
    place_type_name: [TYPE_NAMES[kind]!],
    relevance: Math.round(relevance * 1000) / 1000,
    center,
    ...(bbox ? { bbox } : {}),
    geometry: { type: 'Point', coordinates: center },
    properties: {
      ref,
      country_code: code === null ? null : code.toLowerCase(),
      kind: kind === 'country' || region ? 'admin_area' : 'place',
      ...(kind === 'country' ? {} : region ? { population: index.population[entry]! } : { population: index.population[entry]!, feature_code: index.featureCodes[index.featureCode[entry]!]! }),
    },
    context,
  };
  if (matched !== undefined && matched !== text) {
    feature.matching_text = matched;
    feature.matching_place_name = placeNameOf(matched, context);
  }
  return feature;
}
