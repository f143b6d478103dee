import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { compileStyle } from '../../src/render/style/style.js';
import { renderMap } from '../../src/render/renderer.js';
import { unproject } from '../../src/render/view/viewport.js';
import { countPixels, geojsonSource, MemorySource, pixel, polygon, render, sourceSpecs, vectorTile, view } from './sources.js';

const everywhere = polygon([[0, 0], [4096, 0], [4096, 4096], [0, 4096]]);

test('the canvas is width × pixelRatio by height × pixelRatio', async () => {
  const canvas = await render({ sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': 'red' } }] } as never, {}, view(3, [0, 0], 300, 200, 2));
  assert.equal(canvas.width, 600);
  assert.equal(canvas.height, 400);
  assert.deepEqual(pixel(canvas, 599, 399), [255, 0, 0, 255]);
});

test('the background covers the world but not above or below it', async () => {
  const canvas = await render({ sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': 'blue', 'background-opacity': 0.5 } }] } as never, {}, view(0, [0, 0], 1024, 1024));
  const halfBlue = ([r, g, b, a]: number[]): boolean => r === 0 && g === 0 && b === 255 && Math.abs(a! - 128) <= 1;
  assert.deepEqual(pixel(canvas, 0, 255), [0, 0, 0, 0]);
  assert.ok(halfBlue(pixel(canvas, 0, 256)));
  assert.ok(halfBlue(pixel(canvas, 1023, 767)));
  assert.deepEqual(pixel(canvas, 1023, 768), [0, 0, 0, 0]);
});

test('a view across the antimeridian draws both world copies', async () => {
  const g = geojsonSource({
    type: 'FeatureCollection',
    features: [
      { type: 'Feature', properties: { side: 'east' }, geometry: { type: 'Polygon', coordinates: [[[170, -10], [180, -10], [180, 10], [170, 10], [170, -10]]] } },
      { type: 'Feature', properties: { side: 'west' }, geometry: { type: 'Polygon', coordinates: [[[-180, -10], [-170, -10], [-170, 10], [-180, 10], [-180, -10]]] } },
    ],
  });
  const paint = { 'fill-antialias': false, 'fill-color': ['match', ['get', 'side'], 'east', 'red', 'blue'] };
  const canvas = await render({ sources: sourceSpecs({ g }), layers: [{ id: 'f', type: 'fill', source: 'g', paint }] } as never, { g }, view(3, [180, 0], 512, 256));
  // At zoom 3, 10° of longitude is about 114 px: east of the antimeridian is the west copy's -180..-170.
  assert.deepEqual(pixel(canvas, 200, 128), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 312, 128), [0, 0, 255, 255]);
  assert.deepEqual(pixel(canvas, 100, 128), [0, 0, 0, 0]);
});

test('zoom 0 at 1024 px wide draws the world twice', async () => {
  const v = new MemorySource(new Map([['0/0/0', vectorTile({ shapes: [polygon([[0, 0], [400, 0], [400, 400], [0, 400]])] })]]));
  const canvas = await render({ sources: sourceSpecs({ v }), layers: [{ id: 'f', type: 'fill', source: 'v', 'source-layer': 'shapes', paint: { 'fill-color': 'red', 'fill-antialias': false } }] } as never, { v }, view(0, [0, 0], 1024, 512));
    // The main copy at x 256 and the east copy at x 768; the west copy's square is off the image.
  assert.equal(countPixels(canvas, ([r]) => r === 255), 2 * 50 * 50);
  assert.deepEqual(pixel(canvas, 770, 10), [255, 0, 0, 255]);
  assert.deepEqual(v.requests, ['0/0/0']);
});

test('features beyond a vector source maxzoom come from the maxzoom tile, cut to the tiles of the view', async () => {
  // An eighth of tile 2/2/1 (0..512 of 4096): at zoom 4, where the tile is 2048 px, 256 px, all of
  // it in tile 4/8/4, the one tile of the view, which the source cuts from 2/2/1 (as MapLibre does).
  const v = new MemorySource(new Map([['2/2/1', vectorTile({ shapes: [polygon([[0, 0], [512, 0], [512, 512], [0, 512]])] })]]), { maxzoom: 2 });
  const canvas = await render(
    { sources: sourceSpecs({ v }), layers: [{ id: 'f', type: 'fill', source: 'v', 'source-layer': 'shapes', paint: { 'fill-color': 'red', 'fill-antialias': false } }] } as never,
    { v },
    // The view's top-left corner is the tile's top-left corner.
    { center: unproject(2 * 2048 + 256, 2048 + 256, 4), zoom: 4, width: 512, height: 512, pixelRatio: 1 },
  );
  assert.deepEqual(v.requests, ['4/8/4']);
  assert.equal(countPixels(canvas, ([r]) => r === 255), 256 * 256);
  assert.deepEqual(pixel(canvas, 255, 255), [255, 0, 0, 255]);
  assert.deepEqual(pixel(canvas, 256, 100), [0, 0, 0, 0]);
});

test('a missing tile draws nothing for its square, the others draw', async () => {
  const v = new MemorySource((_z, x, y) => (x === 0 && y === 0 ? vectorTile({ shapes: [everywhere] }) : null));
  const canvas = await render({ sources: sourceSpecs({ v }), layers: [{ id: 'f', type: 'fill', source: 'v', 'source-layer': 'shapes', paint: { 'fill-color': 'red', 'fill-antialias': false } }] } as never, { v }, view(1));
  assert.equal(countPixels(canvas, ([r]) => r === 255), 256 * 256);
});

test('layer minzoom, maxzoom and visibility hide layers', async () => {
  const layers = [
    { id: 'a', type: 'background', minzoom: 2, paint: { 'background-color': 'red' } },
    { id: 'b', type: 'background', maxzoom: 2, paint: { 'background-color': 'rgba(0, 0, 255, 0.5)' } },
    { id: 'c', type: 'background', layout: { visibility: 'none' }, paint: { 'background-color': 'lime' } },
  ];
  const [r, g, b, a] = pixel(await render({ sources: {}, layers } as never, {}, view(1.9)), 10, 10);
  assert.ok(r === 0 && g === 0 && b === 255 && Math.abs(a - 128) <= 1, `${[r, g, b, a]}`);
  assert.deepEqual(pixel(await render({ sources: {}, layers } as never, {}, view(2)), 10, 10), [255, 0, 0, 255]);
});

test('a symbol layer compiles without a warning; a layer of a source with no TileSource draws nothing', async () => {
  const style = compileStyle({
    version: 8,
    glyphs: 'memory://{fontstack}/{range}.pbf',
    sources: { v: { type: 'vector', tiles: ['memory://{z}/{x}/{y}'] } },
    layers: [
      { id: 'bg', type: 'background', paint: { 'background-color': 'white' } },
      { id: 'labels', type: 'symbol', source: 'v', 'source-layer': 'x', layout: { 'text-field': ['get', 'name'] } },
      { id: 'f', type: 'fill', source: 'v', 'source-layer': 'x', paint: { 'fill-color': 'red' } },
    ],
  });
  assert.deepEqual(style.warnings, []);
  const canvas = await renderMap(style, new Map(), view(0));
  assert.equal(countPixels(canvas, ([r, g, b]) => r === 255 && g === 255 && b === 255), 512 * 512);
});

test('an aborted render rejects with the signal\'s reason', async () => {
  const style = compileStyle({ version: 8, sources: {}, layers: [{ id: 'bg', type: 'background' }] });
  const controller = new AbortController();
  const reason = new Error('client went away');
  controller.abort(reason);
  await assert.rejects(renderMap(style, new Map(), view(0), { signal: controller.signal }), (error) => error === reason);
  // Aborted while tiles load: the render stops before drawing.
  const late = new AbortController();
  const v = new MemorySource(() => {
    late.abort(reason);
    return vectorTile({ x: [everywhere] });
  });
  const withTiles = compileStyle({ version: 8, sources: { v: { type: 'vector', tiles: ['memory://{z}/{x}/{y}'] } }, layers: [{ id: 'f', type: 'fill', source: 'v', 'source-layer': 'x' }] });
  await assert.rejects(renderMap(withTiles, new Map([['v', v]]), view(0), { signal: late.signal }), (error) => error === reason);
});

test('GeoJSON sources are drawn whatever source-layer the style gives', async () => {
  const g = geojsonSource({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[-10, -10], [10, -10], [10, 10], [-10, 10], [-10, -10]]] } }] });
  const canvas = await render({ sources: sourceSpecs({ g }), layers: [{ id: 'f', type: 'fill', source: 'g', 'source-layer': 'anything', paint: { 'fill-color': 'red' } }] } as never, { g }, view(2));
  assert.deepEqual(pixel(canvas, 256, 256), [255, 0, 0, 255]);
});

