/**
 * A canvas's pixels as a decoded Image. @napi-rs/canvas draws an Image several times faster than
 * a canvas (about 5 against 30-40 µs for a label's halo, whatever its size: drawing a canvas first
 * turns its recorded drawing into pixels), so what is drawn again and again is worth keeping as an
 * Image. Images are only made by decoding a file, on libuv's threads: the copy is a BMP that
 * carries the pixels as they are, 32-bit RGBA behind a BITMAPV5HEADER whose bit masks name that
 * byte order (Skia's BMP codec reads any masks), straight alpha as getImageData gives it, so the
 * round trip changes no pixel.
 */

import { Image, type Canvas } from '@napi-rs/canvas';

const FILE_HEADER = 14;
const V5_HEADER = 124;

/** A BMP file of `width` x `height` straight-alpha RGBA pixels, row after row from the top. */
export function rgbaBmp(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number): Buffer {
  const offset = FILE_HEADER + V5_HEADER;
  const file = Buffer.alloc(offset + pixels.byteLength);
  file.write('BM', 0, 'latin1');
  file.writeUInt32LE(file.length, 2);
  file.writeUInt32LE(offset, 10);
  file.writeUInt32LE(V5_HEADER, 14);
  file.writeInt32LE(width, 18);
  // A negative height: rows from the top down.
  file.writeInt32LE(-height, 22);
  file.writeUInt16LE(1, 26);
  file.writeUInt16LE(32, 28);
  // BI_BITFIELDS: red, green, blue and alpha where the masks say, here RGBA byte order.
  file.writeUInt32LE(3, 30);
  file.writeUInt32LE(pixels.byteLength, 34);
  file.writeUInt32LE(0x000000ff, 54);
  file.writeUInt32LE(0x0000ff00, 58);
  file.writeUInt32LE(0x00ff0000, 62);
  file.writeUInt32LE(0xff000000, 66);
  // LCS_sRGB ('sRGB' as a little-endian integer), rendering intent LCS_GM_IMAGES.
  file.write('BGRs', 70, 'latin1');
  file.writeUInt32LE(4, 122);
  file.set(pixels, offset);
  return file;
}

/** The canvas's pixels now, decoded as an Image of the same size. */
export async function decodedCopy(canvas: Canvas): Promise<Image> {
  const { width, height } = canvas;
  const image = new Image();
  image.src = rgbaBmp(canvas.getContext('2d').getImageData(0, 0, width, height).data, width, height);
  await image.decode();
  return image;
}
