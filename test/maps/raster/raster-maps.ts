/** The maps the raster-tile tests draw: the world map over the test fixture, and a map of one square. */

import { execFileSync } from 'node:child_process';
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

/**
 * The tiles of each matrix of `set` that a capabilities document limits a layer to, as
 * [matrix, minRow, maxRow, minCol, maxCol] in document order.
 */
export function matrixLimits(xml: string, set: string): number[][] {
  const link = xml.split('<TileMatrixSetLink>').slice(1).find((part) => part.includes(`<TileMatrixSet>${set}</TileMatrixSet>`))!;
  return [...link.matchAll(/<TileMatrix>(\d+)<\/TileMatrix>\s*<MinTileRow>(\d+)<\/MinTileRow>\s*<MaxTileRow>(\d+)<\/MaxTileRow>\s*<MinTileCol>(\d+)<\/MinTileCol>\s*<MaxTileCol>(\d+)<\/MaxTileCol>/g)].map((match) => match.slice(1).map(Number));
}

/**
 * The limits a box of west, south, east, north degrees gives matrix z, by WMTS 1.0.0's own formulas
 * (OGC 07-057r7, Annex H.1, with its epsilon), over the box's corners projected to EPSG:3857 by
 * PROJ's cs2cs and the top-left corner of Annex E.4. A tile of matrix z spans the world's width over
 * 2^z in both sets (256 px at the scale of Annex E.4, or 512 px at half of it).
 */
export function annexLimits(box: readonly number[], z: number): number[] {
  const [minX, minY, maxX, maxY] = execFileSync('cs2cs', ['-f', '%.6f', 'EPSG:4326', 'EPSG:3857'], { input: `${box[1]} ${box[0]}\n${box[3]} ${box[2]}\n`, encoding: 'utf8' })
    .trim()
    .split('\n')
    .flatMap((line) => line.split(/\s+/).slice(0, 2).map(Number)) as [number, number, number, number];
  const corner = 20037508.3427892;
  const span = (2 * corner) / 2 ** z;
  const epsilon = 1e-6;
  return [
    z,
    Math.floor((corner - maxY) / span + epsilon),
    Math.floor((corner - minY) / span - epsilon),
    Math.floor((minX + corner) / span + epsilon),
    Math.floor((maxX + corner) / span - epsilon),
  ];
}
