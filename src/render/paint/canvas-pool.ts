/**
 * Output canvases kept for the next render of the same size. A fresh canvas costs more than its
 * pixels: its surface is new memory the kernel must zero page by page, and Skia frees it only when
 * V8 finalises the canvas, which needs a garbage collection and a turn of the event loop; a render
 * loop that allocates one per image therefore makes its own GC pressure and lets resident memory
 * run ahead of the collector. The encoder hands each canvas back once its pixels are read.
 *
 * At most MAX_FREE_BYTES of surfaces wait here, least recently given back dropped first, so varied
 * sizes cost no more than before.
 */

import { createCanvas, type Canvas } from '@napi-rs/canvas';

const MAX_FREE_BYTES = 64 * 1024 * 1024;

/** Free canvases, least recently given back first. */
const free: Canvas[] = [];
let freeBytes = 0;

const surfaceBytes = (canvas: Canvas): number => canvas.width * canvas.height * 4;

/** A transparent canvas of this size with a context in its initial state. */
export function takeCanvas(width: number, height: number): Canvas {
  for (let i = free.length - 1; i >= 0; i--) {
    const canvas = free[i]!;
    if (canvas.width !== width || canvas.height !== height) continue;
    free.splice(i, 1);
    freeBytes -= surfaceBytes(canvas);
    // Clears the pixels and every piece of state (transform, clip, styles, dashes, font).
    canvas.getContext('2d').reset();
    return canvas;
  }
  return createCanvas(width, height);
}

/** Gives a canvas back; its caller must not draw on it or read it afterwards. */
export function releaseCanvas(canvas: Canvas): void {
  const bytes = surfaceBytes(canvas);
  if (bytes > MAX_FREE_BYTES || free.includes(canvas)) return;
  free.push(canvas);
  freeBytes += bytes;
  while (freeBytes > MAX_FREE_BYTES) freeBytes -= surfaceBytes(free.shift()!);
}
