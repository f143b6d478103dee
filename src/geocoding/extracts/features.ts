/**
 * An extract's entry as the API answers it, in the shape of features.ts: a street (`place_type`
 * street, `properties.kind` road, with its `bbox`), an address (`text` its street, `address` its
 * number, `place_name` the number before the street where the country writes it so), a point of
 * interest (`properties.categories`: its class) or a place; with its place, region and country as context,
 * and the map it comes from.
 */

import { ADDRESS, EXTRACT_KINDS, POI, STREET, type ExtractIndex } from './extract-index.js';
import { countryName, regionContext, type ContextItem, type GeocodingFeature } from '../features.js';
import { NO_REGION, type PlaceIndex } from '../place-index.js';
import { placeAt } from '../reverse.js';

/** Countries whose addresses put the number before the street (`1612 7th Street`); elsewhere after it (`Haydnstraße 5`). */
const NUMBER_FIRST = new Set(['US', 'CA', 'GB', 'IE', 'AU', 'NZ', 'FR', 'LU', 'IN', 'ZA', 'PH', 'SG', 'MY', 'IL']);
const TYPE_NAMES: Record<string, string> = { street: 'Street', address: 'Address', poi: 'POI', municipality: 'Municipality', locality: 'Locality', neighbourhood: 'Neighbourhood' };
const OSM_LETTERS = ['n', 'w', 'r'];
const OSM_TYPES = ['node', 'way', 'relation'];

const round = (value: number) => Math.round(value * 1e6) / 1e6;

/** The entry's name in the first of `languages` it has one in, else its first name. */
function nameOf(index: ExtractIndex, entry: number, languages: readonly string[]): string {
  const end = entry + 1 < index.kind.length ? index.firstName[entry + 1]! : index.nameEntry.length;
  for (const language of languages) {
    const wanted = index.languages.indexOf(language);
    for (let name = index.firstName[entry]!; name < end && wanted > 0; name++) if (index.nameLanguage[name] === wanted) return index.nameText[name]!;
  }
  return index.nameText[index.firstName[entry]!]!;
}

/** Per extract, the world region of each of its contexts (NO_REGION: none), found once. */
const regionsOf = new WeakMap<ExtractIndex, Map<number, number>>();

/**
 * The first-level region an entry lies in. Extracts carry no region (OpenStreetMap's boundaries
 * are not kept), and the world's regions have no outlines: it is the region of the GeoNames place
 * the point is best taken to be in (reverse.ts's placeAt), when that place is in the same country.
 * One lookup per context of the extract (its town), taken at its first entry asked for.
 */
function regionOf(index: ExtractIndex, entry: number, world: PlaceIndex, country: string | null): number {
  let regions = regionsOf.get(index);
  if (!regions) regionsOf.set(index, (regions = new Map()));
  const context = index.context[entry]!;
  let region = regions.get(context);
  if (region === undefined) {
    const place = placeAt(world, index.lon[entry]!, index.lat[entry]!, false);
    const sameCountry = place !== null && world.countries[world.country[place.entry]!]?.code === country;
    region = sameCountry ? world.region[place.entry]! : NO_REGION;
    regions.set(context, region);
  }
  return region;
}

/** The entry's context: its place, its region and its country (named from the world index, in the requested language). */
function contextOf(index: ExtractIndex, entry: number, world: PlaceIndex, languages: readonly string[]): ContextItem[] {
  const { placeId, placeText, placeRef, country } = index.contexts[index.context[entry]!]!;
  const code = country?.toLowerCase() ?? '';
  const items: ContextItem[] = [];
  if (placeId !== null && placeText !== null && placeRef !== null) items.push({ id: placeId, text: placeText, ref: placeRef, country_code: code });
  const region = regionOf(index, entry, world, country);
  if (region !== NO_REGION) items.push(regionContext(world, region, languages, country));
  const countryNumber = country === null ? -1 : world.countries.findIndex((c) => c.code === country);
  if (countryNumber >= 0) items.push({ id: `country.${country}`, text: countryName(world, countryNumber, languages), ref: `iso:${country}`, country_code: code });
  return items;
}

export function extractFeatureOf(index: ExtractIndex, entry: number, relevance: number, languages: readonly string[], world: PlaceIndex, matched?: string): GeocodingFeature {
  const kindNumber = index.kind[entry]!;
  const kind = EXTRACT_KINDS[kindNumber]!;
  const text = nameOf(index, entry, languages);
  const context = contextOf(index, entry, world, languages);
  const country = index.contexts[index.context[entry]!]!.country;
  const number = index.housenumber[entry]!;
  const label = kindNumber === ADDRESS ? (country !== null && NUMBER_FIRST.has(country) ? `${number} ${text}` : `${text} ${number}`) : text;
  const center: [number, number] = [round(index.lon[entry]!), round(index.lat[entry]!)];
  const osmType = index.osmType[entry]!;
  const category = index.categories[index.category[entry]!]!;
  const [tag = '', value = ''] = category.split('=');
  const box = index.box.subarray(4 * entry, 4 * entry + 4);
  const feature: GeocodingFeature = {
    type: 'Feature',
    id: `${kind}.${OSM_LETTERS[osmType]}${index.osmId[entry]}${index.part?.[entry] ? `-${index.part[entry]}` : ''}`,
    text,
    place_name: [label, ...context.map((item) => item.text)].join(', '),
    place_type: [kind],
    place_type_name: [TYPE_NAMES[kind]!],
    relevance: Math.round(relevance * 1000) / 1000,
    center,
    ...(kindNumber === STREET ? { bbox: Array.from(box, round) as [number, number, number, number] } : {}),
    geometry: { type: 'Point', coordinates: center },
    properties: {
      ref: `osm:${OSM_TYPES[osmType]}/${index.osmId[entry]}`,
      country_code: country === null ? null : country.toLowerCase(),
      kind: kindNumber === STREET ? 'road' : kindNumber === ADDRESS ? 'address' : kindNumber === POI ? 'poi' : 'place',
      ...(kindNumber === POI ? { categories: [value === 'yes' ? tag : value] } : {}),
      ...(category === '' ? {} : { osm_tag: category }),
      // Mapbox's word for an address placed along its street between two known numbers.
      ...(category.startsWith('addr:interpolation=') ? { accuracy: 'interpolated' as const } : {}),
      map: index.map,
    },
    ...(kindNumber === ADDRESS ? { address: number } : {}),
    context,
  };
  if (matched !== undefined && matched !== text) {
    const matchedLabel = kindNumber === ADDRESS ? label.replace(text, matched) : matched;
    feature.matching_text = matched;
    feature.matching_place_name = [matchedLabel, ...context.map((item) => item.text)].join(', ');
  }
  return feature;
}
