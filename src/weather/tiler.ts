/**
 * A field cut into the weather's tile pyramid: Web Mercator (EPSG:3857) tiles of 512 px, XYZ, down
 * to the zoom the source grid's resolution is worth; each tile's pixels sampled from the field,
 * quantised and encoded as PNG or WebP.
 */
import sharp from 'sharp';
import type { Tile } from '../platform/pmtiles.js';
import { HALF_WORLD_METRES, latitudeOfY, longitudeOfX, xOfLongitude, yOfLatitude } from '../platform/web-mercator.js';

/** Weather tiles are 512 px, XYZ (y down from the north): zoom 0 is the whole world in one tile. */
export const tileSize = 512;

/** Longitude of the centre of pixel column `px` of a world `2^z * 512` pixels wide. */
function pixelLongitude(px: number, zoom: number): number {
  return longitudeOfX((px + 0.5) / (tileSize * 2 ** zoom));
}

/** Latitude of the centre of pixel row `py` (0 at the north edge). */
function pixelLatitude(py: number, zoom: number): number {
  return latitudeOfY((py + 0.5) / (tileSize * 2 ** zoom));
}

/** The tile column holding a longitude, and the tile row holding a latitude, at a zoom. */
function tileX(lon: number, zoom: number): number {
  const n = 2 ** zoom;
  return Math.min(n - 1, Math.max(0, Math.floor(xOfLongitude(lon) * n)));
}

function tileY(lat: number, zoom: number): number {
  const n = 2 ** zoom;
  return Math.min(n - 1, Math.max(0, Math.floor(yOfLatitude(lat) * n)));
}

