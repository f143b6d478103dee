/**
 * Signed distance fields for SDF icons, in the encoding MapLibre's symbol shader reads from the
 * alpha channel: 192/255 on the shape's edge, falling by 255 / radius per pixel outward (so a
 * radius of 8 per CSS pixel gives the 1/8 per pixel that `icon-halo-width` assumes), rising inward.
 * Distances are exact Euclidean ones (Felzenszwalb and Huttenlocher's transform), with the
 * antialiased edge of the rasterised shape taken as a sub-pixel offset, as tiny-sdf does.
 */

const INF = 1e20;
/** The edge sits at alpha 1 - CUTOFF: 192 of 255, MapLibre's SDF edge. */
const CUTOFF = 0.25;

/**
 * The SDF of a coverage mask (`alpha`, width × height, 0..255) as alpha values, on a canvas grown by
 * `buffer` pixels on every side so that halos fit.
 */
export function signedDistanceField(alpha: Uint8Array, width: number, height: number, buffer: number, radius: number): { data: Uint8Array; width: number; height: number } {
  const w = width + 2 * buffer;
  const h = height + 2 * buffer;
  const outer = new Float64Array(w * h).fill(INF);
  const inner = new Float64Array(w * h);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const a = alpha[y * width + x]! / 255;
      const i = (y + buffer) * w + x + buffer;
      if (a === 1) {
        outer[i] = 0;
        inner[i] = INF;
      } else if (a > 0) {
        const d = 0.5 - a;
        outer[i] = d > 0 ? d * d : 0;
        inner[i] = d < 0 ? d * d : 0;
      }
    }
  }
  distanceTransform(outer, w, h);
  distanceTransform(inner, w, h);
  const data = new Uint8Array(w * h);
  for (let i = 0; i < w * h; i++) {
    const distance = Math.sqrt(outer[i]!) - Math.sqrt(inner[i]!);
    data[i] = Math.max(0, Math.min(255, Math.round(255 - 255 * (distance / radius + CUTOFF))));
  }
  return { data, width: w, height: h };
}

/** Squared distances to the nearest zero of `grid`, in place: columns, then rows. */
function distanceTransform(grid: Float64Array, width: number, height: number): void {
  const size = Math.max(width, height);
  const f = new Float64Array(size);
  const v = new Uint32Array(size);
  const z = new Float64Array(size + 1);
  for (let x = 0; x < width; x++) transform1d(grid, x, width, height, f, v, z);
  for (let y = 0; y < height; y++) transform1d(grid, y * width, 1, width, f, v, z);
}

/** The 1-D transform along `length` cells from `offset`, `stride` apart: the lower envelope of parabolas. */
function transform1d(grid: Float64Array, offset: number, stride: number, length: number, f: Float64Array, v: Uint32Array, z: Float64Array): void {
  v[0] = 0;
  z[0] = -INF;
  z[1] = INF;
  f[0] = grid[offset]!;
  let k = 0;
  for (let q = 1; q < length; q++) {
    f[q] = grid[offset + q * stride]!;
    let s: number;
    // z[0] is -INF: the search stops at the first parabola at the latest.
    for (;;) {
      const r = v[k]!;
      s = (f[q]! - f[r]! + q * q - r * r) / (q - r) / 2;
      if (s > z[k]!) break;
      k--;
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = INF;
  }
  for (let q = 0, j = 0; q < length; q++) {
    while (z[j + 1]! < q) j++;
    const r = v[j]!;
    grid[offset + q * stride] = f[r]! + (q - r) * (q - r);
  }
}
