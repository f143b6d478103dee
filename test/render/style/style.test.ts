import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { compileStyle } from '../../../src/render/style/style.js';

const sources = {
  v: { type: 'vector', tiles: ['memory://{z}/{x}/{y}'] },
  r: { type: 'raster', tiles: ['memory://{z}/{x}/{y}'] },
} as StyleSpecification['sources'];
const style = (layers: unknown[], extra: Partial<StyleSpecification> = {}): StyleSpecification => ({ version: 8, sources, layers, ...extra }) as StyleSpecification;

test('every layer, symbol layers included, becomes a render layer, in order', () => {
  const compiled = compileStyle(
    style(
      [
        { id: 'bg', type: 'background' },
        { id: 'land', type: 'fill', source: 'v', 'source-layer': 'land' },
        { id: 'labels', type: 'symbol', source: 'v', 'source-layer': 'places', layout: { 'text-field': 'x' } },
        { id: 'roads', type: 'line', source: 'v', 'source-layer': 'roads', minzoom: 5, maxzoom: 10 },
        { id: 'image', type: 'raster', source: 'r' },
      ],
      { glyphs: 'memory://{fontstack}/{range}.pbf' },
    ),
  );
  assert.deepEqual(compiled.layers.map((layer) => layer.id), ['bg', 'land', 'labels', 'roads', 'image']);
  assert.deepEqual([...compiled.layers[2]!.layoutGiven], ['text-field']);
  const roads = compiled.layers[3]!;
  assert.equal(roads.sourceLayer, 'roads');
  assert.equal(roads.minzoom, 5);
  assert.equal(roads.maxzoom, 10);
  assert.deepEqual(compiled.warnings, []);
});

test('symbol properties the label renderer does not draw are listed once each when set', () => {
  const compiled = compileStyle(
    style(
      [
        { id: 'a', type: 'symbol', source: 'v', 'source-layer': 'x', layout: { 'text-field': 'x', 'symbol-avoid-edges': true, 'text-writing-mode': ['vertical'] } },
        { id: 'b', type: 'symbol', source: 'v', 'source-layer': 'x', layout: { 'icon-image': 'x', 'icon-keep-upright': true }, paint: { 'icon-halo-width': 2, 'text-translate': [1, 2] } },
        { id: 'c', type: 'symbol', source: 'v', 'source-layer': 'x', layout: { 'icon-image': 'x', 'icon-keep-upright': false } },
      ],
      { glyphs: 'memory://{fontstack}/{range}.pbf' },
    ),
  );
  assert.deepEqual(compiled.warnings, ['text-writing-mode', 'icon-keep-upright']);
});

test('unsupported properties are listed once each, and nothing throws', () => {
  const compiled = compileStyle(
    style([
      { id: 'a', type: 'fill-extrusion', source: 'v', 'source-layer': 'x', paint: { 'fill-extrusion-pattern': 'dots' } },
      { id: 'b', type: 'fill-extrusion', source: 'v', 'source-layer': 'x', paint: { 'fill-extrusion-pattern': 'stripes' } },
      { id: 'e', type: 'raster', source: 'r', paint: { 'raster-fade-duration': 0, 'raster-layer-blend': 'multiply' } },
      { id: 'f', type: 'heatmap', source: 'v', 'source-layer': 'x' },
      { id: 'g', type: 'raster', source: 'photo' },
    ], { sources: { ...sources, photo: { type: 'image', url: 'memory://photo.png', coordinates: [[0, 1], [1, 1], [1, 0], [0, 0]] } } } as Partial<StyleSpecification>),
  );
  assert.deepEqual(compiled.warnings, ['fill-extrusion-pattern', 'raster-layer-blend', 'image source']);
});

test('line-gradient is unsupported; the properties we draw are not warned about', () => {
  const lines = { type: 'geojson', data: { type: 'FeatureCollection', features: [] }, lineMetrics: true };
  const compiled = compileStyle(
    style([
      {
        id: 'a',
        type: 'line',
        source: 'lines',
        layout: { 'line-cap': 'round', 'line-join': 'bevel' },
        paint: { 'line-gradient': ['interpolate', ['linear'], ['line-progress'], 0, 'red', 1, 'blue'], 'line-dasharray': [2, 1], 'line-offset': 2 },
      },
      { id: 'b', type: 'circle', source: 'v', 'source-layer': 'x', paint: { 'circle-pitch-scale': 'viewport', 'circle-blur': 1 } },
      { id: 'c', type: 'fill', source: 'v', 'source-layer': 'x', paint: { 'fill-pattern': 'dots' } },
      { id: 'd', type: 'line', source: 'v', 'source-layer': 'x', paint: { 'line-pattern': 'arrow' } },
      { id: 'e', type: 'background', paint: { 'background-pattern': 'paper' } },
    ], { sources: { ...sources, lines } } as Partial<StyleSpecification>),
  );
  assert.deepEqual(compiled.warnings, ['line-gradient']);
});

test('an invalid style throws an Error saying what is wrong', () => {
  assert.throws(() => compileStyle(style([{ id: 'a', type: 'fill', source: 'missing', 'source-layer': 'x' }])), /Invalid style: .*source "missing" not found/);
  assert.throws(() => compileStyle(style([{ id: 'a', type: 'fill', source: 'v', 'source-layer': 'x', paint: { 'fill-color': 42 } }])), /Invalid style: .*fill-color/);
  assert.throws(() => compileStyle({ version: 7, sources: {}, layers: [] } as unknown as StyleSpecification), /Invalid style/);
});

test('paint properties default to the spec, and fill-outline-color to the fill colour', () => {
  const compiled = compileStyle(style([{ id: 'a', type: 'fill', source: 'v', 'source-layer': 'x', paint: { 'fill-color': 'red' } }]));
  const layer = compiled.layers[0]!;
  const outline = layer.paint['fill-outline-color']!.evaluate({ zoom: 3 });
  assert.deepEqual([outline.r, outline.g, outline.b, outline.a], [1, 0, 0, 1]);
  assert.equal(layer.paint['fill-opacity']!.evaluate({ zoom: 3 }), 1);
  assert.equal(layer.paint['fill-antialias']!.evaluate({ zoom: 3 }), true);
});

test('visibility may come from the style state through a global-state expression', () => {
  const compiled = compileStyle(
    style(
      [
        { id: 'shown', type: 'background' },
        { id: 'hidden', type: 'background', layout: { visibility: 'none' } },
        { id: 'stateful', type: 'background', layout: { visibility: ['case', ['global-state', 'night'], 'visible', 'none'] } },
      ],
      { state: { night: { default: false } } } as Partial<StyleSpecification>,
    ),
  );
  assert.deepEqual(compiled.layers.map((layer) => layer.visible()), [true, false, false]);
});

test('a terrain or a globe projection is listed as unsupported', () => {
  const compiled = compileStyle(
    style([], { sources: { ...sources, dem: { type: 'raster-dem', tiles: ['memory://{z}/{x}/{y}'] } }, terrain: { source: 'dem' }, projection: { type: 'globe' } } as Partial<StyleSpecification>),
  );
  assert.deepEqual(compiled.warnings, ['terrain', 'projection']);
});
