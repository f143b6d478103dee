import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { gatedRoute, gatedUnavailable, type KeyGate } from '../keys/gate.js';
import type { TypeBoxTypeProvider } from '../platform/http/typebox.js';
import type { Geocoder } from './geocoder.js';
import { INDEX_BUILDING } from './geocoder.js';
import { geocodingQuerystring, MAX_QUERY_LENGTH } from './parameters.js';

const position = { type: 'array', items: { type: 'number' }, minItems: 2, maxItems: 2, description: '[longitude, latitude]' } as const;

const contextItem = {
  $id: 'GeocodingContext',
  type: 'object',
  required: ['id', 'text', 'ref', 'country_code'],
  properties: {
    id: { type: 'string', description: 'e.g. country.CH, region.2951839, municipality.5378538' },
    text: { type: 'string', description: 'Name, in the requested language when the data has it' },
    ref: { type: 'string', description: 'Source and id: iso:CH, iso:DE-BY (ISO 3166-2), geonames:5378538, osm:node/240109189' },
    country_code: { type: 'string', description: 'ISO 3166-1 alpha-2, lower case' },
  },
} as const;

const feature = {
  $id: 'GeocodingFeature',
  type: 'object',
  required: ['type', 'id', 'text', 'place_name', 'place_type', 'place_type_name', 'relevance', 'center', 'geometry', 'properties', 'context'],
  properties: {
    type: { type: 'string', enum: ['Feature'] },
    id: { type: 'string', description: 'Type and id: country.CH, municipality.2657896 (GeoNames id), street.w25216933 (OpenStreetMap: n node, w way, r relation)' },
    text: { type: 'string', description: 'Name, in the first requested language the data has a name in' },
    place_name: { type: 'string', description: 'Name with its context: "Munich, Bavaria, Germany", "Haydnstraße 5, Kirchberg an der Iller, Baden-Württemberg, Germany" (a region named after its place is left out: "Zürich, Switzerland")' },
    place_type: { type: 'array', items: { type: 'string' }, description: 'country, region, municipality, locality, neighbourhood; from imported maps also street, address, poi' },
    place_type_name: { type: 'array', items: { type: 'string' } },
    relevance: { type: 'number', minimum: 0, maximum: 1, description: 'Share of the query the feature matches (1 for reverse lookups)' },
    center: position,
    bbox: { type: 'array', items: { type: 'number' }, minItems: 4, maxItems: 4, description: '[west, south, east, north] (countries, regions, streets); west > east across the antimeridian' },
    address: { type: 'string', description: 'Addresses: the house number (`text` is the street)' },
    geometry: {
      type: 'object',
      required: ['type', 'coordinates'],
      properties: { type: { type: 'string', enum: ['Point'] }, coordinates: position },
    },
    properties: {
      type: 'object',
      required: ['ref', 'country_code', 'kind'],
      properties: {
        ref: { type: 'string', description: 'Source and id: geonames:2657896, iso:CH, osm:way/25216933' },
        country_code: { type: ['string', 'null'], description: 'ISO 3166-1 alpha-2, lower case' },
        kind: { type: 'string', enum: ['admin_area', 'place', 'road', 'address', 'poi'] },
        population: { type: 'integer', description: 'Places: GeoNames population; regions: the people of their places' },
        feature_code: { type: 'string', description: 'Places: GeoNames feature code (PPLC capital, PPLA seat of a first-level division, PPL, PPLX section of a place, ...)' },
        categories: { type: 'array', items: { type: 'string' }, description: 'Points of interest: their class (cafe, school, artwork, ...)' },
        osm_tag: { type: 'string', description: 'Features of imported maps: the OpenStreetMap tag that makes them what they are (amenity=cafe, highway=residential)' },
        map: { type: 'string', description: 'Features of imported maps: the map id whose extract they come from' },
        accuracy: { type: 'string', enum: ['interpolated'], description: 'Addresses placed along their street between two known numbers (OpenStreetMap addr:interpolation)' },
      },
    },
    context: { type: 'array', items: { $ref: 'GeocodingContext#' }, description: 'What the feature is in, smallest first (its place, its region, its country)' },
    matching_text: { type: 'string', description: 'The name the query matched, when it is not `text` (Deutschland for Germany)' },
    matching_place_name: { type: 'string', description: '`place_name` with `matching_text`' },
  },
} as const;

const result = {
  $id: 'GeocodingResult',
  type: 'object',
  required: ['type', 'features', 'query', 'attribution'],
  properties: {
    type: { type: 'string', enum: ['FeatureCollection'] },
    features: { type: 'array', items: { $ref: 'GeocodingFeature#' } },
    query: { type: 'array', items: { type: ['string', 'number'] }, description: 'The query as searched: its folded words, or [longitude, latitude]' },
    attribution: { type: 'string', description: 'HTML attribution of the data the features come from' },
  },
} as const;

export const geocodingSchemas = [contextItem, feature, result];

const geocodingParams = Type.Object({
  query: Type.String({ minLength: 1, maxLength: MAX_QUERY_LENGTH * 4, description: `A place name (at most ${MAX_QUERY_LENGTH} characters), or longitude,latitude` }),
});

/** Geocoding (issue 33) under `/geocoding`, behind the API-key gate, counted as the `geocoding` area. */
export async function geocodingRoutes(app: FastifyInstance, options: { gate: KeyGate; geocoder: Geocoder }): Promise<void> {
  app.addHook('onRequest', options.gate.hookFor('geocoding'));
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/geocoding/:query.json',
    {
      schema: {
        tags: ['geocoding'],
        summary: 'Forward and reverse geocoding',
        description:
          'Forward: a place name, street, address or point of interest (case, accents and typos do not matter; the last word is a prefix with autocomplete). Reverse: `longitude,latitude` gives what is there, most detailed first (address, point of interest, street, neighbourhood, place, region, country). World data: countries (Natural Earth, names in many languages), their first-level regions and GeoNames places of 1,000 people or more; and the streets, addresses, places and points of interest of every map imported with `meridian maps import` (OpenStreetMap). See docs/guide/geocoding.md.',
        params: geocodingParams,
        querystring: geocodingQuerystring,
        ...gatedRoute,
        response: {
          200: { $ref: 'GeocodingResult#' },
          400: { $ref: 'ErrorBody#', description: 'Empty or too long query, coordinates out of range, unknown type, language or country, invalid limit, proximity or bbox' },
          ...gatedRoute.response,
          503: gatedUnavailable(INDEX_BUILDING),
        },
      },
    },
    async (request) => options.geocoder.search(request.params.query, request.query, request.headers['accept-language']),
  );
}
