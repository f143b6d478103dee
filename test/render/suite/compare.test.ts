import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';
import { artifactsDir } from './cases.js';
import { compareWithReference } from './compare.js';

const [width, height] = [40, 30];
const caseDir = mkdtempSync(path.join(tmpdir(), 'render-case-'));
after(() => {
  rmSync(caseDir, { recursive: true, force: true });
  rmSync(path.join(artifactsDir, path.basename(caseDir)), { recursive: true, force: true });
});

/** A horizontal gradient with a dark square, so that pixelmatch has edges to look at. */
function picture(): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const dark = x >= 10 && x < 20 && y >= 10 && y < 20;
      rgba.set(dark ? [20, 30, 40, 255] : [x * 6, 200, 255 - x * 6, 255], (y * width + x) * 4);
    }
  }
  return rgba;
}

/** Paints `count` pixels of the top row red. */
function spoil(rgba: Uint8Array, count: number): Uint8Array {
  const copy = rgba.slice();
  for (let x = 0; x < count; x++) copy.set([255, 0, 0, 255], x * 4);
  return copy;
}

writeFileSync(path.join(caseDir, 'view.json'), JSON.stringify({ center: [0, 0], zoom: 1, width, height, pixelRatio: 1, maxDiff: 0.02 }));
writeFileSync(path.join(caseDir, 'expected.png'), await sharp(picture(), { raw: { width, height, channels: 4 } }).png().toBuffer());
const artifacts = path.join(artifactsDir, path.basename(caseDir));

test('a rendering equal to the reference passes with no differing pixel and leaves no artefacts', async () => {
  const result = await compareWithReference(caseDir, picture(), width, height);
  assert.deepEqual([result.diffPixels, result.ratio, result.pass], [0, 0, true]);
  assert.equal(existsSync(artifacts), false);
});

test("differences up to the case's maxDiff pass, beyond it fail and leave actual, expected and diff images", async () => {
  // 24 of 1200 pixels is exactly 2 %.
  const within = await compareWithReference(caseDir, spoil(picture(), 24), width, height);
  assert.deepEqual([within.diffPixels, within.pass], [24, true]);
  const beyond = await compareWithReference(caseDir, spoil(picture(), 25), width, height);
  assert.deepEqual([beyond.diffPixels, beyond.ratio, beyond.pass], [25, 25 / 1200, false]);
  for (const file of ['actual.png', 'expected.png', 'diff.png']) assert.ok(existsSync(path.join(artifacts, file)), file);
  const diff = await sharp(beyond.diffPng).raw().toBuffer({ resolveWithObject: true });
  assert.deepEqual([diff.info.width, diff.info.height], [width, height]);
  assert.deepEqual([...diff.data.subarray(0, 3)], [255, 0, 0]);
});

test('a pass clears the artefacts an earlier failure left', async () => {
  await compareWithReference(caseDir, spoil(picture(), 200), width, height);
  assert.ok(existsSync(artifacts));
  await compareWithReference(caseDir, picture(), width, height);
  assert.equal(existsSync(artifacts), false);
});

test('a rendering of the wrong size is an error, not a failed comparison', async () => {
  await assert.rejects(compareWithReference(caseDir, new Uint8Array(20 * 30 * 4), 20, 30), /rendered 20x30, expected.png is 40x30/);
});
