/**
 * drawSymbol: each label the placement placed leaves its ink inside the box where MapLibre's
 * layout puts it (ink.ts works the box out from the label's anchor, the font's advances and the
 * layout, not from the renderer), with the text colour and the halo colour both present, and no
 * ink lies outside the placed labels' boxes. A painter that draws nothing, drops the halo, draws a
 * label it did not place, or draws a point label a pixel or more away from its box fails (a line
 * label's glyphs sit about 3 px inside its box, so there it takes a larger shift).
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import type { LayerSpecification, StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import { renderMap } from '../../../src/render/renderer.js';
import { compileStyle } from '../../../src/render/style/style.js';
import type { ImageSet, SpriteImage } from '../../../src/render/sprite/sprite.js';
import type { PlacedLabel } from '../../../src/render/symbol/placement.js';
import { geojsonSource, sourceSpecs, view } from '../sources.js';
import type { TileSource } from '../../../src/render/source/source.js';
import { boxArea, iconBox, inkReport, textBox, type Box, type Rgb } from './ink.js';

const WHITE: [number, number, number, number] = [255, 255, 255, 255];
const TEXT: Rgb = [0, 0, 255];
const HALO: Rgb = [255, 0, 0];
const ICON: Rgb = [0, 160, 0];
const SIZE = 16;
const HALO_WIDTH = 2;

/** A solid 20 x 20 icon named "square" in the ICON colour. */
const square = createCanvas(20, 20);
square.getContext('2d').fillStyle = `rgb(${ICON.join(',')})`;
square.getContext('2d').fillRect(0, 0, 20, 20);
const squareIcon: SpriteImage = { id: 'square', image: square, width: 20, height: 20, pixelRatio: 1, sdf: false };
const images: ImageSet = { image: (id) => (id === 'square' ? squareIcon : undefined) };

function collection(list: [Geometry, Record<string, string | number>][]): FeatureCollection {
  return { type: 'FeatureCollection', features: list.map(([geometry, properties], i): Feature => ({ type: 'Feature', id: i + 1, properties, geometry })) };
}
const pointAt = (lon: number, lat: number): Geometry => ({ type: 'Point', coordinates: [lon, lat] });

async function draw(data: FeatureCollection, layer: Record<string, unknown>, pixelRatio: 1 | 2): Promise<{ canvas: Canvas; labels: PlacedLabel[] }> {
  const sources = { p: geojsonSource(data) };
  const style = {
    version: 8,
    sources: sourceSpecs(sources),
    layers: [{ id: 'background', type: 'background', paint: { 'background-color': '#ffffff' } }, { id: 'labels', type: 'symbol', source: 'p', ...layer } as LayerSpecification],
  } as StyleSpecification;
  const labels: PlacedLabel[] = [];
  const canvas = await renderMap(compileStyle(style), new Map(Object.entries(sources)), view(4, [0, 0], 384, 256, pixelRatio), { images, labels });
  return { canvas, labels };
}

const textLayout = (layout: Record<string, unknown> = {}) => ({ 'text-field': ['get', 'name'], 'text-font': ['Noto Sans Regular'], 'text-size': SIZE, ...layout });
const textPaint = { 'text-color': '#0000ff', 'text-halo-color': '#ff0000', 'text-halo-width': HALO_WIDTH };

/**
 * Asserts that each placed label's box holds at least `share` of its area in each of `colors`
 * (text, then halo or icon), and that nothing but the background lies outside the boxes.
 */
function assertInk(canvas: Canvas, pixelRatio: number, placed: { label: PlacedLabel; box: Box }[], colors: { name: string; rgb: Rgb; share: number }[]): void {
  assert.ok(placed.length > 0, 'no label placed');
  const report = inkReport(canvas, pixelRatio, placed.map((p) => p.box), colors.map((c) => c.rgb), WHITE);
  const problems: string[] = [];
  placed.forEach(({ label, box }, i) => {
    const area = boxArea(box, pixelRatio);
    colors.forEach((color, c) => {
      const count = report.inBoxes[i]![c]!;
      if (count < color.share * area) {
        problems.push(`${label.text ? `"${label.text}"` : `[${label.icon}]`} at ${label.x.toFixed(1)},${label.y.toFixed(1)}: ${count} ${color.name} pixels in its box of ${Math.round(area)}, want at least ${Math.ceil(color.share * area)}`);
      }
    });
  });
  if (report.outside > 0) problems.push(`${report.outside} pixels of ink outside the placed labels' boxes, e.g. at ${report.outsideSamples.join(' ')}`);
  assert.deepEqual(problems, []);
}

