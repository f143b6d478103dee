import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FontGlyph } from '../../../src/render/glyphs/catalog.js';
import { fitIconToText, ONE_EM, shapeIcon, shapeText, type GlyphSource, type ShapeOptions, type Shaping, type TextSection } from '../../../src/render/symbol/shaping.js';

/** A monospace font: every glyph (spaces too) advances 10 glyph units. */
const ADVANCE = 10;
const mono: GlyphSource = {
  glyph: (_fontstack, codepoint): FontGlyph => ({
    codepoint,
    ascender: 0,
    path: null,
    metrics: { width: ADVANCE, height: ONE_EM, left: 0, top: 0, advance: ADVANCE },
  }),
};

const defaults: ShapeOptions = { maxWidth: Infinity, lineHeight: 1.2 * ONE_EM, anchor: 'center', justify: 'center', spacing: 0, offset: [0, 0] };

function section(text: string, scale = 1): TextSection {
  return { text, fontstack: ['Test Regular'], scale, color: null };
}

function shape(text: string | TextSection[], options: Partial<ShapeOptions> = {}): Shaping {
  const shaped = shapeText(mono, typeof text === 'string' ? [section(text)] : text, { ...defaults, ...options });
  assert.ok(shaped);
  return shaped;
}

function assertClose(actual: readonly number[], expected: readonly number[]): void {
  assert.equal(actual.length, expected.length);
  actual.forEach((value, i) => assert.ok(Math.abs(value - expected[i]!) < 1e-9, `${actual.join()} is not ${expected.join()}`));
}

function lineTexts(shaping: Shaping): string[] {
  return shaping.lines.map((line) => line.map((g) => String.fromCodePoint(g.glyph.codepoint)).join(''));
}

test('text within text-max-width stays on one line', () => {
  assert.deepEqual(lineTexts(shape('aa bb cc', { maxWidth: 100 })), ['aa bb cc']);
});

test('line breaking balances the lines where a greedy break would leave a short last line', () => {
  // 130 units in 2 lines aims at 65 per line: a greedy fill would give "aaaa bb cc" / "dd".
  assert.deepEqual(lineTexts(shape('aaaa bb cc dd', { maxWidth: 110 })), ['aaaa bb', 'cc dd']);
});

test('a newline always breaks the line, and the spaces at line ends are trimmed', () => {
  assert.deepEqual(lineTexts(shape('aa \n bb')), ['aa', 'bb']);
});

test('justification aligns the lines left, centre or right within the block', () => {
  const firstX = (justify: 'left' | 'center' | 'right') => shape('aaaa\nbb', { justify }).lines.map((line) => line[0]!.x);
  assert.deepEqual(firstX('left'), [-20, -20]);
  assert.deepEqual(firstX('center'), [-20, -10]);
  assert.deepEqual(firstX('right'), [-20, 0]);
});

test('the text anchor puts the block on the anchor by its side or corner', () => {
  const center = shape('abcd');
  assertClose([center.left, center.right, center.top, center.bottom], [-20, 20, -14.4, 14.4]);
  const topLeft = shape('abcd', { anchor: 'top-left', justify: 'left' });
  assertClose([topLeft.left, topLeft.top], [0, 0]);
  assert.equal(topLeft.lines[0]![0]!.x, 0);
  const bottomRight = shape('abcd', { anchor: 'bottom-right', justify: 'right' });
  assertClose([bottomRight.right, bottomRight.bottom], [0, 0]);
  assert.equal(bottomRight.lines[0]![3]!.x, -ADVANCE);
});

test('text-offset moves the block by the offset in glyph units', () => {
  const moved = shape('abcd', { offset: [12, -6] });
  assertClose([moved.left, moved.top], [-20 + 12, -14.4 - 6]);
});

test('letter spacing widens the line by the spacing between glyphs', () => {
  const spaced = shape('abcd', { spacing: 5, anchor: 'left', justify: 'left' });
  assert.deepEqual(spaced.lines[0]!.map((g) => g.x), [0, 15, 30, 45]);
  assert.equal(spaced.right - spaced.left, 4 * ADVANCE + 3 * 5);
});

test('each line is one line height below the one before', () => {
  const lines = shape('a\nb\nc').lines;
  assertClose(lines.map((line) => line[0]!.y - lines[0]![0]!.y), [0, 1.2 * ONE_EM, 2.4 * ONE_EM]);
});

test('format sections keep their scale and their index, and a larger section makes its line taller', () => {
  const mixed = shape([section('ab'), section('CD', 2)]);
  const glyphs = mixed.lines[0]!;
  assert.deepEqual(glyphs.map((g) => [g.scale, g.section]), [[1, 0], [1, 0], [2, 1], [2, 1]]);
  assert.deepEqual(glyphs.map((g) => g.x - glyphs[0]!.x), [0, 10, 20, 40]);
  // The smaller section sits on the bottom of the taller line.
  assertClose([glyphs[0]!.y - glyphs[2]!.y, mixed.bottom - mixed.top], [ONE_EM, 2 * 1.2 * ONE_EM]);
});

test('text with no glyph in any font shapes to nothing', () => {
  assert.equal(shapeText({ glyph: () => null }, [section('abc')], defaults), null);
});

test('an icon is shaped around the anchor by icon-anchor and icon-offset', () => {
  assert.deepEqual(shapeIcon(20, 10, [0, 0], 'center'), { left: -10, top: -5, right: 10, bottom: 5 });
  assert.deepEqual(shapeIcon(20, 10, [3, 4], 'bottom-left'), { left: 3, top: -6, right: 23, bottom: 4 });
});

test('icon-text-fit stretches the icon over the text plus padding on the fitted axes only', () => {
  const text = shape('abcd');
  const icon = shapeIcon(20, 10, [0, 0], 'center');
  const scale = 0.5;
  const both = fitIconToText(icon, text, 'both', [1, 2, 3, 4], [0, 0], scale);
  assertClose([both.left, both.right, both.top, both.bottom], [-14, 12, -8.2, 10.2]);
  const width = fitIconToText(icon, text, 'width', [1, 2, 3, 4], [0, 0], scale);
  assertClose([width.left, width.right, width.bottom - width.top], [-14, 12, 10]);
  const height = fitIconToText(icon, text, 'height', [1, 2, 3, 4], [0, 0], scale);
  assertClose([height.right - height.left, height.top, height.bottom], [20, -8.2, 10.2]);
});

test('right-to-left lines are broken in logical order, then drawn in visual order', () => {
  // Lines of at most 60 units (6 glyphs): "אבג דהו" breaks after the space; each line reversed.
  assert.deepEqual(lineTexts(shape('אבג דהו', { maxWidth: 60 })), ['גבא', 'והד']);
});

test('Arabic letters are drawn in their joined shapes, right to left', () => {
  // beh, yeh, teh: initial, medial and final forms, drawn from the last.
  assert.deepEqual(lineTexts(shape('بيت')).map((line) => [...line].map((char) => char.codePointAt(0)!.toString(16))), [['fe96', 'fef4', 'fe91']]);
});
