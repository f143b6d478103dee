/**
 * Records the pixel baselines of the render cases with text: renders each, measures how many of its
 * pixels differ from MapLibre's expected.png at each pixelmatch threshold, and writes the figures to
 * test/fixtures/render/text-baselines.json (see text-baselines.ts). The render suite never writes
 * that file; run this after a change that legitimately moves the figures, and commit the file.
 *
 *   npm run render:baselines [case…]
 *
 * Without names every case with text is recorded and the entries of cases without text are dropped.
 * A case whose labels differ from MapLibre's is not recorded (it fails the suite either way), so a
 * broken label placement cannot become a baseline.
 */

import { TileCache } from '../../../src/render/source/cache.js';
import { listCases } from './cases.js';
import { compareLabels, measureTextDifference, TEXT_THRESHOLDS, type TextDifference } from './compare.js';
import { renderCase } from './render.js';
import { readTextBaselines, round, writeTextBaselines } from './text-baselines.js';

const names = process.argv.slice(2);
const cases = listCases(names);
const withoutText = cases.filter((c) => !c.text).map((c) => c.name);
if (names.length > 0 && withoutText.length > 0) {
  console.error(`no text in ${withoutText.join(', ')}: those cases are held to their maxDiff, not to a baseline`);
  process.exit(1);
}
const cache = new TileCache(64 * 1024 * 1024);
const recorded = readTextBaselines();
const textCases = cases.filter((c) => c.text);
// Recording every case also drops the entries of cases that no longer exist or have no text.
const baselines = names.length > 0 ? recorded : Object.fromEntries(textCases.filter((c) => recorded[c.name]).map((c) => [c.name, recorded[c.name]!]));
for (const name of Object.keys(recorded).filter((name) => !(name in baselines))) console.log(`${name}: dropped, not a case with text`);
const show = (d: TextDifference | undefined) => (d ? TEXT_THRESHOLDS.map((t) => round(d[String(t)]!).toFixed(2)).join(' / ') : 'none');
let refused = 0;
for (const textCase of textCases) {
  const { pixels, width, height, labels } = await renderCase(textCase, cache);
  const mismatches = compareLabels(textCase.labels ?? [], labels);
  if (mismatches.length > 0) {
    console.error(`${textCase.name}: not recorded, its labels differ from MapLibre's: ${mismatches.join('; ')}`);
    refused++;
    continue;
  }
  const difference = await measureTextDifference(textCase.dir, pixels, width, height);
  console.log(`${textCase.name}: ${show(baselines[textCase.name])} -> ${show(difference)} % at thresholds ${TEXT_THRESHOLDS.join(' / ')}`);
  baselines[textCase.name] = difference;
}
writeTextBaselines(baselines);
if (refused > 0) process.exit(1);
