import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildSprite } from '../../../src/tools/sprite/build.js';
import { signedDistanceField } from '../../../src/render/sprite/sdf.js';
import { loadSprite } from '../../../src/render/sprite/sprite.js';
import { tempDir } from '../../scratch.js';

const square = (size: number, color: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}"><rect width="${size}" height="${size}" fill="${color}"/></svg>`;

test('a folder of SVGs becomes a 1x and a @2x sprite that loads back with every image', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'red.svg'), square(10, '#ff0000'));
  writeFileSync(path.join(dir, 'blue.svg'), square(6, '#0000ff'));
  writeFileSync(path.join(dir, 'box.svg'), square(12, '#00ff00'));
  writeFileSync(path.join(dir, 'box.json'), JSON.stringify({ stretchX: [[2, 10]], content: [2, 2, 10, 10], textFitWidth: 'stretchOnly' }));
  const out = path.join(tempDir(), 'nested', 'sprite');
  const built = await buildSprite(dir, out);
  assert.equal(built.images, 3);
  assert.deepEqual(built.files.map((file) => path.basename(file)), ['sprite.json', 'sprite.png', 'sprite@2x.json', 'sprite@2x.png']);

  const index = JSON.parse(readFileSync(`${out}@2x.json`, 'utf8')) as Record<string, { width: number; pixelRatio: number; stretchX?: number[][] }>;
  assert.deepEqual(Object.keys(index), ['blue', 'box', 'red']);
  assert.deepEqual([index.red!.width, index.red!.pixelRatio], [20, 2]);
  assert.deepEqual(index.box!.stretchX, [[4, 20]]);

  for (const ratio of [1, 2]) {
    const { images, errors } = await loadSprite(out, ratio);
    assert.deepEqual(errors, []);
    const red = images.image('red')!;
    assert.deepEqual([red.width, red.pixelRatio, red.image.width], [10, ratio, 10 * ratio]);
    assert.deepEqual([...red.image.getContext('2d').getImageData(5, 5, 1, 1).data], [255, 0, 0, 255]);
    const box = images.image('box')!;
    assert.deepEqual(box.content, [2 * ratio, 2 * ratio, 10 * ratio, 10 * ratio]);
    assert.equal(box.textFitWidth, 'stretchOnly');
  }
});

test('an SDF image is stored as a distance field in alpha, grown for halos', async () => {
  const dir = tempDir();
  writeFileSync(path.join(dir, 'dot.svg'), square(10, '#000000'));
  writeFileSync(path.join(dir, 'dot.json'), '{"sdf": true}');
  const out = path.join(tempDir(), 'sprite');
  await buildSprite(dir, out);
  const dot = (await loadSprite(out, 1)).images.image('dot')!;
  assert.equal(dot.sdf, true);
  assert.equal(dot.width, 18);
  const alpha = (x: number, y: number) => dot.image.getContext('2d').getImageData(x, y, 1, 1).data[3]!;
  assert.equal(alpha(9, 9), 255, 'deep inside');
  assert.ok(alpha(9, 0) < alpha(9, 2) && alpha(9, 2) < alpha(9, 4), 'falling outward');
  assert.ok(alpha(0, 0) < 40, `low in the corner, got ${alpha(0, 0)}`);
  // The square's edge lies between the last pixel outside (row 3) and the first inside (row 4).
  assert.ok(Math.abs((alpha(9, 3) + alpha(9, 4)) / 2 - 192) <= 3, `edge at 192, got ${alpha(9, 3)} and ${alpha(9, 4)}`);
});

test('a distance field falls by 255/radius per pixel from 192 at the edge', () => {
  // A 4 × 4 square in an 8-px row: the edge between pixels 1 and 2.
  const mask = new Uint8Array(8 * 8);
  for (let y = 2; y < 6; y++) for (let x = 2; x < 6; x++) mask[y * 8 + x] = 255;
  const field = signedDistanceField(mask, 8, 8, 0, 8);
  const at = (x: number, y: number) => field.data[y * field.width + x]!;
  // Pixel 1's centre is 1 px outside the edge; pixel 0's, 2 px (the mask's edge sits half a pixel past the last ink centre).
  assert.equal(at(1, 3), Math.round(255 - 255 * (1 / 8 + 0.25)));
  assert.equal(at(0, 3), Math.round(255 - 255 * (2 / 8 + 0.25)));
  assert.ok(at(3, 3) > 192);
});

test('bad input folders and options are errors naming the file', async () => {
  await assert.rejects(buildSprite(tempDir(), path.join(tempDir(), 's')), /has no \.svg files/);
  const dir = tempDir();
  writeFileSync(path.join(dir, 'a.svg'), square(4, '#000'));
  writeFileSync(path.join(dir, 'a.json'), '{"sdf": true, "colour": 1}');
  await assert.rejects(buildSprite(dir, path.join(tempDir(), 's')), /a\.json: unknown colour/);
  writeFileSync(path.join(dir, 'a.json'), '{"stretchX": [[1]]}');
  await assert.rejects(buildSprite(dir, path.join(tempDir(), 's')), /"a" has a stretchX that is not a list/);
  writeFileSync(path.join(dir, 'a.json'), '{}');
  writeFileSync(path.join(dir, 'b.svg'), 'not an svg');
  await assert.rejects(buildSprite(dir, path.join(tempDir(), 's')), /b\.svg cannot be rasterised/);
});
