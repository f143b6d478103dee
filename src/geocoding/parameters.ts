/**
 * The geocoding request as the API takes it (MapTiler Cloud's Geocoding API, itself Mapbox's v5
 * shape), checked: anything the geocoder cannot honour is a 400 with a message that says what,
 * never a 500 and never a silently ignored value.
 */

import { Type, type Static } from '@sinclair/typebox';
import { keyParameter } from '../keys/gate.js';
import { ApiError } from '../platform/errors.js';
import { defaulted } from '../platform/http/typebox.js';
import { fold } from './normalize.js';
import { ENTRY_KINDS } from './place-index.js';

/** The longest query, in characters (MapTiler documents none; a search box needs far fewer). */
export const MAX_QUERY_LENGTH = 256;
/** At most this many words of a query are searched for. */
export const MAX_QUERY_WORDS = 12;
export const MAX_LANGUAGES = 20;

/**
 * The `types` the API knows: MapTiler's place types, Mapbox v5's `place` (any populated place:
 * municipality, locality, neighbourhood), `street` for `road`, and `region`. The world index holds
 * countries, first-level regions, municipalities (seats of government and towns of 10,000 people
 * or more), localities (smaller populated places) and neighbourhoods; the other types are valid
 * and find nothing yet.
 */
export const PLACE_TYPES = [
  'continental_marine',
  'country',
  'major_landform',
  'region',
  'subregion',
  'county',
  'joint_municipality',
  'joint_submunicipality',
  'municipality',
  'municipal_district',
  'locality',
  'neighbourhood',
  'place',
  'postal_code',
  'address',
  'road',
  'street',
  'poi',
] as const;
const ALIASES: Record<string, readonly string[]> = { place: ['municipality', 'locality', 'neighbourhood'], road: ['street'] };
/** The kinds entries of either index have (the world's, extracts/extract-index.ts's). */
const KINDS: readonly string[] = [...ENTRY_KINDS, 'street', 'address', 'poi'];

/** The query string of a geocoding request, declared once: its type, validation and OpenAPI entry come from it. */
export const geocodingQuerystring = Type.Object({
  key: keyParameter,
  limit: defaulted(Type.Integer({ minimum: 1, maximum: 10, default: 5, description: 'Most features to return' })),
  language: Type.Optional(
    Type.String({
      maxLength: 200,
      description: `ISO 639-1 codes separated by commas (at most ${MAX_LANGUAGES}), the first preferred for names; absent: the Accept-Language header; empty: no preference`,
    }),
  ),
  proximity: Type.Optional(Type.String({ maxLength: 100, description: 'longitude,latitude: places near it rank higher (`ip` is accepted and ignored)' })),
  bbox: Type.Optional(Type.String({ maxLength: 200, description: 'west,south,east,north: only features whose centre is inside (west > east crosses the antimeridian)' })),
  country: Type.Optional(Type.String({ maxLength: 1000, description: 'ISO 3166-1 alpha-2 codes separated by commas: only features in these countries' })),
  types: Type.Optional(Type.String({ maxLength: 1000, description: `Place types separated by commas: ${PLACE_TYPES.join(', ')} (place: any populated place; road: street)` })),
  autocomplete: defaulted(Type.Boolean({ default: true, description: 'The last word is a prefix (zur finds Zürich)' })),
  fuzzyMatch: defaulted(Type.Boolean({ default: true, description: 'Words within one typo (two for words of 8 letters or more) match too' })),
});
/** What the geocoder reads of it: all but the key, which the gate took. */
export type GeocodingQuery = Omit<Static<typeof geocodingQuerystring>, 'key'>;

export interface SearchOptions {
  limit: number;
  /** Requested languages, the first preferred; empty: no preference. */
  languages: string[];
  proximity: [number, number] | null;
  /** [west, south, east, north]; west > east crosses the antimeridian. */
  bbox: [number, number, number, number] | null;
  /** Upper-case ISO 3166-1 alpha-2 codes; null: any country. */
  countries: Set<string> | null;
  /** Entry kinds asked for (`country`, `street`, ...); null: every kind. */
  kinds: Set<string> | null;
  autocomplete: boolean;
  fuzzyMatch: boolean;
}

const NUMBER = '[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)';
const COORDINATES = new RegExp(`^\\s*(${NUMBER})\\s*,\\s*(${NUMBER})\\s*$`);
const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** `lon,lat` when the path is a position (a reverse lookup), else null; out of range is a 400. */
export function parsePosition(text: string, what = 'Coordinates'): [number, number] | null {
  const match = COORDINATES.exec(text);
  if (!match) return null;
  const lon = Number(match[1]);
  const lat = Number(match[2]);
  if (!(lon >= -180 && lon <= 180 && lat >= -90 && lat <= 90)) {
    throw new ApiError(`${what} out of range: longitude must be within -180..180 and latitude within -90..90`);
  }
  return [lon, lat];
}

