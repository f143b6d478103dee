import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import type { LayerSpecification, StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { Feature, FeatureCollection } from 'geojson';
import { renderMap } from '../../../src/render/renderer.js';
import { compileStyle } from '../../../src/render/style/style.js';
import type { ImageSet, SpriteImage } from '../../../src/render/sprite/sprite.js';
import type { PlacedLabel } from '../../../src/render/symbol/placement.js';
import { TileCache, tileBytes } from '../../../src/render/source/cache.js';
import type { TileSource } from '../../../src/render/source/source.js';
import { symbolsBytes, type TileSymbol } from '../../../src/render/symbol/layout.js';
import { geojsonSource, MemorySource, point, sourceSpecs, vectorTile, view } from '../sources.js';

function points(...list: [number, number, Record<string, string | number>][]): FeatureCollection {
  return { type: 'FeatureCollection', features: list.map(([lon, lat, properties], i): Feature => ({ type: 'Feature', id: i + 1, properties, geometry: { type: 'Point', coordinates: [lon, lat] } })) };
}

/** A 20 × 20 square icon named "square". */
const squareIcon: SpriteImage = { id: 'square', image: createCanvas(20, 20), width: 20, height: 20, pixelRatio: 1, sdf: false };
const images: ImageSet = { image: (id) => (id === 'square' ? squareIcon : undefined) };

async function labels(data: FeatureCollection, layers: LayerSpecification[], zoom = 4): Promise<PlacedLabel[]> {
  const sources = { p: geojsonSource(data) };
  const style = { version: 8, sources: sourceSpecs(sources), layers } as StyleSpecification;
  const placed: PlacedLabel[] = [];
  await renderMap(compileStyle(style), new Map(Object.entries(sources)), view(zoom, [0, 0], 256, 256), { images, labels: placed });
  return placed;
}

const text = (id: string, layout: Record<string, unknown> = {}, filter?: unknown): LayerSpecification =>
  ({ id, type: 'symbol', source: 'p', ...(filter ? { filter } : {}), layout: { 'text-field': ['get', 'name'], 'text-font': ['Noto Sans Regular'], ...layout } }) as LayerSpecification;

const shown = (list: readonly PlacedLabel[]) => list.filter((l) => l.textPlaced || l.iconPlaced).map((l) => `${l.layer}:${l.text}`).sort();

test('of two overlapping labels the first placed shows; text-allow-overlap shows both', async () => {
  const data = points([0, 0, { name: 'Alpha' }], [0.3, 0, { name: 'Bravo' }]);
  assert.equal(shown(await labels(data, [text('t')])).length, 1);
  assert.deepEqual(shown(await labels(data, [text('t', { 'text-allow-overlap': true })])), ['t:Alpha', 't:Bravo']);
});

test('the upper layer places first, and text-ignore-placement lets the labels after it overlap it', async () => {
  const data = points([0, 0, { name: 'Upper', k: 'u' }], [0.3, 0, { name: 'Lower', k: 'l' }]);
  const upper = (layout: Record<string, unknown> = {}) => text('upper', layout, ['==', ['get', 'k'], 'u']);
  const lower = text('lower', {}, ['==', ['get', 'k'], 'l']);
  assert.deepEqual(shown(await labels(data, [lower, upper()])), ['upper:Upper']);
  assert.deepEqual(shown(await labels(data, [lower, upper({ 'text-ignore-placement': true })])), ['lower:Lower', 'upper:Upper']);
});

test('text and icon show together or not at all, unless the one that fits may show without the other (text-optional, icon-optional)', async () => {
  // MapLibre's style spec: text-optional "If true, icons will display without their corresponding
  // text when the text collides with other symbols and the icon does not"; icon-optional the same
  // for text without its icon; with neither, a symbol shows whole or not at all.
  const data = points([0, 0, { k: 'icon-blocker' }], [2.5, 0.4, { name: 'Blocker', k: 'text-blocker' }], [0, 0.4, { name: 'Label', k: 'label' }]);
  // An icon over the labelled symbol's icon, or a text over its text (it lies right of its point).
  const iconBlocker: LayerSpecification = { id: 'blocker', type: 'symbol', source: 'p', filter: ['==', ['get', 'k'], 'icon-blocker'], layout: { 'icon-image': 'square' } };
  const textBlocker = text('blocker', {}, ['==', ['get', 'k'], 'text-blocker']);
  const labelled = (layout: Record<string, unknown>) => text('labelled', { 'icon-image': 'square', 'text-anchor': 'left', 'text-offset': [2, 0], ...layout }, ['==', ['get', 'k'], 'label']);
  const state = async (blocker: LayerSpecification | null, layout: Record<string, unknown>) => {
    const placed = await labels(data, blocker ? [labelled(layout), blocker] : [labelled(layout)]);
    return placed.filter((l) => l.layer === 'labelled').map((l) => ({ text: l.textPlaced, icon: l.iconPlaced }));
  };
  const neither = {};
  const textOptional = { 'text-optional': true };
  const iconOptional = { 'icon-optional': true };
  const both = { 'text-optional': true, 'icon-optional': true };
  for (const layout of [neither, textOptional, iconOptional, both]) {
    assert.deepEqual(await state(null, layout), [{ text: true, icon: true }], `nothing in the way, ${JSON.stringify(layout)}`);
  }
  // The text collides, the icon fits.
  assert.deepEqual(await state(textBlocker, neither), [{ text: false, icon: false }]);
  assert.deepEqual(await state(textBlocker, textOptional), [{ text: false, icon: true }]);
  assert.deepEqual(await state(textBlocker, iconOptional), [{ text: false, icon: false }]);
  assert.deepEqual(await state(textBlocker, both), [{ text: false, icon: true }]);
  // The icon collides, the text fits.
  assert.deepEqual(await state(iconBlocker, neither), [{ text: false, icon: false }]);
  assert.deepEqual(await state(iconBlocker, textOptional), [{ text: false, icon: false }]);
  assert.deepEqual(await state(iconBlocker, iconOptional), [{ text: true, icon: false }]);
  assert.deepEqual(await state(iconBlocker, both), [{ text: true, icon: false }]);
});

test('a label near a tile seam is placed once, from the tile its anchor lies in', async () => {
  // At zoom 4 the view's centre (0, 0) is the corner of four tiles, whose buffers all hold the point.
  const placed = await labels(points([0.01, 0.01, { name: 'Seam' }]), [text('t')]);
  assert.deepEqual(placed.map((l) => l.text), ['Seam']);
});

test('a variable anchor falls back to the next anchor when the first collides', async () => {
  // Second lies just above First: hanging below its point (top anchor) it would cover First's text.
  const data = points([0, 0, { name: 'First' }], [0, 0.3, { name: 'Second' }]);
  const placed = await labels(data, [text('t', { 'text-variable-anchor': ['top', 'bottom'], 'symbol-sort-key': ['length', ['get', 'name']] })], 5);
  const anchors = Object.fromEntries(placed.map((l) => [l.text, l.anchor]));
  assert.deepEqual(anchors, { First: 'top', Second: 'bottom' });
});

test('a warm render of the same view places the same labels as the first', async () => {
  const sources = { p: geojsonSource(points([0, 0, { name: 'Alpha' }], [3, 2, { name: 'Bravo' }], [-3, -2, { name: 'Charlie' }])) };
  const style = compileStyle({ version: 8, sources: sourceSpecs(sources), layers: [text('t')] } as StyleSpecification);
  const runs: PlacedLabel[][] = [];
  for (let i = 0; i < 2; i++) {
    const placed: PlacedLabel[] = [];
    await renderMap(style, new Map(Object.entries(sources)), view(4, [0, 0], 256, 256), { images, labels: placed });
    runs.push(placed);
  }
  assert.deepEqual(runs[1], runs[0]);
  assert.equal(shown(runs[0]!).length, 3);
});

test('labels and the glyph layouts placed from them are counted with their tile in the tile cache, and dropped layouts taken off', async () => {
  const tile = vectorTile({ places: [point(2048, 2048, { name: 'Meridian' })] });
  const cache = new TileCache(64 * 1024 * 1024);
  const memory = new MemorySource(new Map([['0/0/0', tile]]));
  const source: TileSource = Object.assign(Object.create(memory) as MemorySource, { getTile: (z: number, x: number, y: number) => cache.get(`${z}/${x}/${y}`, () => memory.getTile(z, x, y)) });
  const sources = { v: source };
  const style = compileStyle({
    version: 8,
    sources: sourceSpecs(sources),
    layers: [{ id: 'places', type: 'symbol', source: 'v', 'source-layer': 'places', layout: { 'text-field': ['get', 'name'], 'text-font': ['Noto Sans Regular'], 'text-size': ['interpolate', ['linear'], ['zoom'], 0, 10, 1, 20] } }],
  } as StyleSpecification);
  const tiles = new Map(Object.entries(sources));
  const render = async (zoom: number) => {
    const placed: PlacedLabel[] = [];
    await renderMap(style, tiles, view(zoom), { labels: placed });
    assert.equal(placed.length, 1, `the label is drawn at zoom ${zoom}`);
    return cache.bytes;
  };
  const first = await render(0);
  // Another zoom of the same tile zoom: the same label layout, its glyphs laid out at another text size.
  const layoutBytes = (await render(0.2)) - first;
  assert.ok(layoutBytes > 0, 'a new glyph layout is counted');
  assert.ok(first >= tileBytes(tile) + symbolsBytes([{ text: 'Meridian' } as TileSymbol]) + layoutBytes, `the label's layout is counted: ${first} bytes`);
  // A label keeps its last few glyph layouts: past them, each new one replaces the oldest.
  const afterFew = await render(0.4).then(() => render(0.6)).then(() => render(0.8));
  assert.equal(afterFew, first + 3 * layoutBytes);
  assert.equal(await render(0.9).then(() => render(0.95)), afterFew, 'dropped layouts are taken off as new ones are counted');
});
