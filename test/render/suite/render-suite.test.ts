/**
 * The render-test suite: every case of test/fixtures/render drawn by our renderer and compared with
 * the reference MapLibre GL JS rendered (references.ts). Every case asserts its pixels:
 * - a case without text passes when at most its maxDiff (1 % unless its view.json says otherwise)
 *   of pixels differ beyond pixelmatch's threshold;
 * - a case with text passes when, at each pixelmatch threshold of TEXT_THRESHOLDS, the share of
 *   differing pixels is at most its recorded baseline (text-baselines.json, written only by
 *   `npm run render:baselines`) plus TEXT_MARGIN percentage points;
 * and a case with symbol layers also places the labels MapLibre placed (labels.json), each within
 * LABEL_TOLERANCE px. A failing case leaves actual, expected and diff images in
 * test-artifacts/render/<case>/.
 */

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { TileCache } from '../../../src/render/source/cache.js';
import { listCases } from './cases.js';
import { compareLabels, compareTextWithReference, compareWithReference, LABEL_TOLERANCE, TEXT_MARGIN, TEXT_THRESHOLDS } from './compare.js';
import { renderCase } from './render.js';
import { readTextBaselines, textBaselinesFile } from './text-baselines.js';

const cases = listCases();
const baselines = readTextBaselines();
const cache = new TileCache(64 * 1024 * 1024);
const passed: string[] = [];

after(() => {
  const share = cases.length === 0 ? 0 : (100 * passed.length) / cases.length;
  console.log(`render suite: ${passed.length} of ${cases.length} cases match MapLibre GL JS (${share.toFixed(1)} %)`);
});

for (const c of cases) {
  const { name, dir, maxDiff } = c;
  const pixelRule = c.text ? `pixels within their baseline + ${TEXT_MARGIN} points` : `all but ${maxDiff * 100} % of pixels`;
  const labelRule = c.labels ? `same labels within ${LABEL_TOLERANCE} px, ` : '';
  test(`${name} matches MapLibre GL JS (${labelRule}${pixelRule})`, async () => {
    const { pixels, width, height, labels } = await renderCase(c, cache);
    const problems = c.labels ? compareLabels(c.labels, labels) : [];
    if (c.text) {
      const result = await compareTextWithReference(dir, pixels, width, height, baselines[name]);
      const measured = TEXT_THRESHOLDS.map((t) => result.difference[String(t)]!.toFixed(2)).join(' / ');
      const recorded = baselines[name] ? TEXT_THRESHOLDS.map((t) => baselines[name]![String(t)]?.toFixed(2)).join(' / ') : 'none';
      console.log(`${name}: ${problems.length === 0 ? 'same labels' : `${problems.length} labels differ`}, ${measured} % of pixels differ at thresholds ${TEXT_THRESHOLDS.join(' / ')} (baseline ${recorded})`);
      problems.push(...result.failures.map((failure) => `pixels: ${failure}; see test-artifacts/render/${name}/`));
    } else {
      const result = await compareWithReference(dir, pixels, width, height);
      if (c.labels) console.log(`${name}: ${problems.length === 0 ? 'same labels' : `${problems.length} labels differ`}, ${(result.ratio * 100).toFixed(2)} % of pixels differ`);
      if (!result.pass) problems.push(`pixels: ${result.diffPixels} (${(result.ratio * 100).toFixed(2)} %) differ, more than ${maxDiff * 100} %; see test-artifacts/render/${name}/`);
    }
    assert.ok(problems.length === 0, `${name}:\n  ${problems.join('\n  ')}`);
    passed.push(name);
  });
}

test('text-baselines.json records a baseline for every case with text and for nothing else', () => {
  const textCases = cases.filter((c) => c.text).map((c) => c.name);
  const missing = textCases.filter((name) => !baselines[name]);
  const extra = Object.keys(baselines).filter((name) => !textCases.includes(name));
  assert.deepEqual({ missing, extra }, { missing: [], extra: [] }, `${textBaselinesFile}: run npm run render:baselines`);
});
