import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import fc from 'fast-check';
import sharp from 'sharp';
import { encodePixels } from '../../../src/maps/static/encode.js';
import { encodePng, ZLIB_PNG_MAX_PIXELS } from '../../../src/maps/static/png.js';

/** The RGBA pixels two other decoders read from a PNG: libvips/libpng (sharp) and Skia. */
async function decoded(png: Buffer): Promise<{ libpng: Buffer; skia: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  assert.equal(info.channels, 4);
  const image = await loadImage(png);
  const ctx = createCanvas(image.width, image.height).getContext('2d');
  ctx.drawImage(image, 0, 0);
  const skia = Buffer.from(ctx.getImageData(0, 0, image.width, image.height).data.buffer);
  return { libpng: data, skia, width: info.width, height: info.height };
}

/** IHDR's colour type: 2 RGB, 6 RGBA. */
const colourType = (png: Buffer) => png[8 + 8 + 9];

function pixels(width: number, height: number, at: (x: number, y: number) => [number, number, number, number]): Uint8ClampedArray {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(at(x, y), (y * width + x) * 4);
  return data;
}

test('an opaque image is written as RGB and decodes to its own pixels in libpng and Skia', async () => {
  const width = 300;
  const height = 200;
  const data = pixels(width, height, (x, y) => [x % 256, y % 256, (x * y) % 256, 255]);
  const png = encodePng(data, width, height);
  assert.equal(colourType(png), 2);
  assert.equal((await sharp(png).metadata()).channels, 3);
  const back = await decoded(png);
  assert.deepEqual([back.width, back.height], [width, height]);
  assert.ok(back.libpng.equals(Buffer.from(data.buffer)));
  assert.ok(back.skia.equals(Buffer.from(data.buffer)));
  // One pixel short of opaque, at the very end, makes it RGBA.
  data[data.length - 1] = 254;
  const translucent = encodePng(data, width, height);
  assert.equal(colourType(translucent), 6);
  assert.ok((await decoded(translucent)).libpng.equals(Buffer.from(data.buffer)));
});

test('translucent and transparent pixels keep their colour and alpha (unpremultiplied in and out)', async () => {
  const data = pixels(64, 3, (x, y) => [200, 100, 50, y === 0 ? 0 : y === 1 ? 255 : x * 4]);
  const png = encodePng(data, 64, 3);
  assert.equal(colourType(png), 6);
  const back = await decoded(png);
  assert.ok(back.libpng.equals(Buffer.from(data.buffer)));
});

test('any size and content round-trips', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.integer(), async (width, height, seed) => {
      let state = (seed >>> 0) % 2147483646 + 1;
      const next = () => (state = (state * 48271) % 2147483647) & 255;
      const data = pixels(width, height, () => [next(), next(), next(), next()]);
      const back = await decoded(encodePng(data, width, height));
      assert.deepEqual([back.width, back.height], [width, height]);
      assert.ok(back.libpng.equals(Buffer.from(data.buffer)));
    }),
    { numRuns: 40 },
  );
});

test('every chunk carries a CRC that a decoder checks', async () => {
  const png = encodePng(pixels(16, 16, (x) => [x * 16, 0, 0, 255]), 16, 16);
  await assert.doesNotReject(sharp(png).raw().toBuffer());
  // IDAT's CRC: the four bytes before IEND (12 bytes: length, type, CRC).
  const broken = Buffer.from(png);
  broken[png.length - 13] = broken[png.length - 13]! ^ 0xff;
  await assert.rejects(sharp(broken).raw().toBuffer());
});

test('the image data holds exactly its rows, RGB or RGBA, each behind a filter byte, also when a larger image came before', () => {
  // Decoders stop at the last row and ignore what follows, so this reads the compressed data itself.
  const imageData = (png: Buffer): Buffer => {
    const parts: Buffer[] = [];
    for (let at = 8; at < png.length; ) {
      const length = png.readUInt32BE(at);
      if (png.toString('latin1', at + 4, at + 8) === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
      at += 12 + length;
    }
    return inflateSync(Buffer.concat(parts));
  };
  for (const [width, height, alpha] of [[40, 30, 255], [7, 3, 255], [40, 30, 255], [7, 3, 128], [40, 30, 128], [7, 3, 255]] as const) {
    const data = pixels(width, height, (x, y) => [x, y, width, alpha]);
    const channels = alpha === 255 ? 3 : 4;
    const row = (y: number) => Buffer.from(data.buffer, y * width * 4, width * 4).filter((_, i) => i % 4 < channels);
    const rows = Buffer.concat(Array.from({ length: height }, (_, y) => Buffer.concat([Buffer.from([0]), row(y)])));
    assert.ok(imageData(encodePng(data, width, height)).equals(rows), `${width}x${height}, alpha ${alpha}`);
  }
});

test('pixels that are not width x height RGBA are a RangeError', () => {
  assert.throws(() => encodePng(new Uint8ClampedArray(15), 2, 2), RangeError);
  assert.throws(() => encodePng(new Uint8ClampedArray(0), 0, 0), RangeError);
});

test('server PNGs up to 512x512 device pixels are written by png.ts, larger ones by sharp, both to the same pixels', async () => {
  for (const [width, height, ours] of [[512, 512, true], [513, 512, false]] as const) {
    assert.equal(width * height <= ZLIB_PNG_MAX_PIXELS, ours);
    const data = pixels(width, height, (x, y) => [x & 255, y & 255, 128, 255]);
    const png = await encodePixels(data, width, height, 'png');
    assert.equal(png.equals(encodePng(data, width, height)), ours, `${width}x${height}`);
    assert.ok((await decoded(png)).libpng.equals(Buffer.from(data.buffer)));
  }
});
