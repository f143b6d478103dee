/**
 * The search box of the console's maps and of the map viewer: `@maplibre/maplibre-gl-geocoder`,
 * MapLibre's control for Mapbox v5-shaped geocoders, over Meridian's own `/geocoding` API asked
 * with the page's key. It suggests places as the reader types (each suggestion a feature of the
 * API's answer), and flies to the one chosen and marks it; `latitude, longitude` typed in (the order the
 * control reads) names the place there. The API's features are already Carmen GeoJSON
 * (`place_name`, `center`, `bbox`, `place_type`), so the adapter builds URLs and little else.
 */

import MaplibreGeocoder, { type CarmenGeojsonFeature, type MaplibreGeocoderApiConfig, type MaplibreGeocoderFeatureResults } from '@maplibre/maplibre-gl-geocoder';
import '@maplibre/maplibre-gl-geocoder/dist/maplibre-gl-geocoder.css';
import './place-search.css';
import * as maplibregl from 'maplibre-gl';
import { gated, type ResponseOf } from './api.js';

type GeocodingResult = ResponseOf<'/geocoding/{query}.json'>;
type GeocodingFeature = GeocodingResult['features'][number];

/** The zoom a chosen place without a box is shown at: a town fills the frame. */
const PLACE_ZOOM = 12;

/**
 * The control's `limit`, and the map's centre as `proximity` once the map is zoomed in. Its
 * `language` (the browser's first) is left out on purpose: the request's Accept-Language says all
 * the reader's languages, and the API skips those it does not know, where a `language` it does not
 * know (a three-letter code) would be a 400.
 */
function parameters(config: MaplibreGeocoderApiConfig): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  if (config.limit) query.limit = config.limit;
  if (config.proximity) query.proximity = config.proximity.join(',');
  return query;
}

/**
 * One feature as the control reads it: the same, with the tuples its types name. A country's box
 * across the antimeridian (west > east, Russia's) goes as it is: MapLibre fits such a box across it.
 */
function carmen(feature: GeocodingFeature): CarmenGeojsonFeature {
  const [lon, lat] = feature.center as [number, number];
  return { ...feature, geometry: { type: 'Point', coordinates: [lon, lat] }, center: [lon, lat], bbox: feature.bbox as [number, number, number, number] | undefined };
}

async function search(path: string, key: string, config: MaplibreGeocoderApiConfig): Promise<MaplibreGeocoderFeatureResults> {
  const result = await gated<GeocodingResult>(`/geocoding/${path}.json`, key, parameters(config));
  return { type: 'FeatureCollection', features: result.features.map(carmen) };
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The feature's own part of its place name, and the places it is in: `1612 7th Street` and
 * `Oakland, United States`. The control's default shows and keeps `text`, which for an address is
 * its street without the number.
 */
function parts(item: CarmenGeojsonFeature | { text: string }): [string, string] {
  const placeName = 'place_name' in item ? item.place_name : item.text;
  const comma = placeName.indexOf(', ');
  return comma < 0 ? [placeName, ''] : [placeName.slice(0, comma), placeName.slice(comma + 2)];
}

/**
 * A suggestion as the control's own default draws it, with the names escaped: the control puts
 * what this returns in the page as HTML, and names come from data (OpenStreetMap's anyone can edit).
 */
function suggestion(item: CarmenGeojsonFeature | { text: string }): string {
  const [title, context] = parts(item);
  return (
    '<div class="maplibregl-ctrl-geocoder--result">' +
    `<div><div class="maplibregl-ctrl-geocoder--result-title">${escapeHtml(title)}</div>` +
    `<div class="maplibregl-ctrl-geocoder--result-address">${escapeHtml(context)}</div></div></div>`
  );
}

/** A search box to add to a map (`map.addControl`), asking the API with `key`. */
export function placeSearch(key: string): MaplibreGeocoder {
  return new MaplibreGeocoder(
    {
      forwardGeocode: (config) => search(encodeURIComponent(String(config.query)), key, config),
      reverseGeocode: async (config) => {
        // The control hands over the text's words as numbers, last first: its last two numbers are
        // the position, and a word that is no number (the empty one after a trailing space) is NaN.
        const [lon, lat] = (config.query as number[]).filter(Number.isFinite);
        if (lon === undefined || lat === undefined) return { type: 'FeatureCollection', features: [] };
        return search(`${lon},${lat}`, key, config);
      },
    },
    {
      maplibregl,
      showResultsWhileTyping: true,
      reverseGeocode: true,
      zoom: PLACE_ZOOM,
      placeholder: 'Search places',
      render: suggestion,
      getItemValue: (item) => parts(item)[0],
      // With markers for every result, 1.9.4 also fits the map to all of them on the Enter that
      // chooses a suggestion (its keydown handler runs after the choice), undoing the fly to it.
      showResultMarkers: false,
    },
  );
}
