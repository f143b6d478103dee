/**
 * A street scene the render threads draw while they warm up, after the configured maps: blocks,
 * streets with casings and their names along them, and labelled places, generated here as GeoJSON
 * rather than read from any map. Each map's own warm-up is one small image at its centre, which
 * leaves most of the renderer (line labels, collisions, halos, the PNG encoder at full size) to be
 * compiled by V8 during the first requests; the scene runs that code first without reading a tile
 * any request will want. In process, the first ten cold views of the test town after it took
 * 161-189 ms in all against 189-245 ms without (six pairs, taking turns), the first of them 31-50 ms
 * against 55-68 (docs/benchmarks.md, "The renderer compiled before the first request").
 */

import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { Feature } from 'geojson';
import { TileCache } from '../render/source/cache.js';
import type { Viewport } from '../render/view/viewport.js';
import { loadMap, type LoadOptions } from './registry.js';
import { plainImageJob, renderStaticImage } from './static/static-image.js';

/** Views of the scene (around 0°, 0°), at street zooms and at the size most images are. */
const VIEWS: Viewport[] = [15, 15.5, 16, 15, 15.5, 16].map((zoom, i) => ({ center: [0.0005 * (i % 3), 0.0004 * (i % 2)], zoom, width: 512, height: 512, pixelRatio: 1 }));
const STREETS = ['Main Street', 'Hauptstrasse', 'Rue de la Paix', 'Bahnhofstrasse', 'Church Lane', 'Mill Road', 'Station Avenue', 'Park Way'];
/** A font every installation has (Debian's fonts-noto-core, installed by setup). */
const FONT = ['Noto Sans Regular'];

/** A grid of eight streets each way with the blocks between them and a place in every third block. */
function features(): Feature[] {
  const all: Feature[] = [];
  for (let i = 0; i < STREETS.length; i++) {
    const at = -0.006 + i * 0.0017;
    const kind = i % 3 === 0 ? 'primary' : 'residential';
    all.push({ type: 'Feature', properties: { kind, name: STREETS[i] }, geometry: { type: 'LineString', coordinates: [[-0.008, at], [-0.002, at + 0.0004], [0.008, at - 0.0003]] } });
    all.push({ type: 'Feature', properties: { kind: 'residential', name: STREETS[(i + 3) % STREETS.length] }, geometry: { type: 'LineString', coordinates: [[at, -0.008], [at + 0.0003, 0], [at - 0.0002, 0.008]] } });
    for (let j = 0; j < 7; j++) {
      const x = -0.006 + j * 0.0017 + 0.0003;
      const y = at + 0.0003;
      all.push({ type: 'Feature', properties: { kind: 'block' }, geometry: { type: 'Polygon', coordinates: [[[x, y], [x + 0.0011, y], [x + 0.0011, y + 0.001], [x, y + 0.001], [x, y]]] } });
      if ((i + j) % 3 === 0) all.push({ type: 'Feature', properties: { kind: 'place', name: `${STREETS[j]} ${i * 7 + j}` }, geometry: { type: 'Point', coordinates: [x + 0.0005, y + 0.0005] } });
    }
  }
  return all;
}

export function warmUpStyle(): StyleSpecification {
  const width = (low: number, high: number) => ['interpolate', ['linear'], ['zoom'], 14, low, 17, high];
  return {
    version: 8,
    sources: { scene: { type: 'geojson', data: { type: 'FeatureCollection', features: features() } } },
    layers: [
      { id: 'ground', type: 'background', paint: { 'background-color': '#f2efe9' } },
      { id: 'blocks', type: 'fill', source: 'scene', filter: ['==', ['get', 'kind'], 'block'], paint: { 'fill-color': '#d9d0c9', 'fill-outline-color': '#bbbbbb' } },
      { id: 'casings', type: 'line', source: 'scene', filter: ['==', ['geometry-type'], 'LineString'], layout: { 'line-join': 'round', 'line-cap': 'round' }, paint: { 'line-color': '#999999', 'line-width': width(4, 14) } },
      {
        id: 'streets',
        type: 'line',
        source: 'scene',
        filter: ['==', ['geometry-type'], 'LineString'],
        layout: { 'line-join': 'round', 'line-cap': 'round' },
        paint: { 'line-color': ['match', ['get', 'kind'], 'primary', '#fcd6a4', '#ffffff'], 'line-width': width(2, 11) },
      },
      {
        id: 'street-names',
        type: 'symbol',
        source: 'scene',
        filter: ['==', ['geometry-type'], 'LineString'],
        layout: { 'symbol-placement': 'line', 'text-field': ['get', 'name'], 'text-font': FONT, 'text-size': 12 },
        paint: { 'text-color': '#333333', 'text-halo-color': '#ffffff', 'text-halo-width': 1.5 },
      },
      {
        id: 'places',
        type: 'symbol',
        source: 'scene',
        filter: ['==', ['get', 'kind'], 'place'],
        layout: { 'text-field': ['get', 'name'], 'text-font': FONT, 'text-size': 11, 'text-max-width': 8, 'text-anchor': 'top' },
        paint: { 'text-color': '#666666', 'text-halo-color': 'rgba(255,255,255,0.75)', 'text-halo-width': 1, 'text-halo-blur': 1 },
      },
    ],
  } as StyleSpecification;
}

/** Draws the scene's views as PNG, one after the other, until done or `signal` aborts; its own small tile cache, dropped after. */
export async function drawWarmUpScene(options: Omit<LoadOptions, 'cache'>, signal: AbortSignal): Promise<void> {
  const map = await loadMap('warm-up', { style: warmUpStyle() }, '.', { ...options, cache: new TileCache(8 * 1024 * 1024) });
  try {
    for (const viewport of VIEWS) {
      if (signal.aborted) break;
      await renderStaticImage(map, plainImageJob(viewport, 'png'), signal);
    }
  } finally {
    await map.close();
  }
}
