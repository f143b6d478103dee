/**
 * Compares a rendering with a case's expected.png: pixelmatch at its default threshold (0.1, in
 * YIQ space, anti-aliased pixels ignored), and the case passes while the share of differing pixels
 * is at most its maxDiff. A failure leaves actual.png, expected.png and diff.png in
 * test-artifacts/render/<case>/ to look at; a pass removes what an earlier failure left there.
 */

import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import { artifactsDir, readCase } from './cases.js';
import type { PlacedLabel } from '../../../src/render/symbol/placement.js';

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
  const expectedFile = path.join(caseDir, 'expected.png');
  const { data: expected, info } = await sharp(expectedFile).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) {
    throw new Error(`${renderCase.name}: rendered ${width}x${height}, expected.png is ${info.width}x${info.height}`);
  }
  if (rgba.length !== width * height * 4) throw new Error(`${renderCase.name}: ${rgba.length} bytes is not ${width}x${height} RGBA`);
  const actual = new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.length);
  const diff = new Uint8Array(width * height * 4);
  const diffPixels = pixelmatch(new Uint8Array(expected.buffer, expected.byteOffset, expected.length), actual, diff, width, height);
  const ratio = diffPixels / (width * height);
  const pass = ratio <= renderCase.maxDiff;
  const diffPng = await png(diff, width, height);
  const artifacts = path.join(artifactsDir, renderCase.name);
  rmSync(artifacts, { recursive: true, force: true });
  if (!pass) {
    mkdirSync(artifacts, { recursive: true });
    writeFileSync(path.join(artifacts, 'actual.png'), await png(actual, width, height));
    writeFileSync(path.join(artifacts, 'diff.png'), diffPng);
    copyFileSync(expectedFile, path.join(artifacts, 'expected.png'));
  }
  return { diffPixels, ratio, pass, diffPng };
}

function png(rgba: Uint8Array, width: number, height: number): Promise<Buffer> {
  return sharp(rgba, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** How far (CSS px) a label's anchor may be from MapLibre's. */
export const LABEL_TOLERANCE = 3;

/** A placed label of either side; MapLibre's labels.json records no anchor name. */
type LabelLike = Omit<PlacedLabel, 'anchor'>;

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
