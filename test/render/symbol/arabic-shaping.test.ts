import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyArabicShaping } from '../../../src/render/symbol/arabic-shaping.js';
import { icuRtl } from './icu-rtl.js';

const codepoints = (text: string) => [...text].map((char) => char.codePointAt(0)!.toString(16));

/** Capitals and streets, with hamza carriers, taa marbuta, lam-alef pairs and vowel marks. */
const NAMES = [
  'القاهرة', 'الرياض', 'بغداد', 'دمشق', 'عمّان', 'بيروت', 'الخرطوم', 'الجزائر', 'تونس', 'طرابلس', 'الرباط', 'مسقط',
  'الدوحة', 'أبو ظبي', 'الكويت', 'المنامة', 'صنعاء', 'نواكشوط', 'القدس', 'حلب', 'الإسكندرية', 'مكة المكرمة', 'جدة',
  'البصرة', 'الموصل', 'أربيل', 'الأردن', 'لاهور', 'إسطنبول', 'طهران', 'كابل', 'شارع الملك فيصل', 'بَيْت', 'مُحَمَّد', 'لا',
];

test('Arabic letters take the same shapes as ICU u_shapeArabic gives them', async () => {
  const icu = await icuRtl();
  for (const name of NAMES) assert.deepEqual(codepoints(applyArabicShaping(name)), codepoints(icu.applyArabicShaping(name)), name);
});

test('a letter joined on both sides takes its medial form, and the word ends in a final one', () => {
  // beh (initial), yeh (medial), teh (final)
  assert.deepEqual(codepoints(applyArabicShaping('بيت')), ['fe91', 'fef4', 'fe96']);
});

test('lam then alef becomes one ligature, isolated at a word start and final after a joining letter', () => {
  assert.deepEqual(codepoints(applyArabicShaping('لا')), ['fefb']);
  assert.deepEqual(codepoints(applyArabicShaping('سلام')), ['feb3', 'fefc', 'fee1']);
});

test('vowel marks between two letters do not stop them joining', () => {
  const shaped = [...applyArabicShaping('بَيت')];
  assert.equal(shaped[0]!.codePointAt(0), 0xfe91, 'beh stays initial across its fatha');
});

test('text without Arabic is returned as it is', () => {
  for (const text of ['Zürich', 'ירושלים', '東京', '']) assert.equal(applyArabicShaping(text), text);
});
