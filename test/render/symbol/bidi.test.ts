import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containsRtlText, visualLines } from '../../../src/render/symbol/bidi.js';
import { applyArabicShaping } from '../../../src/render/symbol/arabic-shaping.js';
import { icuRtl } from './icu-rtl.js';

const MIXED = [
  'ירושלים', 'Tel Aviv תל אביב 2024', 'Cairo القاهرة 12', 'שלום (עולם)', 'رقم 123 و 456', 'abc אבג def', 'A (ב) C', '1. שלום',
  applyArabicShaping('مكتبة الإسكندرية الكبرى'), applyArabicShaping('شارع الملك فيصل'),
];

test('lines come out in the visual order ICU ubidi gives, whole and broken at a space', async () => {
  const icu = await icuRtl();
  for (const text of MIXED) {
    const space = text.indexOf(' ');
    for (const breaks of space > 0 ? [[], [space + 1]] : [[]]) {
      assert.deepEqual(
        visualLines(text, breaks).map((line) => line.text),
        icu.processBidirectionalText(text, breaks),
        `${text} broken at ${breaks.join() || 'nothing'}`,
      );
    }
  }
});

test('a right-to-left word is reversed, its brackets mirrored', () => {
  assert.deepEqual(visualLines('אבג', []).map((line) => line.text), ['גבא']);
  assert.deepEqual(visualLines('א(ב)', []).map((line) => line.text), ['(ב)א']);
});

test('each drawn code unit knows the logical code unit it came from', () => {
  const [line] = visualLines('ab אב', []);
  assert.equal(line!.text, 'ab בא');
  assert.deepEqual(line!.sourceIndices, [0, 1, 2, 4, 3]);
});

test('a paragraph separator always ends a line', () => {
  assert.equal(visualLines('אב\u2029גד', []).length, 2);
});

test('only text in a right-to-left script counts as right-to-left', () => {
  assert.ok(containsRtlText('Tel Aviv תל אביב'));
  assert.ok(containsRtlText('القاهرة'));
  assert.ok(!containsRtlText('Zürich 東京 Αθήνα'));
});