const NAMES = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot', 'Golf', 'Hotel', 'India'];

for (const pixelRatio of [1, 2] as const) {
  test(`@${pixelRatio}x: each placed point label has its text and halo inside its box, and an unplaced one leaves no ink`, async () => {
    // A 3 x 3 grid, and "Overlap" on top of "Echo": one of the two is not placed.
    const points = NAMES.map((name, i): [Geometry, Record<string, string>] => [pointAt(((i % 3) - 1) * 6, (Math.floor(i / 3) - 1) * 5), { name }]);
    const { canvas, labels } = await draw(collection([...points, [pointAt(0.4, 0.2), { name: 'Overlap' }]]), { layout: textLayout(), paint: textPaint }, pixelRatio);
    const placed = labels.filter((l) => l.textPlaced);
    assert.equal(placed.length, 9);
    assert.deepEqual(labels.filter((l) => !l.textPlaced).length, 1);
    const boxes = placed.map((label) => ({ label, box: textBox(label, { size: SIZE, haloWidth: HALO_WIDTH }) }));
    assertInk(canvas, pixelRatio, boxes, [
      { name: 'text', rgb: TEXT, share: 0.04 },
      { name: 'halo', rgb: HALO, share: 0.12 },
    ]);
  });
}

test('labels beside their anchor (text-anchor and text-offset) have their ink where the anchor puts them', async () => {
  const anchors = ['left', 'right', 'top', 'bottom', 'top-left', 'bottom-right'];
  const data = collection(anchors.map((anchor, i) => [pointAt(((i % 3) - 1) * 5, (Math.floor(i / 3) - 0.5) * 8), { name: NAMES[i]!, anchor }]));
  const { canvas, labels } = await draw(data, { layout: textLayout({ 'text-anchor': ['get', 'anchor'], 'text-offset': [0.5, 0.25] }), paint: textPaint }, 1);
  const placed = labels.filter((l) => l.textPlaced);
  assert.equal(placed.length, anchors.length);
  const boxes = placed.map((label) => ({ label, box: textBox(label, { size: SIZE, anchor: anchors[NAMES.indexOf(label.text)], offset: [0.5, 0.25], haloWidth: HALO_WIDTH }) }));
  assertInk(canvas, 1, boxes, [
    { name: 'text', rgb: TEXT, share: 0.04 },
    { name: 'halo', rgb: HALO, share: 0.12 },
  ]);
});

test('a label along a horizontal line has its text and halo centred on its anchor', async () => {
  // Each line within one tile (the tile edges at this zoom are at 0° and ±22.5°), so each has one centre.
  const line = (lat: number): Geometry => ({ type: 'LineString', coordinates: [[1, lat], [9, lat]] });
  const data = collection([[line(4), { name: 'Riverside Road' }], [line(-4), { name: 'Harbour Street' }]]);
  const { canvas, labels } = await draw(data, { layout: textLayout({ 'symbol-placement': 'line-center' }), paint: textPaint }, 1);
  const placed = labels.filter((l) => l.textPlaced);
  assert.deepEqual(placed.map((l) => l.text).sort(), ['Harbour Street', 'Riverside Road']);
  const boxes = placed.map((label) => ({ label, box: textBox(label, { size: SIZE, haloWidth: HALO_WIDTH }) }));
  assertInk(canvas, 1, boxes, [
    { name: 'text', rgb: TEXT, share: 0.04 },
    { name: 'halo', rgb: HALO, share: 0.12 },
  ]);
});

for (const pixelRatio of [1, 2] as const) {
  test(`@${pixelRatio}x: each placed icon fills its box, and an unplaced one leaves no ink`, async () => {
    // Three icons in a row, and one just beside the middle one, which collides with it.
    const data = collection([pointAt(-6, 0), pointAt(0, 0), pointAt(6, 0), pointAt(0.5, 0.3)].map((geometry, i) => [geometry, { name: `icon ${i}` }]));
    const { canvas, labels } = await draw(data, { layout: { 'icon-image': 'square', 'icon-size': 1.5 } }, pixelRatio);
    const placed = labels.filter((l) => l.iconPlaced);
    assert.equal(placed.length, 3);
    assert.equal(labels.length, 4);
    const boxes = placed.map((label) => ({ label, box: iconBox(label, 20, 20, 1.5) }));
    assertInk(canvas, pixelRatio, boxes, [{ name: 'icon', rgb: ICON, share: 0.8 }]);
  });
}

