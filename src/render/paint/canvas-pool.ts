/**
 * Canvases kept for the next use of the same size: the renderers' output canvases and the label
 * rasters (pixel-canvas.ts). A fresh canvas costs more than its pixels: its surface is new memory
 * the kernel must zero page by page, and Skia frees it only when V8 finalises the canvas, which
 * needs a garbage collection and a turn of the event loop. A canvas that outlives a young-generation
 * collection is only found dead by a full one, and Node-API then finalises every canvas that died
 * since in one turn, about 4 µs each: a render thread that dropped its label rasters spent 10-28 ms
 * of a request there after each full collection (docs/benchmarks.md, "Label rasters kept").
 *
 * At most MAX_FREE_BYTES of surfaces wait here, least recently given back dropped first, so varied
 * sizes cost no more than before.
 */

import { createCanvas, type Canvas } from '@napi-rs/canvas';

const MAX_FREE_BYTES = 64 * 1024 * 1024;

/** Free canvases in the order they were given back, and the same by size. */
const free = new Set<Canvas>();
const bySize = new Map<string, Canvas[]>();
let freeBytes = 0;

const surfaceBytes = (canvas: Canvas): number => canvas.width * canvas.height * 4;
const sizeKey = (width: number, height: number): string => `${width}x${height}`;

/** A transparent canvas of this size with a context in its initial state. */
export function takeCanvas(width: number, height: number): Canvas {
  const canvas = bySize.get(sizeKey(width, height))?.pop();
  if (!canvas) return createCanvas(width, height);
  forget(canvas);
  // Clears the pixels and every piece of state (transform, clip, styles, dashes, font).
  canvas.getContext('2d').reset();
  return canvas;
}

/** Gives a canvas back; its caller must not draw on it or read it afterwards. */
export function releaseCanvas(canvas: Canvas): void {
  const bytes = surfaceBytes(canvas);
  if (bytes > MAX_FREE_BYTES || free.has(canvas)) return;
  free.add(canvas);
  const key = sizeKey(canvas.width, canvas.height);
  const same = bySize.get(key);
  if (same) same.push(canvas);
  else bySize.set(key, [canvas]);
  freeBytes += bytes;
  for (const oldest of free) {
    if (freeBytes <= MAX_FREE_BYTES) break;
    const list = bySize.get(sizeKey(oldest.width, oldest.height))!;
    list.splice(list.indexOf(oldest), 1);
    forget(oldest);
  }
}

/**
 * Takes a canvas out of the free set, already out of its size's list, and drops that list once it
 * is empty: output sizes come from requests, so the map would otherwise keep a key for every size
 * ever asked for.
 */
function forget(canvas: Canvas): void {
  free.delete(canvas);
  freeBytes -= surfaceBytes(canvas);
  const key = sizeKey(canvas.width, canvas.height);
  if (bySize.get(key)?.length === 0) bySize.delete(key);
}
