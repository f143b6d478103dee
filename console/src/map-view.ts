/**
 * MapLibre GL JS for the console's pages: its worker is a file of this build (Vite copies it with
 * a hashed name), a map's style comes from Meridian's `/maps/{id}/style.json` with the key, and
 * every map has the place search box (place-search.ts) asking `/geocoding` with the same key.
 */

import { Map as MapLibreMap, NavigationControl, setWorkerUrl, type StyleSpecification } from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import { gated, type ResponseOf } from './api.js';
import { placeSearch } from './place-search.js';

setWorkerUrl(new URL(workerUrl, location.href).href);

/** A map with nothing to show but the background, for when no configured map can be used. */
export const blankStyle: StyleSpecification = {
  version: 8,
  sources: {},
  layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#e7edf2' } }],
};

/** A configured map, as `GET /maps` lists it. */
export type MapSummary = ResponseOf<'/maps'>['maps'][number];

export async function listMaps(key: string): Promise<MapSummary[]> {
  return (await gated<ResponseOf<'/maps'>>('/maps', key)).maps;
}

/**
 * The interactive style of a map, or the blank style and why when it cannot be had (a key the
 * server refuses, a server without the interactive endpoints).
 */
export async function mapStyle(mapId: string, key: string): Promise<{ style: StyleSpecification; problem: string | null }> {
  try {
    return { style: await gated<StyleSpecification>(`/maps/${encodeURIComponent(mapId)}/style.json`, key), problem: null };
  } catch (error) {
    return { style: blankStyle, problem: `The interactive map of “${mapId}” is not available (${(error as Error).message}); showing a blank map.` };
  }
}

/**
 * The style to draw under a page's own layers: the `world` map, else the first map the server has,
 * else the blank style.
 */
export async function basemapStyle(key: string): Promise<StyleSpecification> {
  const basemap = await listMaps(key).then((maps) => maps.find((m) => m.id === 'world') ?? maps[0]).catch(() => undefined);
  return basemap ? (await mapStyle(basemap.id, key)).style : blankStyle;
}

/** A map of the page, with the search box; `key` is the page's API key, which the search sends. */
export function createMap(container: HTMLElement, style: StyleSpecification | string, view: { center: [number, number]; zoom: number }, key: string): MapLibreMap {
  const map = new MapLibreMap({
    container,
    style,
    center: view.center,
    zoom: view.zoom,
    attributionControl: { compact: true },
    // The static image is the reference; a map the reader cannot tilt keeps the two comparable.
    pitchWithRotate: false,
    dragRotate: false,
    // Screenshots and tests read the canvas.
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.addControl(placeSearch(key), 'top-left');
  map.addControl(new NavigationControl({ showCompass: false }), 'top-right');
  return map;
}
