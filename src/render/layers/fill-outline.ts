/**
 * The outline `fill-antialias` draws, as MapLibre draws it: GL_LINES one device pixel wide, whose
 * fragments fade with their distance d from the line as 1 - smoothstep(0, 1, d). A GL line lights one
 * pixel per step along its major axis, the one whose centre is nearest the line (ties go left, and
 * down the image, as SwiftShader rasterises them); a Skia stroke would spread the same line over two
 * half-covered pixels, which shows when the outline has a colour of its own. Fragments are blended
 * one by one into a premultiplied buffer the size of the output, composited onto the canvas once the
 * layer's fills are drawn: MapLibre draws a layer's outlines after all of its fills.
 */

import { ImageData, type SKRSContext2D } from '@napi-rs/canvas';
import type { RenderContext } from '../paint/context.js';
import type { PixelRect } from '../view/projection.js';

/** GL's sub-pixel precision: 8 bits. */
function snap(value: number): number {
  return Math.round(value * 256) / 256;
}

/**
 * Outlines are blended into premultiplied RGBA (0..1) blocks of BLOCK x BLOCK pixels, made for the
 * blocks an outline reaches: outlines are thin and sparse, so most of an image needs none, and an
 * image's first outline no longer costs a buffer the size of the output (4 MB at 512x512, 50 MB at
 * 2048x1536) that the kernel zeroes page by page. Each block goes onto the canvas with one small
 * putImageData; Skia converts the pixels it is given, so one over the outlines' bounding box cost
 * for every transparent pixel in it.
 */
const BLOCK_SHIFT = 6;
const BLOCK = 1 << BLOCK_SHIFT;
const BLOCK_MASK = BLOCK - 1;
/** Blocks given back, all zero: shared by every layer and render (drawing never awaits). */
const freeBlocks: Float32Array[] = [];
/** One block's pixels for putImageData, all zero between composites. */
const blockPixels = new Uint8ClampedArray(BLOCK * BLOCK * 4);

export class OutlineBuffer {
  private readonly columns: number;
  /** The blocks blended into, by block index (row-major); each one's pixels blended into, each once (its alpha was 0 before). */
  private readonly blocks = new Map<number, { data: Float32Array; touched: number[] }>();
  private x0: number;
  private y0: number;
  private x1 = -1;
  private y1 = -1;

  constructor(
    private readonly width: number,
    private readonly height: number,
  ) {
    this.columns = Math.ceil(width / BLOCK);
    this.x0 = width;
    this.y0 = height;
  }

  /**
   * Rasterises the segment (ax, ay)-(bx, by) (device px) in a premultiplied colour, within `clip`:
   * the pixels whose centres lie on [start, end) along the major axis.
   */
  line(ax: number, ay: number, bx: number, by: number, color: readonly [number, number, number, number], clip: PixelRect): void {
    // The rasteriser sees vertices on its sub-pixel grid, which settles which pixel a line on a
    // pixel boundary lights.
    ax = snap(ax);
    ay = snap(ay);
    bx = snap(bx);
    by = snap(by);
    const dx = bx - ax;
    const dy = by - ay;
    const length = Math.hypot(dx, dy);
    if (length === 0) return;
    const nx = -dy / length;
    const ny = dx / length;
    const cx0 = Math.max(0, clip.x0);
    const cy0 = Math.max(0, clip.y0);
    const cx1 = Math.min(this.width, clip.x1);
    const cy1 = Math.min(this.height, clip.y1);
    if (Math.abs(dx) >= Math.abs(dy)) {
      const [from, to] = dx > 0 ? [ax, bx] : [bx, ax];
      const slope = dy / dx;
      for (let i = Math.max(cx0, Math.ceil(from - 0.5)); i + 0.5 < to && i < cx1; i++) {
        const j = Math.floor(ay + (i + 0.5 - ax) * slope);
        if (j < cy0 || j >= cy1) continue;
        this.blend(i, j, Math.abs((i + 0.5 - ax) * nx + (j + 0.5 - ay) * ny), color);
      }
    } else {
      const [from, to] = dy > 0 ? [ay, by] : [by, ay];
      const slope = dx / dy;
      for (let j = Math.max(cy0, Math.ceil(from - 0.5)); j + 0.5 < to && j < cy1; j++) {
        const i = Math.ceil(ax + (j + 0.5 - ay) * slope - 1);
        if (i < cx0 || i >= cx1) continue;
        this.blend(i, j, Math.abs((i + 0.5 - ax) * nx + (j + 0.5 - ay) * ny), color);
      }
    }
  }

  private blend(i: number, j: number, distance: number, color: readonly [number, number, number, number]): void {
    const t = Math.min(1, distance);
    const alpha = 1 - t * t * (3 - 2 * t);
    if (alpha <= 0) return;
    const b = (j >> BLOCK_SHIFT) * this.columns + (i >> BLOCK_SHIFT);
    let block = this.blocks.get(b);
    if (!block) {
      block = { data: freeBlocks.pop() ?? new Float32Array(BLOCK * BLOCK * 4), touched: [] };
      this.blocks.set(b, block);
    }
    const p = ((j & BLOCK_MASK) << BLOCK_SHIFT) | (i & BLOCK_MASK);
    const o = p * 4;
    const data = block.data;
    if (data[o + 3] === 0) block.touched.push(p);
    const keep = 1 - color[3] * alpha;
    data[o] = color[0] * alpha + data[o]! * keep;
    data[o + 1] = color[1] * alpha + data[o + 1]! * keep;
    data[o + 2] = color[2] * alpha + data[o + 2]! * keep;
    data[o + 3] = color[3] * alpha + data[o + 3]! * keep;
    if (i < this.x0) this.x0 = i;
    if (i > this.x1) this.x1 = i;
    if (j < this.y0) this.y0 = j;
    if (j > this.y1) this.y1 = j;
  }

  /** Draws what was rasterised onto `ctx`, over what is there, and gives the blocks back cleared. */
  composite(rc: RenderContext, ctx: SKRSContext2D): void {
    if (this.x1 < this.x0) return;
    const canvas = rc.scratch();
    const scratch = canvas.getContext('2d');
    for (const [b, { data, touched }] of this.blocks) {
      for (let k = 0; k < touched.length; k++) {
        const o = touched[k]! * 4;
        const a = data[o + 3]!;
        if (a > 0) {
          blockPixels[o] = (data[o]! / a) * 255;
          blockPixels[o + 1] = (data[o + 1]! / a) * 255;
          blockPixels[o + 2] = (data[o + 2]! / a) * 255;
          blockPixels[o + 3] = a * 255;
        }
        data[o] = data[o + 1] = data[o + 2] = data[o + 3] = 0;
      }
      // An ImageData takes its pixels as they are when it is made.
      scratch.putImageData(new ImageData(blockPixels, BLOCK, BLOCK), (b % this.columns) << BLOCK_SHIFT, Math.floor(b / this.columns) << BLOCK_SHIFT);
      for (let k = 0; k < touched.length; k++) {
        const o = touched[k]! * 4;
        blockPixels[o] = blockPixels[o + 1] = blockPixels[o + 2] = blockPixels[o + 3] = 0;
      }
      freeBlocks.push(data);
    }
    this.blocks.clear();
    const w = this.x1 - this.x0 + 1;
    const h = this.y1 - this.y0 + 1;
    ctx.drawImage(canvas, this.x0, this.y0, w, h, this.x0, this.y0, w, h);
    rc.release(canvas);
  }
}
