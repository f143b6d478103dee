/**
 * Encoding a rendered canvas as the requested format. Pixels go to sharp (libvips), which encodes
 * PNG about twice as fast as Skia's own encoder; the settings are fixed, so equal images give equal
 * bytes. JPEG has no alpha: the image is flattened on white.
 */

import type { Canvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import type { Format } from './request.js';

export const CONTENT_TYPES: Record<Format, string> = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

export async function encodeImage(canvas: Canvas, format: Format): Promise<Buffer> {
  const { width, height } = canvas;
  const pixels = canvas.getContext('2d').getImageData(0, 0, width, height).data;
  const image = sharp(Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength), { raw: { width, height, channels: 4 } });
  switch (format) {
    case 'png':
      return image.png({ compressionLevel: 6, adaptiveFiltering: false }).toBuffer();
    case 'jpg':
      return image.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer();
    case 'webp':
      return image.webp({ quality: 90 }).toBuffer();
  }
}
