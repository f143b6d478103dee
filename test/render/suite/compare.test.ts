import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import sharp from 'sharp';
import { artifactsDir, readCase } from './cases.js';
import { checkTextDifference, compareTextWithReference, compareWithReference, TEXT_MARGIN, TEXT_THRESHOLDS } from './compare.js';

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

/** A baseline of `percent` at every threshold. */
const flat = (percent: number) => Object.fromEntries(TEXT_THRESHOLDS.map((t) => [String(t), percent]));

test('a text case passes while, at every threshold, at most its baseline + 0.5 points of pixels differ', async () => {
  // 6 of 1200 pixels is exactly 0.5 %; the red pixels differ from the gradient at every threshold.
  assert.equal(TEXT_MARGIN, 0.5);
  const within = await compareTextWithReference(caseDir, spoil(picture(), 6), width, height, flat(0));
  assert.deepEqual([within.pass, within.failures], [true, []]);
  assert.deepEqual(within.difference, flat(0.5));
  assert.equal(existsSync(artifacts), false);
  const beyond = await compareTextWithReference(caseDir, spoil(picture(), 7), width, height, flat(0));
  assert.equal(beyond.pass, false);
  assert.deepEqual(
    beyond.failures,
    TEXT_THRESHOLDS.map((t) => `at pixelmatch threshold ${t}, 0.58 % of pixels differ, more than the baseline 0.00 % + 0.5`),
  );
  for (const file of ['actual.png', 'expected.png', 'diff.png']) assert.ok(existsSync(path.join(artifacts, file)), file);
  // A higher baseline lets the same rendering pass.
  assert.equal((await compareTextWithReference(caseDir, spoil(picture(), 7), width, height, flat(0.1))).pass, true);
});

test('a text case counts anti-aliased pixels, which pixelmatch skips by default', async () => {
  // Black over white: a grey pixel on the edge between two flat areas looks like anti-aliasing to pixelmatch.
  const dir = mkdtempSync(path.join(tmpdir(), 'render-case-'));
  try {
    const halves = new Uint8Array(width * height * 4).fill(255);
    for (let y = 0; y < height; y++) for (let x = 20; x < width; x++) halves.set([0, 0, 0, 255], (y * width + x) * 4);
    writeFileSync(path.join(dir, 'view.json'), JSON.stringify({ center: [0, 0], zoom: 1, width, height }));
    writeFileSync(path.join(dir, 'expected.png'), await sharp(halves, { raw: { width, height, channels: 4 } }).png().toBuffer());
    const edged = halves.slice();
    edged.set([128, 128, 128, 255], (15 * width + 20) * 4);
    assert.equal((await compareWithReference(dir, edged, width, height)).diffPixels, 0);
    const text = await compareTextWithReference(dir, edged, width, height, flat(0));
    assert.deepEqual(text.difference, flat(100 / 1200));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(path.join(artifactsDir, path.basename(dir)), { recursive: true, force: true });
  }
});

test('a text case without a recorded baseline, or without one at some threshold, fails', async () => {
  const result = await compareTextWithReference(caseDir, picture(), width, height, undefined);
  assert.equal(result.pass, false);
  assert.match(result.failures.join(), /has no recorded pixel baseline: run npm run render:baselines -- /);
  const partial = checkTextDifference('case', flat(0), { '0.1': 0 });
  assert.deepEqual(partial, ['no baseline at pixelmatch threshold 0.05: run npm run render:baselines -- case', 'no baseline at pixelmatch threshold 0.2: run npm run render:baselines -- case']);
});

test('a case in which MapLibre shows text may not set maxDiff; a case whose labels show no text is held to it', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'render-case-'));
  try {
    const label = { layer: 'l', text: 'Alpha', icon: null, x: 1, y: 2, textPlaced: true, iconPlaced: false };
    writeFileSync(path.join(dir, 'view.json'), JSON.stringify({ center: [0, 0], zoom: 1, width, height, maxDiff: 0.02 }));
    writeFileSync(path.join(dir, 'labels.json'), JSON.stringify([{ ...label, textPlaced: false, icon: 'dot', iconPlaced: true }]));
    assert.deepEqual([readCase(dir).text, readCase(dir).maxDiff], [false, 0.02]);
    writeFileSync(path.join(dir, 'labels.json'), JSON.stringify([label]));
    assert.throws(() => readCase(dir), /maxDiff does not apply to a case with text/);
    writeFileSync(path.join(dir, 'view.json'), JSON.stringify({ center: [0, 0], zoom: 1, width, height }));
    assert.deepEqual([readCase(dir).text, readCase(dir).labels], [true, [label]]);
    writeFileSync(path.join(dir, 'view.json'), JSON.stringify({ center: [0, 0], zoom: 1, width, height, maxdiff: 0.02 }));
    assert.throws(() => readCase(dir), /view.json: want/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