test('an image beneath the labels is drawn over the layers before the first symbol layer, under every label', async () => {
  const g = geojsonSource({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'MMMM' }, geometry: { type: 'Point', coordinates: [0, 0] } }] });
  const style = compileStyle({
    version: 8,
    glyphs: 'memory://{fontstack}/{range}.pbf',
    sources: sourceSpecs({ g }),
    layers: [
      { id: 'bg', type: 'background', paint: { 'background-color': 'white' } },
      { id: 'labels', type: 'symbol', source: 'g', layout: { 'text-field': ['get', 'name'], 'text-size': 40 }, paint: { 'text-color': '#000000' } },
      { id: 'after', type: 'circle', source: 'g', paint: { 'circle-color': '#00ff00', 'circle-radius': 4 } },
    ],
  } as never);
  const beneath = createCanvas(256, 256);
  const paint = beneath.getContext('2d');
  paint.fillStyle = 'rgba(255, 0, 0, 0.5)';
  paint.fillRect(0, 0, 256, 256);
  const canvas = await renderMap(style, new Map([['g', g]]), view(2, [0, 0], 256, 256), { beneathLabels: beneath });
  // Over the white background: half red. The label (black) and the circle after it are drawn on top.
  assert.deepEqual(pixel(canvas, 5, 5), [255, 128, 128, 255]);
  assert.ok(countPixels(canvas, ([r, g, b]) => r < 40 && g < 40 && b < 40) > 100, 'black label pixels over the image');
  assert.deepEqual(pixel(canvas, 128, 128).slice(0, 3), [0, 255, 0]);
  // Without a symbol layer the image goes over every layer.
  const plain = await renderMap(compileStyle({ version: 8, sources: {}, layers: [{ id: 'bg', type: 'background', paint: { 'background-color': 'white' } }] }), new Map(), view(2, [0, 0], 256, 256), { beneathLabels: beneath });
  assert.deepEqual(pixel(plain, 5, 5), [255, 128, 128, 255]);
});
