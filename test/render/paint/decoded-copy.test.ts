/**
 * decodedCopy: a canvas's pixels as a decoded Image, drawn by Skia to exactly the pixels the canvas
 * itself draws to, translucent edges included, at whole and fractional positions; and rgbaBmp's
 * file as another decoder (Chromium's, through an <img>) reads it.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas, type Canvas, type Image } from '@napi-rs/canvas';
import { decodedCopy, rgbaBmp } from '../../../src/render/paint/decoded-copy.js';
import { launchChromium } from '../../chromium.js';

/** A label-like drawing: translucent fills and an antialiased stroke of text over a transparent ground. */
function sample(): Canvas {
  const canvas = createCanvas(110, 26);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'rgba(255, 0, 0, 0.75)';
  ctx.fillRect(5, 5, 50, 10);
  ctx.strokeStyle = 'rgba(20, 200, 255, 0.4)';
  ctx.lineWidth = 3;
  ctx.lineJoin = 'round';
  ctx.font = '16px sans-serif';
  ctx.strokeText('Hauptstrasse', 4, 19);
  return canvas;
}

function drawnAt(source: Canvas | Image, x: number, y: number): Uint8ClampedArray {
  const canvas = createCanvas(140, 60);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#336699';
  ctx.fillRect(0, 0, 140, 60);
  ctx.drawImage(source, x, y);
  return ctx.getImageData(0, 0, 140, 60).data;
}

test('the decoded copy draws to the same pixels as its canvas, at whole and fractional positions', async () => {
  const canvas = sample();
  const image = await decodedCopy(canvas);
  assert.deepEqual([image.width, image.height], [canvas.width, canvas.height]);
  for (const [x, y] of [[10, 10], [10.3, 20.7], [-5.5, 3.25]] as const) {
    const fromCanvas = drawnAt(canvas, x, y);
    const fromImage = drawnAt(image, x, y);
    assert.ok(fromCanvas.some((value, i) => value !== fromCanvas[i % 4]), 'the sample draws something');
    assert.deepEqual(fromImage, fromCanvas, `at ${x},${y}`);
  }
});

test('rgbaBmp files read in Chromium as the pixels written (straight alpha, rows from the top)', async () => {
  const width = 5;
  const height = 3;
  const pixels = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < width * height; i++) pixels.set([i * 17, 255 - i * 13, (i * 40) % 256, i === 0 ? 255 : 40 + i * 10], i * 4);
  const url = `data:image/bmp;base64,${rgbaBmp(pixels, width, height).toString('base64')}`;
  const browser = await launchChromium();
  let read: number[];
  try {
    const page = await browser.newPage();
    // The page's own code, as text: it runs in Chromium, not here.
    read = (await page.evaluate(`(async () => {
      const image = new Image();
      image.src = ${JSON.stringify(url)};
      await image.decode();
      const ctx = new OffscreenCanvas(${width}, ${height}).getContext('2d', { colorSpace: 'srgb' });
      ctx.drawImage(image, 0, 0);
      return [image.naturalWidth, image.naturalHeight, ...ctx.getImageData(0, 0, ${width}, ${height}).data];
    })()`)) as number[];
  } finally {
    await browser.close();
  }
  assert.deepEqual(read.slice(0, 2), [width, height]);
  // Chromium keeps premultiplied pixels: a colour channel of a translucent pixel may come back a step off.
  const back = read.slice(2);
  for (let i = 0; i < pixels.length; i++) {
    const alpha = pixels[i - (i % 4) + 3]!;
    assert.ok(Math.abs(back[i]! - pixels[i]!) <= (i % 4 === 3 ? 0 : Math.ceil(255 / alpha)), `value ${i}: ${back[i]} for ${pixels[i]}`);
  }
});
