/**
 * Compares a rendering with a case's expected.png, the image MapLibre GL JS rendered.
 *
 * A case without text: pixelmatch at its default threshold (0.1, in YIQ space, anti-aliased pixels
 * ignored), and the case passes while the share of differing pixels is at most its maxDiff.
 *
 * A case with text: glyph edges legitimately differ (MapLibre draws signed distance fields, we
 * draw vector outlines), so the share of differing pixels is measured at each of TEXT_THRESHOLDS,
 * anti-aliased pixels counted (text is mostly anti-aliased edge, which pixelmatch would otherwise
 * skip), and at each it may exceed the case's recorded baseline (text-baselines.json) by at most
 * TEXT_MARGIN percentage points.
 *
 * A failure leaves actual.png, expected.png and diff.png in test-artifacts/render/<case>/ to look
 * at; a pass removes what an earlier failure left there.
 */

import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import { artifactsDir, readCase, type LabelLike } from './cases.js';

export interface Comparison {
  /** Pixels that differ beyond the threshold. */
  diffPixels: number;
  /** diffPixels over all pixels. */
  ratio: number;
  pass: boolean;
  /** pixelmatch's picture of the differences (red) over a faded expected image, as PNG. */
  diffPng: Buffer;
}

/**
 * `rgba` is the rendering of the case's view: width x height pixels (the view's size times its
 * pixel ratio), row-major, straight (not premultiplied) alpha, as canvas getImageData gives.
 */
