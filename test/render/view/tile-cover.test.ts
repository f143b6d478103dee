import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coveringTiles, idealZoom, type CoverSource } from '../../../src/render/view/tile-cover.js';
import { view } from '../sources.js';

const WORLD: [number, number, number, number] = [-180, -85.051129, 180, 85.051129];
const vector = (options: Partial<CoverSource> = {}): CoverSource => ({ kind: 'vector', tileSize: 512, minzoom: 0, maxzoom: 14, bounds: WORLD, ...options });
const keys = (tiles: ReturnType<typeof coveringTiles>): string[] => tiles.map((t) => `${t.z}/${t.x}/${t.y}@${t.wrap}`);

test('vector sources floor the ideal zoom; 256-px sources go one level deeper', () => {
  assert.equal(idealZoom(3.9, { kind: 'vector', tileSize: 512 }), 3);
  assert.equal(idealZoom(3.9, { kind: 'vector', tileSize: 256 }), 4);
  assert.equal(idealZoom(3, { kind: 'vector', tileSize: 256 }), 4);
  assert.equal(idealZoom(0.2, { kind: 'geojson', tileSize: 512 }), 0);
});

test('raster sources round the ideal zoom instead of flooring it', () => {
  assert.equal(idealZoom(3.4, { kind: 'raster', tileSize: 512 }), 3);
  assert.equal(idealZoom(3.6, { kind: 'raster', tileSize: 512 }), 4);
  assert.equal(idealZoom(3.6, { kind: 'raster-dem', tileSize: 256 }), 5);
  assert.equal(idealZoom(3.6, { kind: 'vector', tileSize: 512 }), 3);
});

test('a view centred on a tile at its own zoom needs that tile; centred on a corner, the four around it', () => {
  const tileCentre: [number, number] = [-45, 40.979898069620155];
  assert.deepEqual(keys(coveringTiles(view(2, tileCentre), vector())), ['2/1/1@0']);
  assert.deepEqual(keys(coveringTiles(view(2, [0, 0]), vector())), ['2/1/1@0', '2/2/1@0', '2/1/2@0', '2/2/2@0']);
});

test('a 256-px source covers the same view with tiles one level deeper', () => {
  const tiles = coveringTiles(view(1, [0, 0], 512, 512), vector({ tileSize: 256 }));
  assert.ok(tiles.every((t) => t.z === 2 && t.overscaledZ === 2));
  assert.equal(tiles.length, 4);
});

test('beyond a vector source maxzoom its tiles are split down to zoom 18, then over-zoomed', () => {
  // MapLibre's map maxZoom 22 less its zoomLevelsToOverscale 4.
  const split = coveringTiles(view(7.3, [10, 10], 256, 256), vector({ maxzoom: 5 }));
  assert.ok(split.length > 0);
  assert.ok(split.every((t) => t.z === 7 && t.overscaledZ === 7));
  assert.ok(coveringTiles(view(18.9, [10, 10], 256, 256), vector()).every((t) => t.z === 18 && t.overscaledZ === 18));
  const deeper = coveringTiles(view(20.5, [10, 10], 256, 256), vector());
  assert.ok(deeper.length > 0);
  assert.ok(deeper.every((t) => t.z === 18 && t.overscaledZ === 20));
  assert.ok(coveringTiles(view(20.5, [10, 10], 256, 256), vector({ maxzoom: 19 })).every((t) => t.z === 19 && t.overscaledZ === 20));
});

test('GeoJSON and raster sources are not split: their maxzoom tiles are over-zoomed', () => {
  const geojson = coveringTiles(view(7.3, [10, 10], 256, 256), vector({ kind: 'geojson', maxzoom: 5 }));
  assert.ok(geojson.length > 0);
  assert.ok(geojson.every((t) => t.z === 5 && t.overscaledZ === 7));
  const raster = coveringTiles(view(7.3, [10, 10], 256, 256), vector({ kind: 'raster', maxzoom: 5 }));
  assert.ok(raster.length > 0);
  assert.ok(raster.every((t) => t.z === 5 && t.overscaledZ === 5));
});

test('below the source minzoom nothing is covered', () => {
  assert.deepEqual(coveringTiles(view(3.9, [0, 0]), vector({ minzoom: 4 })), []);
  assert.ok(coveringTiles(view(4, [0, 0]), vector({ minzoom: 4 })).length > 0);
});

test('only tiles overlapping the source bounds are covered', () => {
  // Bounds within the north-east quarter of the world: at zoom 1 only tile 1/1/0.
  const tiles = coveringTiles(view(1, [0, 0]), vector({ bounds: [10, 10, 60, 50] }));
  assert.deepEqual(keys(tiles), ['1/1/0@0']);
});

test('split tiles outside the bounds are not covered, though their maxzoom tile is', () => {
  // Bounds in the north-west quarter of zoom-14 tile 14/8192/8191 (just north-east of 0, 0).
  const bounds: [number, number, number, number] = [0.001, 0.012, 0.01, 0.02];
  const centre: [number, number] = [0.011, 0.011];
  assert.deepEqual(keys(coveringTiles(view(14, centre, 512, 512), vector({ bounds }))), ['14/8192/8191@0']);
  // At zoom 15 that tile's four children are in view; only the north-west one overlaps the bounds.
  assert.deepEqual(keys(coveringTiles(view(15, centre, 1024, 1024), vector({ bounds }))), ['15/16384/16382@0']);
});

test('a view across the antimeridian covers tiles of both world copies', () => {
  const tiles = coveringTiles(view(2, [180, 0], 512, 256), vector());
  assert.deepEqual(keys(tiles), ['2/3/1@0', '2/3/2@0', '2/0/1@1', '2/0/2@1']);
});

test('zoom 0 at 1024 px wide shows the world twice: the main copy first, then west and east', () => {
  const tiles = coveringTiles(view(0, [0, 0], 1024, 512), vector());
  assert.deepEqual(keys(tiles), ['0/0/0@0', '0/0/0@-1', '0/0/0@1']);
});

test('rows above and below the world are never covered', () => {
  const tiles = coveringTiles(view(0, [0, 0], 512, 1024), vector());
  assert.deepEqual(keys(tiles), ['0/0/0@0']);
});
