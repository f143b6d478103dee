import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { Color } from '@maplibre/maplibre-gl-style-spec';
import { renderSdfIcon } from '../../../src/render/symbol/sdf-icon.js';

/** A 24 × 24 distance field of a disc of radius 5 at its centre: 192 on the edge, 255/8 less per pixel out. */
function disc(): Canvas {
  const canvas = createCanvas(24, 24);
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(24, 24);
  for (let y = 0; y < 24; y++) {
    for (let x = 0; x < 24; x++) {
      const distance = Math.hypot(x + 0.5 - 12, y + 0.5 - 12) - 5;
      image.data[(y * 24 + x) * 4 + 3] = Math.max(0, Math.min(255, 192 - (distance * 255) / 8));
    }
  }
  ctx.putImageData(image, 0, 0);
  return canvas;
}

const quad = { sx: 0, sy: 0, sw: 24, sh: 24, x1: -12, y1: -12, x2: 12, y2: 12 };
const red = new Color(1, 0, 0, 1);
const blue = new Color(0, 0, 1, 1);

function rgba(rendered: NonNullable<ReturnType<typeof renderSdfIcon>>, x: number, y: number): number[] {
  return [...rendered.canvas.getContext('2d').getImageData(x - rendered.x, y - rendered.y, 1, 1).data];
}

test('an SDF icon is icon-color inside its edge, the halo colour within halo-width outside it, clear beyond', () => {
  const rendered = renderSdfIcon(disc(), [quad], 50, 50, 0, 1, { color: red, haloColor: blue, haloWidth: 4, haloBlur: 0, opacity: 1, size: 1 })!;
  // The centre, then pixel centres 2.5 and 6.5 px outside the disc's edge.
  assert.deepEqual(rgba(rendered, 50, 50), [255, 0, 0, 255]);
  assert.deepEqual(rgba(rendered, 57, 50), [0, 0, 255, 255]);
  assert.equal(rgba(rendered, 61, 50)[3], 0);
});

test('without a halo an SDF icon is only its fill, and icon-size scales it around the anchor', () => {
  const plain = renderSdfIcon(disc(), [quad], 50, 50, 0, 1, { color: red, haloColor: blue, haloWidth: 0, haloBlur: 0, opacity: 1, size: 1 })!;
  assert.equal(rgba(plain, 56, 50)[3], 0);
  const doubled = renderSdfIcon(disc(), [{ ...quad, x1: -24, y1: -24, x2: 24, y2: 24 }], 50, 50, 0, 1, { color: red, haloColor: blue, haloWidth: 0, haloBlur: 0, opacity: 1, size: 2 })!;
  assert.deepEqual(rgba(doubled, 58, 50), [255, 0, 0, 255]);
});
