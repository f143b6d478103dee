/**
 * The halos drawn lately (text-halo.ts), by label and everything else their pixels depend on (not
 * the origin's place within its pixel). A halo is kept on its canvas, as a decoded Image once it is
 * drawn again (Skia draws a canvas at several times an Image's cost: 30-40 against 5 µs a label).
 * A halo the cache drops gives its canvas back to the pool, as does one whose Image is ready
 * (pixel-canvas.ts): under load a render thread drops about as many halos as it makes, and a canvas
 * left to the garbage collector is only finalised, with all the others, after a full collection.
 */

import type { Canvas, Image } from '@napi-rs/canvas';
import { Lru } from '../../platform/lru.js';
import { decodedCopy } from '../paint/decoded-copy.js';
import { releasePixelCanvas, type PixelRaster } from '../paint/pixel-canvas.js';

/** A halo's pixels, to be put at (x, y) device px from where it was made for. */
export interface HaloImage {
  /** Its canvas, until the decoded copy that Skia draws several times faster is ready (decoded-copy.ts). */
  source: Canvas | Image;
  readonly x: number;
  readonly y: number;
}

interface Kept extends HaloImage {
  /** Whether the copy was asked for: once the halo is drawn a second time. */
  copying: boolean;
  /** Whether the cache dropped it (its canvas went back to the pool then, unless the copy had replaced it). */
  dropped: boolean;
}

const isCanvas = (source: Canvas | Image): source is Canvas => 'getContext' in source;

export class HaloImages {
  private readonly kept: Lru<string, Kept | null>;

  constructor(entries: number, maxBytes: number) {
    this.kept = new Lru<string, Kept | null>(entries, {
      maxWeight: maxBytes,
      weigh: (halo) => (halo ? halo.source.width * halo.source.height * 4 : 0),
      onEvict: (halo) => {
        if (!halo) return;
        halo.dropped = true;
        if (isCanvas(halo.source)) releasePixelCanvas(halo.source);
      },
    });
  }

  /** The halo kept under `key`, or the one `make` draws (null: it covers nothing), kept from now on. */
  get(key: string, make: () => PixelRaster | null): HaloImage | null {
    const halo = this.kept.get(key);
    if (halo === undefined) {
      const made = make();
      return this.kept.set(key, made && { source: made.canvas, x: made.x, y: made.y, copying: false, dropped: false });
    }
    if (halo && !halo.copying) keepDecoded(halo);
    return halo;
  }
}

/**
 * Swaps a halo's canvas for its decoded copy once that is ready. Asked for when the halo is drawn
 * again, not when it is made: where every view has its own zoom (and so its own text sizes), most
 * halos are drawn once, and copying those would only cost. The copy is made on a later turn of the
 * event loop, not in the middle of drawing an image, and decoded on libuv's threads. Should it
 * fail, the canvas stays.
 */
function keepDecoded(halo: Kept): void {
  halo.copying = true;
  setImmediate(() => {
    const canvas = halo.source;
    if (halo.dropped || !isCanvas(canvas)) return;
    decodedCopy(canvas).then(
      (image) => {
        // Dropped meanwhile: its canvas went back to the pool then, and may be another halo's now.
        if (halo.dropped) return;
        halo.source = image;
        releasePixelCanvas(canvas);
      },
      () => {},
    );
  });
}