export async function compareWithReference(caseDir: string, rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Promise<Comparison> {
  const renderCase = readCase(caseDir);
  const { expected, actual } = await readPair(caseDir, rgba, width, height);
  const diff = new Uint8Array(width * height * 4);
  const diffPixels = pixelmatch(expected, actual, diff, width, height);
  const ratio = diffPixels / (width * height);
  const pass = ratio <= renderCase.maxDiff;
  const diffPng = await png(diff, width, height);
  await keepArtifacts(caseDir, pass, actual, diffPng, width, height);
  return { diffPixels, ratio, pass, diffPng };
}

/** pixelmatch thresholds at which a text case's difference is measured, recorded and checked. */
export const TEXT_THRESHOLDS = [0.05, 0.1, 0.2] as const;
/** How many percentage points a text case's difference may exceed its baseline at each threshold. */
export const TEXT_MARGIN = 0.5;

/** Percentage of pixels (0-100) that differ, by threshold ("0.05", "0.1", "0.2"). */
export type TextDifference = Record<string, number>;

export interface TextComparison {
  difference: TextDifference;
  /** One line per threshold beyond its baseline + TEXT_MARGIN (or without a baseline); empty on a pass. */
  failures: string[];
  pass: boolean;
  /** pixelmatch's picture of the differences at threshold 0.1, anti-aliased pixels counted, as PNG. */
  diffPng: Buffer;
}

/** Measures a text case's difference from its reference at each of TEXT_THRESHOLDS. */
export async function measureTextDifference(caseDir: string, rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Promise<TextDifference> {
  const { expected, actual } = await readPair(caseDir, rgba, width, height);
  return textDifference(expected, actual, width, height);
}

function textDifference(expected: Uint8Array, actual: Uint8Array, width: number, height: number, diff?: Uint8Array): TextDifference {
  const difference: TextDifference = {};
  for (const threshold of TEXT_THRESHOLDS) {
    const pixels = pixelmatch(expected, actual, threshold === 0.1 ? diff : undefined, width, height, { threshold, includeAA: true });
    difference[String(threshold)] = (100 * pixels) / (width * height);
  }
  return difference;
}

/**
 * Compares a text case with its reference against `baseline`, its recorded difference; a missing
 * baseline fails (record one with `npm run render:baselines -- <case>`).
 */
export async function compareTextWithReference(
  caseDir: string,
  rgba: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
  baseline: TextDifference | undefined,
): Promise<TextComparison> {
  const { expected, actual } = await readPair(caseDir, rgba, width, height);
  const diff = new Uint8Array(width * height * 4);
  const difference = textDifference(expected, actual, width, height, diff);
  const failures = checkTextDifference(path.basename(caseDir), difference, baseline);
  const pass = failures.length === 0;
  const diffPng = await png(diff, width, height);
  await keepArtifacts(caseDir, pass, actual, diffPng, width, height);
  return { difference, failures, pass, diffPng };
}

/** What in `difference` exceeds `baseline` + TEXT_MARGIN, one line per threshold. */
export function checkTextDifference(name: string, difference: TextDifference, baseline: TextDifference | undefined): string[] {
  if (!baseline) return [`${name} has no recorded pixel baseline: run npm run render:baselines -- ${name}`];
  const failures: string[] = [];
  for (const threshold of TEXT_THRESHOLDS) {
    const key = String(threshold);
    const measured = difference[key]!;
    const allowed = baseline[key];
    if (allowed === undefined) failures.push(`no baseline at pixelmatch threshold ${key}: run npm run render:baselines -- ${name}`);
    else if (measured > allowed + TEXT_MARGIN + 1e-9) {
      failures.push(`at pixelmatch threshold ${key}, ${measured.toFixed(2)} % of pixels differ, more than the baseline ${allowed.toFixed(2)} % + ${TEXT_MARGIN}`);
    }
  }
  return failures;
}

/** The case's expected.png and the rendering, both as RGBA bytes of the same size. */
async function readPair(caseDir: string, rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Promise<{ expected: Uint8Array; actual: Uint8Array }> {
  const name = path.basename(caseDir);
  const { data, info } = await sharp(path.join(caseDir, 'expected.png')).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) {
    throw new Error(`${name}: rendered ${width}x${height}, expected.png is ${info.width}x${info.height}`);
  }
  if (rgba.length !== width * height * 4) throw new Error(`${name}: ${rgba.length} bytes is not ${width}x${height} RGBA`);
  return { expected: new Uint8Array(data.buffer, data.byteOffset, data.length), actual: new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.length) };
}

async function keepArtifacts(caseDir: string, pass: boolean, actual: Uint8Array, diffPng: Buffer, width: number, height: number): Promise<void> {
  const artifacts = path.join(artifactsDir, path.basename(caseDir));
  rmSync(artifacts, { recursive: true, force: true });
  if (pass) return;
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(path.join(artifacts, 'actual.png'), await png(actual, width, height));
  writeFileSync(path.join(artifacts, 'diff.png'), diffPng);
  copyFileSync(path.join(caseDir, 'expected.png'), path.join(artifacts, 'expected.png'));
}

function png(rgba: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** How far (CSS px) a label's anchor may be from MapLibre's. */
export const LABEL_TOLERANCE = 3;

/**
 * The differences between the labels MapLibre placed (labels.json) and ours: each shown label
 * (text or icon placed) of one side that the other side does not show with the same layer, text
 * and icon within LABEL_TOLERANCE px. Empty when both place the same set.
 */
export function compareLabels(expected: readonly LabelLike[], actual: readonly LabelLike[]): string[] {
  const shown = (labels: readonly LabelLike[]) => labels.filter((l) => l.textPlaced || l.iconPlaced);
  const unmatched = (from: readonly LabelLike[], to: LabelLike[], what: string) => {
    const out: string[] = [];
    for (const label of from) {
      const i = to.findIndex(
        (o) => o.layer === label.layer && o.text === label.text && o.icon === label.icon && Math.hypot(o.x - label.x, o.y - label.y) <= LABEL_TOLERANCE,
      );
      if (i >= 0) to.splice(i, 1);
      else out.push(`${what} ${label.layer} "${label.text}"${label.icon ? ` [${label.icon}]` : ''} at ${label.x.toFixed(1)},${label.y.toFixed(1)}`);
    }
    return out;
  };
  const ours = shown(actual);
  const theirs = shown(expected);
  return [...unmatched(theirs, [...ours], 'missing'), ...unmatched(ours, [...theirs], 'extra')];
}
