/**
 * An entry of the index as the API answers it: a GeoJSON Feature in MapTiler's (and Mapbox v5's)
 * shape, named in the first requested language that has a name for it, with its country as context.
 */

import { COUNTRY, ENTRY_KINDS, NO_COUNTRY, type PlaceIndex } from './place-index.js';

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

const TYPE_NAMES: Record<string, string> = { country: 'Country', municipality: 'Municipality', locality: 'Locality', neighbourhood: 'Neighbourhood' };

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

/** The entry's name in the first of `languages` that has one, else its default name. */
export function entryText(index: PlaceIndex, entry: number, languages: readonly string[]): string {
  return index.kind[entry] === COUNTRY ? countryName(index, index.country[entry]!, languages) : index.nameText[index.firstName[entry]!]!;
}

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** `matched`: the name the query matched, when it is not the one shown (`Deutschland` for Germany). */
export function featureOf(index: PlaceIndex, entry: number, relevance: number, languages: readonly string[], matched?: string): GeocodingFeature {
  const kind = ENTRY_KINDS[index.kind[entry]!]!;
  const country = index.country[entry]!;
  const code = country === NO_COUNTRY ? null : index.countries[country]!.code;
  const text = entryText(index, entry, languages);
  const context: ContextItem[] = [];
  if (kind !== 'country' && country !== NO_COUNTRY) {
    context.push({ id: `country.${code}`, text: countryName(index, country, languages), ref: `iso:${code}`, country_code: code!.toLowerCase() });
  }
  const placeName = [text, ...context.map((item) => item.text)].join(', ');
  const center: [number, number] = [round(index.lon[entry]!), round(index.lat[entry]!)];
  const bbox = kind === 'country' ? index.countries[country]!.bbox : null;
  const ref = kind === 'country' ? `iso:${code}` : `geonames:${index.geonamesId[entry]}`;
  const feature: GeocodingFeature = {
    type: 'Feature',
    id: kind === 'country' ? `country.${code}` : `${kind}.${index.geonamesId[entry]}`,
    text,
    place_name: placeName,
    place_type: [kind],
    place_type_name: [TYPE_NAMES[kind]!],
    relevance: Math.round(relevance * 1000) / 1000,
    center,
    ...(bbox ? { bbox } : {}),
    geometry: { type: 'Point', coordinates: center },
    properties: {
      ref,
      country_code: code === null ? null : code.toLowerCase(),
      kind: kind === 'country' ? 'admin_area' : 'place',
      ...(kind === 'country' ? {} : { population: index.population[entry]!, feature_code: index.featureCodes[index.featureCode[entry]!]! }),
    },
    context,
  };
  if (matched !== undefined && matched !== text) {
    feature.matching_text = matched;
    feature.matching_place_name = [matched, ...context.map((item) => item.text)].join(', ');
  }
  return feature;
}
