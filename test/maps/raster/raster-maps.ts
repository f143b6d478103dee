/** The maps the raster-tile tests draw: the world map over the test fixture, and a map of one square. */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { stylePath as worldStylePath } from '../../../src/tools/world/build.js';
import { repoRoot } from '../../render/suite/cases.js';

/** The world map over the test fixture (its tiles of zooms 0-8 around the samples). */
export function worldStyle(): StyleSpecification {
  const style = JSON.parse(readFileSync(worldStylePath, 'utf8')) as StyleSpecification;
  style.sources = { world: { type: 'vector', url: `pmtiles://${path.join(repoRoot, 'test/fixtures/osm/world.pmtiles')}`, maxzoom: 8 } };
  return style;
}

/** A blue sea and a square of land from 20° W 20° S to 20° E 20° N in `colour`. */
export function smallStyle(colour = '#00ff00') {
  return {
    version: 8,
    sources: { land: { type: 'geojson', data: { type: 'Polygon', coordinates: [[[-20, -20], [20, -20], [20, 20], [-20, 20], [-20, -20]]] } } },
    layers: [
      { id: 'sea', type: 'background', paint: { 'background-color': '#0000ff' } },
      { id: 'land', type: 'fill', source: 'land', paint: { 'fill-color': colour } },
    ],
  };
}