/** The query's folded words; an empty or over-long query is a 400. */
export function queryWords(text: string): string[] {
  if ([...text].length > MAX_QUERY_LENGTH) throw new ApiError(`Query is too long: at most ${MAX_QUERY_LENGTH} characters`);
  const folded = fold(text);
  if (folded === '') throw new ApiError('Query is empty: give a place name or longitude,latitude');
  return folded.split(' ').slice(0, MAX_QUERY_WORDS);
}

function list(text: string | undefined): string[] {
  return text === undefined ? [] : text.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/**
 * ISO 639-1 codes (`de`, `en`; a region or script after `-` or `_` is dropped), at most
 * MAX_LANGUAGES; a code that is no language is a 400. Absent: the request's `Accept-Language`
 * (its languages in order, unknown ones skipped), as MapTiler does; present but empty: no preference.
 */
export function parseLanguages(text: string | undefined, acceptLanguage: string | undefined): string[] {
  if (text === undefined) {
    const accepted = list(acceptLanguage)
      .map((part) => part.split(';')[0]!.trim().toLowerCase().split(/[-_]/)[0]!)
      .filter((code) => /^[a-z]{2}$/.test(code) && languageNames.of(code) !== code);
    return [...new Set(accepted)].slice(0, MAX_LANGUAGES);
  }
  const codes = list(text);
  if (codes.length > MAX_LANGUAGES) throw new ApiError(`Too many languages: at most ${MAX_LANGUAGES}`);
  return [
    ...new Set(
      codes.map((code) => {
        const language = code.toLowerCase().split(/[-_]/)[0]!;
        if (!/^[a-z]{2}$/.test(language) || languageNames.of(language) === language) {
          throw new ApiError(`Unknown language "${code}": use ISO 639-1 codes such as en, de, fr`);
        }
        return language;
      }),
    ),
  ];
}

function numbers(text: string, count: number, what: string): number[] {
  const values = text.split(',').map((part) => (/^\s*[-+]?(?:\d+(?:\.\d*)?|\.\d+)\s*$/.test(part) ? Number(part) : NaN));
  if (values.length !== count || values.some((value) => !Number.isFinite(value))) throw new ApiError(`Invalid ${what}: give ${count} numbers separated by commas`);
  return values;
}

/** `knownCountry`: whether a code is a country of the index (an unknown one is a 400). */
export function parseOptions(query: GeocodingQuery, acceptLanguage: string | undefined, knownCountry: (code: string) => boolean): SearchOptions {
  let proximity: [number, number] | null = null;
  // `ip` (locate the client by its address) has no data here: no bias, as if absent.
  if (query.proximity !== undefined && query.proximity !== '' && query.proximity !== 'ip') {
    const [lon, lat] = numbers(query.proximity, 2, 'proximity') as [number, number];
    proximity = parsePosition(`${lon},${lat}`, 'Proximity');
  }
  let bbox: [number, number, number, number] | null = null;
  if (query.bbox !== undefined && query.bbox !== '') {
    const [west, south, east, north] = numbers(query.bbox, 4, 'bbox') as [number, number, number, number];
    if (![west, east].every((lon) => lon >= -180 && lon <= 180) || ![south, north].every((lat) => lat >= -90 && lat <= 90) || south > north) {
      throw new ApiError('Invalid bbox: west,south,east,north with longitudes within -180..180, latitudes within -90..90 and south ≤ north');
    }
    bbox = [west, south, east, north];
  }
  let countries: Set<string> | null = null;
  if (query.country !== undefined) {
    const codes = list(query.country);
    for (const code of codes) {
      if (!/^[A-Za-z]{2}$/.test(code) || !knownCountry(code.toUpperCase())) throw new ApiError(`Unknown country "${code}": use ISO 3166-1 alpha-2 codes such as ch, de`);
    }
    if (codes.length > 0) countries = new Set(codes.map((code) => code.toUpperCase()));
  }
  let kinds: Set<string> | null = null;
  if (query.types !== undefined) {
    const types = list(query.types);
    kinds = new Set();
    for (const type of types) {
      if (!(PLACE_TYPES as readonly string[]).includes(type)) throw new ApiError(`Unknown type "${type}": use ${PLACE_TYPES.join(', ')}`);
      for (const kind of ALIASES[type] ?? KINDS.filter((k) => k === type)) kinds.add(kind);
    }
    if (types.length === 0) kinds = null;
  }
  return {
    limit: query.limit,
    languages: parseLanguages(query.language, acceptLanguage),
    proximity,
    bbox,
    countries,
    kinds,
    autocomplete: query.autocomplete,
    fuzzyMatch: query.fuzzyMatch,
  };
}
