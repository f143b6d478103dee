/**
 * text-baselines.json: for each render case with text, the percentage of its pixels that differed
 * from MapLibre's expected.png at each of TEXT_THRESHOLDS when it was recorded. The render suite
 * only reads it; `npm run render:baselines [case…]` (record-baselines.ts) measures and writes it,
 * so that a change of the recorded difference is a reviewed change of this file.
 */

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fixturesDir } from './cases.js';
import { TEXT_MARGIN, TEXT_THRESHOLDS, type TextDifference } from './compare.js';

export const textBaselinesFile = path.join(fixturesDir, 'text-baselines.json');

const ABOUT =
  'Per render case with text: the percentage of pixels that differ from MapLibre\'s expected.png at each pixelmatch ' +
  `threshold (anti-aliased pixels counted), as measured when recorded by npm run render:baselines. The render suite allows each + ${TEXT_MARGIN} points.`;

/** The recorded baselines by case name; none when the file does not exist. */
export function readTextBaselines(): Record<string, TextDifference> {
  if (!existsSync(textBaselinesFile)) return {};
  const file = JSON.parse(readFileSync(textBaselinesFile, 'utf8')) as { cases?: Record<string, TextDifference> };
  return file.cases ?? {};
}

/** Writes the baselines, one case per line in name order, percentages to two decimals. */
export function writeTextBaselines(baselines: Record<string, TextDifference>): void {
  const lines = Object.keys(baselines)
    .sort()
    .map((name) => {
      const values = TEXT_THRESHOLDS.map((threshold) => `"${threshold}": ${round(baselines[name]![String(threshold)]!).toFixed(2)}`);
      return `    ${JSON.stringify(name)}: { ${values.join(', ')} }`;
    });
  const text = `{\n  "about": ${JSON.stringify(ABOUT)},\n  "cases": {\n${lines.join(',\n')}\n  }\n}\n`;
  JSON.parse(text);
  writeFileSync(textBaselinesFile, text);
}

export function round(percent: number): number {
  return Math.round(percent * 100) / 100;
}
