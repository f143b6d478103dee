/**
 * The render-test suite: every case of test/fixtures/render drawn by our renderer and compared with
 * the reference MapLibre GL JS rendered (references.ts). A case passes when at most its maxDiff
 * (1 % unless its view.json says otherwise) of pixels differ beyond pixelmatch's threshold; a
 * failing one leaves actual, expected and diff images in test-artifacts/render/<case>/.
 */

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadMap } from '../../../src/maps/registry.js';
import { renderMap } from '../../../src/render/renderer.js';
import { compileStyle } from '../../../src/render/style/style.js';
import { TileCache } from '../../../src/render/source/cache.js';
import { listCases } from './cases.js';
import { compareLabels, compareWithReference } from './compare.js';
import type { PlacedLabel } from '../../../src/render/symbol/placement.js';

const cases = listCases();
const cache = new TileCache(64 * 1024 * 1024);
const passed: string[] = [];

after(() => {
  const share = cases.length === 0 ? 0 : (100 * passed.length) / cases.length;
  console.log(`render suite: ${passed.length} of ${cases.length} cases match MapLibre GL JS (${share.toFixed(1)} %)`);
});

for (const renderCase of cases) {
  const { name, dir, view, maxDiff } = renderCase;
  test(`${name} matches MapLibre GL JS (same labels, or all but ${maxDiff * 100} % of pixels)`, async () => {
    // Map ids allow neither '@' nor '.': the id only names the map in errors.
    const map = await loadMap(name.replace(/[^A-Za-z0-9_-]/g, '_'), { style: path.relative(dir, renderCase.style) }, dir, { cache });
    try {
      const labels: PlacedLabel[] = [];
      const canvas = await renderMap(compileStyle(map.style), map.sources, view, { images: await map.images(view.pixelRatio), labels });
      const { width, height } = canvas;
      const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
      const result = await compareWithReference(dir, pixels, width, height);
      const percent = (result.ratio * 100).toFixed(2);
      const labelsFile = path.join(dir, 'labels.json');
      if (existsSync(labelsFile)) {
        // Text cases: the same labels placed within LABEL_TOLERANCE px; the pixel difference is reported.
        const mismatches = compareLabels(JSON.parse(readFileSync(labelsFile, 'utf8')) as PlacedLabel[], labels);
        console.log(`${name}: ${mismatches.length === 0 ? 'same labels' : mismatches.join('; ')}, ${percent} % of pixels differ`);
        assert.deepEqual(mismatches, []);
      } else {
        assert.ok(result.pass, `${result.diffPixels} pixels (${percent} %) differ; see test-artifacts/render/${name}/`);
      }
      passed.push(name);
    } finally {
      await map.close();
    }
  });
}