test('a label drawn again in a view moved by part of a pixel is drawn as afresh: its halo follows it within its pixel', async () => {
  // The same labels at the same zoom (the same glyph layouts, so the halos drawn for the first view
  // are at hand for the second) in a view moved by a third of a pixel, against that view drawn from
  // a fresh source.
  const data = collection(NAMES.slice(0, 4).map((name, i): [Geometry, Record<string, string>] => [pointAt(((i % 2) - 0.5) * 6, (Math.floor(i / 2) - 0.5) * 5), { name }]));
  const layers = (sources: Record<string, TileSource>) =>
    compileStyle({
      version: 8,
      sources: sourceSpecs(sources),
      layers: [
        { id: 'background', type: 'background', paint: { 'background-color': '#ffffff' } },
        { id: 'labels', type: 'symbol', source: 'p', layout: textLayout(), paint: { ...textPaint, 'text-halo-blur': 0.5 } } as unknown as LayerSpecification,
      ],
    } as StyleSpecification);
  const pixels = async (sources: Record<string, TileSource>, style: ReturnType<typeof compileStyle>, lon: number) => {
    const canvas = await renderMap(style, new Map(Object.entries(sources)), view(4, [lon, 0], 384, 256, 1));
    return canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  };
  // 8192 px around the world at zoom 4.
  const third = 360 / 8192 / 3;
  // Tiles kept between renders, as the tile cache keeps them, and with them their label layouts.
  const source = geojsonSource(data);
  const tiles = new Map<string, ReturnType<TileSource['getTile']>>();
  const read = source.getTile.bind(source);
  source.getTile = (z, x, y) => tiles.get(`${z}/${x}/${y}`) ?? tiles.set(`${z}/${x}/${y}`, read(z, x, y)).get(`${z}/${x}/${y}`)!;
  const warm = { p: source };
  const warmStyle = layers(warm);
  await pixels(warm, warmStyle, 0);
  const moved = await pixels(warm, warmStyle, third);
  const fresh = { p: geojsonSource(data) };
  const afresh = await pixels(fresh, layers(fresh), third);
  let differing = 0;
  for (let i = 0; i < moved.length; i++) if (moved[i] !== afresh[i]) differing++;
  assert.equal(differing, 0, `${differing} bytes differ from the moved view drawn afresh`);
});

test('a kept halo is put where its label is, to a fraction of a pixel: views moved by quarters of a pixel move it by as much', async () => {
  // The halo alone (transparent text), drawn once and kept: the later views take it from the cache.
  const data = collection([[pointAt(0, 0), { name: 'Halo' }]]);
  const source = geojsonSource(data);
  const tiles = new Map<string, ReturnType<TileSource['getTile']>>();
  const read = source.getTile.bind(source);
  source.getTile = (z, x, y) => tiles.get(`${z}/${x}/${y}`) ?? tiles.set(`${z}/${x}/${y}`, read(z, x, y)).get(`${z}/${x}/${y}`)!;
  const sources = { p: source };
  const style = compileStyle({
    version: 8,
    sources: sourceSpecs(sources),
    layers: [
      { id: 'background', type: 'background', paint: { 'background-color': '#ffffff' } },
      { id: 'labels', type: 'symbol', source: 'p', layout: textLayout(), paint: { ...textPaint, 'text-color': 'rgba(0, 0, 255, 0)' } } as unknown as LayerSpecification,
    ],
  } as StyleSpecification);
  /** The halo's centre across the image (device px): the mean x weighted by how red each pixel is. */
  const centreX = async (lon: number) => {
    const canvas = await renderMap(style, new Map(Object.entries(sources)), view(4, [lon, 0], 384, 256, 1));
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let sum = 0;
    let weight = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      const red = 255 - pixels[i + 1]!;
      sum += red * ((i / 4) % canvas.width);
      weight += red;
    }
    assert.ok(weight > 0, 'no halo drawn');
    return sum / weight;
  };
  // 8192 px around the world at zoom 4: the view moved east by a quarter of a pixel moves the label west by as much.
  const quarter = 360 / 8192 / 4;
  const start = await centreX(0);
  for (const k of [1, 2, 3, 4, 6]) {
    const moved = await centreX(k * quarter);
    assert.ok(Math.abs(start - moved - k / 4) < 0.05, `moved by ${k} quarters of a pixel, the halo moved ${(start - moved).toFixed(3)} px`);
  }
});