export interface LonLatBounds {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** Tiles of one zoom that intersect the bounds (west > east: the bounds cross the antimeridian). */
function tilesCovering(bounds: LonLatBounds, zoom: number): { x: number; y: number }[] {
  const columns: number[] = [];
  const n = 2 ** zoom;
  const first = tileX(bounds.west, zoom);
  const last = tileX(bounds.east, zoom);
  if (bounds.west <= bounds.east) {
    for (let x = first; x <= last; x++) columns.push(x);
  } else {
    for (let x = first; x < n; x++) columns.push(x);
    for (let x = 0; x <= last && x < first; x++) columns.push(x);
  }
  const tiles: { x: number; y: number }[] = [];
  for (let y = tileY(bounds.north, zoom); y <= tileY(bounds.south, zoom); y++) {
    for (const x of columns) tiles.push({ x, y });
  }
  return tiles;
}

/**
 * The smallest zoom whose pixels are no larger than the source grid's spacing (metres, measured
 * at a latitude), capped at `limit`: deeper zooms would only interpolate.
 */
export function zoomForResolution(spacingMetres: number, latitude: number, limit = 12): number {
  const groundWidth = 2 * HALF_WORLD_METRES * Math.cos((latitude * Math.PI) / 180);
  const zoom = Math.ceil(Math.log2(groundWidth / (tileSize * spacingMetres)));
  return Math.max(0, Math.min(limit, zoom));
}

/**
 * A field on its source grid, ready to be sampled: values in row-major order (`j * width + i`),
 * NaN where there is no data, and where a lon/lat falls on the grid.
 */
export interface GriddedField {
  width: number;
  height: number;
  /** One array per channel (R, then G), converted to the variable's unit. */
  channels: Float32Array[];
  /** i continues past the last column into the first (a grid all around the globe). */
  wrapsI: boolean;
  bounds: LonLatBounds;
  /**
   * Regular lat/lon and Gaussian grids: i depends on longitude alone and j on latitude alone,
   * which lets a tile compute each once per column and per row.
   */
  separable: { column(lon: number): number; row(lat: number): number } | null;
  /** Fractional (i, j) of any lon/lat, NaN outside the grid. */
  locate(lon: number, lat: number): { i: number; j: number };
}

/** Channel value of a data value: `value = min + channel / 255 * (max - min)`, the catalog's decoding. */
export function quantize(value: number, min: number, max: number): number {
  const scaled = Math.round(((value - min) / (max - min)) * 255);
  return scaled < 0 ? 0 : scaled > 255 ? 255 : scaled;
}

/**
 * Bilinear interpolation of one channel at (i, j), wrapping i on global grids. Where a neighbour
 * has no data the nearest point decides, so coastlines of masked fields stay sharp, not NaN-eaten.
 */
export function bilinear(field: GriddedField, channel: Float32Array, i: number, j: number): number {
  const { width, height } = field;
  if (!(j >= 0 && j <= height - 1)) return Number.NaN;
  if (!field.wrapsI && !(i >= 0 && i <= width - 1)) return Number.NaN;
  let i0 = Math.floor(i);
  const fi = i - i0;
  const j0 = Math.floor(j);
  const fj = j - j0;
  i0 = ((i0 % width) + width) % width;
  const i1 = field.wrapsI ? (i0 + 1) % width : Math.min(i0 + 1, width - 1);
  const j1 = Math.min(j0 + 1, height - 1);
  const a = channel[j0 * width + i0]!;
  const b = channel[j0 * width + i1]!;
  const c = channel[j1 * width + i0]!;
  const d = channel[j1 * width + i1]!;
  const value = (a * (1 - fi) + b * fi) * (1 - fj) + (c * (1 - fi) + d * fi) * fj;
  if (!Number.isNaN(value)) return value;
  const nearest = [a, b, c, d][(fj < 0.5 ? 0 : 2) + (fi < 0.5 ? 0 : 1)]!;
  return nearest;
}

/** Where each pixel column (or row) of a tile falls between two grid columns (or rows). */
interface Axis {
  lower: Int32Array;
  upper: Int32Array;
  weight: Float32Array;
  inside: Uint8Array;
}

function axis(positions: Float64Array, size: number, wraps: boolean): Axis {
  const n = positions.length;
  const out: Axis = { lower: new Int32Array(n), upper: new Int32Array(n), weight: new Float32Array(n), inside: new Uint8Array(n) };
  for (let k = 0; k < n; k++) {
    const p = positions[k]!;
    if (Number.isNaN(p) || (!wraps && (p < 0 || p > size - 1))) continue;
    const floor = Math.floor(p);
    const lower = ((floor % size) + size) % size;
    out.lower[k] = lower;
    out.upper[k] = wraps ? (lower + 1) % size : Math.min(lower + 1, size - 1);
    out.weight[k] = p - floor;
    out.inside[k] = 1;
  }
  return out;
}

/**
 * The separable case (regular lat/lon and Gaussian grids), the common one: each pixel column and
 * row is placed once, and the inner loop only blends four values.
 */
function renderSeparable(field: GriddedField, range: { min: number; max: number }, z: number, x: number, y: number): Buffer | null {
  const separable = field.separable!;
  const positions = new Float64Array(tileSize);
  for (let p = 0; p < tileSize; p++) positions[p] = separable.column(pixelLongitude(x * tileSize + p, z));
  const columns = axis(positions, field.width, field.wrapsI);
  for (let p = 0; p < tileSize; p++) positions[p] = separable.row(pixelLatitude(y * tileSize + p, z));
  const rows = axis(positions, field.height, false);
  const pixels = Buffer.alloc(tileSize * tileSize * 4);
  // One 32-bit store per pixel: R (and G) in the low bytes, alpha in the high byte (little-endian).
  const words = new Uint32Array(pixels.buffer, pixels.byteOffset, tileSize * tileSize);
  const scale = 255 / (range.max - range.min);
  const offset = 0.5 - range.min * scale;
  const width = field.width;
  const [first, second] = field.channels;
  let any = false;
  for (let py = 0; py < tileSize; py++) {
    if (!rows.inside[py]) continue;
    const r0 = rows.lower[py]! * width;
    const r1 = rows.upper[py]! * width;
    const fj = rows.weight[py]!;
    const rowStart = py * tileSize;
    for (let px = 0; px < tileSize; px++) {
      if (!columns.inside[px]) continue;
      const i0 = columns.lower[px]!;
      const i1 = columns.upper[px]!;
      const fi = columns.weight[px]!;
      const red = blend(first!, r0, r1, i0, i1, fi, fj);
      if (red !== red) continue;
      let word = 0xff000000 | channelByte(red * scale + offset);
      if (second) {
        const green = blend(second, r0, r1, i0, i1, fi, fj);
        if (green !== green) continue;
        word |= channelByte(green * scale + offset) << 8;
      }
      words[rowStart + px] = word;
      any = true;
    }
  }
  return any ? pixels : null;
}

/** Bilinear blend of four grid values; where one is missing, the nearest point decides (as `bilinear`). */
function blend(channel: Float32Array, r0: number, r1: number, i0: number, i1: number, fi: number, fj: number): number {
  const a = channel[r0 + i0]!;
  const b = channel[r0 + i1]!;
  const c = channel[r1 + i0]!;
  const d = channel[r1 + i1]!;
  const value = (a + (b - a) * fi) * (1 - fj) + (c + (d - c) * fi) * fj;
  if (value === value) return value;
  return fj < 0.5 ? (fi < 0.5 ? a : b) : fi < 0.5 ? c : d;
}

/** A scaled value, already offset by one half, truncated and clamped to a byte. */
function channelByte(scaledPlusHalf: number): number {
  return scaledPlusHalf <= 0 ? 0 : scaledPlusHalf >= 255 ? 255 : scaledPlusHalf | 0;
}

/** The RGBA pixels of one 512-px tile, or null when no pixel of it has data. */
export function renderTile(field: GriddedField, range: { min: number; max: number }, z: number, x: number, y: number): Buffer | null {
  if (field.separable) return renderSeparable(field, range, z, x, y);
  const pixels = Buffer.alloc(tileSize * tileSize * 4);
  const lons = new Float64Array(tileSize);
  for (let px = 0; px < tileSize; px++) lons[px] = pixelLongitude(x * tileSize + px, z);
  let any = false;
  const [first, second] = field.channels;
  for (let py = 0; py < tileSize; py++) {
    const lat = pixelLatitude(y * tileSize + py, z);
    for (let px = 0; px < tileSize; px++) {
      const { i, j } = field.locate(lons[px]!, lat);
      const r = bilinear(field, first!, i, j);
      if (Number.isNaN(r)) continue;
      const g = second ? bilinear(field, second, i, j) : 0;
      if (Number.isNaN(g)) continue;
      const at = (py * tileSize + px) * 4;
      pixels[at] = quantize(r, range.min, range.max);
      if (second) pixels[at + 1] = quantize(g, range.min, range.max);
      pixels[at + 3] = 255;
      any = true;
    }
  }
  return any ? pixels : null;
}

export type TileFormat = 'png' | 'webp';

/** Both formats are lossless: a lossy codec would corrupt the encoded values. */
export function encodeTile(pixels: Buffer, format: TileFormat): Promise<Buffer> {
  const image = sharp(pixels, { raw: { width: tileSize, height: tileSize, channels: 4 } });
  return format === 'png' ? image.png({ compressionLevel: 6 }).toBuffer() : image.webp({ lossless: true }).toBuffer();
}

/**
 * Every tile from zoom 0 to `maxZoom` that holds data. Tiles are encoded a few at a time: sharp
 * encodes on its own threads while the next tile is sampled.
 */
export async function tilePyramid(
  field: GriddedField,
  range: { min: number; max: number },
  maxZoom: number,
  format: TileFormat,
): Promise<Tile[]> {
  const tiles: Tile[] = [];
  const pending: Promise<void>[] = [];
  for (let z = 0; z <= maxZoom; z++) {
    for (const { x, y } of tilesCovering(field.bounds, z)) {
      const pixels = renderTile(field, range, z, x, y);
      if (!pixels) continue;
      pending.push(encodeTile(pixels, format).then((data) => void tiles.push({ z, x, y, data })));
      // Keep the encoder threads fed while this thread samples the next tiles, within a bound.
      if (pending.length >= 8) await pending.shift();
    }
  }
  await Promise.all(pending);
  return tiles;
}
