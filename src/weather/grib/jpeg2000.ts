/**
 * JPEG 2000 Part 1 codestream decoder (ITU-T T.800) for GRIB2 data template 5.40: one component of
 * up to 30 bits, kept as integers. Supports tiles, layers, precincts, every progression order,
 * every code-block style (bypass, reset, termination, vertically causal, segmentation symbols),
 * SOP/EPH markers, the reversible 5/3 and irreversible 9/7 wavelets and their quantisation.
 * Not supported (they fail with a message): several components, POC, PPM/PPT packed headers, ROI.
 *
 * It exists because OpenJPEG's npm build (@cornerstonejs/codec-openjpeg) returns at most 65,535 x
 * 65,535 samples of at most 16 bits, which GRIB2 images (often one row of every grid point, of up to
 * 32 bits) exceed: the comparison is in docs/benchmarks.md (issue 34).
 */

export class Jpeg2000Error extends Error {
  override name = 'Jpeg2000Error';
}

const SOC = 0xff4f;
const SIZ = 0xff51;
const COD = 0xff52;
const COC = 0xff53;
const QCD = 0xff5c;
const QCC = 0xff5d;
const RGN = 0xff5e;
const POC = 0xff5f;
const PPM = 0xff60;
const PPT = 0xff61;
const SOT = 0xff90;
const SOD = 0xff93;
const EOC = 0xffd9;

interface Size {
  width: number;
  height: number;
  x0: number;
  y0: number;
  tileWidth: number;
  tileHeight: number;
  tileX0: number;
  tileY0: number;
  precision: number;
  signed: boolean;
  dx: number;
  dy: number;
}

interface CodingStyle {
  sop: boolean;
  eph: boolean;
  progression: number;
  layers: number;
  levels: number;
  /** Code-block width and height exponents. */
  xcb: number;
  ycb: number;
  blockStyle: number;
  reversible: boolean;
  /** Precinct exponents per resolution (15 when not given). */
  ppx: number[];
  ppy: number[];
}

interface Quantization {
  style: number;
  guardBits: number;
  exponents: number[];
  mantissas: number[];
}

interface TileParts {
  coding: CodingStyle;
  quantization: Quantization;
  chunks: Uint8Array[];
}

const BYPASS = 0x01;
const RESET = 0x02;
const TERMINATE_ALL = 0x04;
const VERTICALLY_CAUSAL = 0x08;
const SEGMENTATION = 0x20;

/**
 * Decodes a codestream (or a JP2 file holding one) into width * height integer samples in raster
 * order; fails before decoding when the image does not have `expectedSamples` samples.
 */
export function decodeJpeg2000(input: Uint8Array, expectedSamples: number): Float64Array {
  const data = codestream(input);
  const r = new MarkerReader(data);
  if (r.u16() !== SOC) throw new Jpeg2000Error('no SOC marker: not a JPEG 2000 codestream');
  let size: Size | null = null;
  let coding: CodingStyle | null = null;
  let quantization: Quantization | null = null;
  const tiles = new Map<number, TileParts>();

  for (;;) {
    const marker = r.u16();
    if (marker === SOT) break;
    const length = r.u16();
    const body = r.bytes(length - 2);
    switch (marker) {
      case SIZ: {
        size = readSize(body);
        const { width, height } = imageSize(size);
        if (width * height !== expectedSamples) {
          throw new Jpeg2000Error(`image of ${width} x ${height} samples where ${expectedSamples} are expected`);
        }
        break;
      }
      case COD:
        coding = readCoding(body);
        break;
      case COC:
        if (!coding) throw new Jpeg2000Error('COC before COD');
        coding = readComponentCoding(body, coding);
        break;
      case QCD:
        quantization = readQuantization(body, 0);
        break;
      case QCC:
        quantization = readQuantization(body, 1);
        break;
      default:
        rejectUnsupported(marker);
    }
  }
  if (!size || !coding || !quantization) throw new Jpeg2000Error('main header lacks SIZ, COD or QCD');

  // Tile-parts: SOT, tile-part header, SOD, data.
  let sotStart = r.position - 2;
  for (;;) {
    const length = r.u16();
    if (length !== 10) throw new Jpeg2000Error(`SOT of length ${length}`);
    const index = r.u16();
    const partLength = r.u32();
    r.skip(2);
    const end = partLength === 0 ? data.length : sotStart + partLength;
    if (end > data.length || end < r.position) throw new Jpeg2000Error('tile-part overruns the codestream');
    let tile = tiles.get(index);
    const first = !tile;
    if (!tile) {
      tile = { coding, quantization, chunks: [] };
      tiles.set(index, tile);
    }
    for (;;) {
      const marker = r.u16();
      if (marker === SOD) break;
      const markerLength = r.u16();
      const body = r.bytes(markerLength - 2);
      if (marker === COD && first) tile.coding = readCoding(body);
      else if (marker === COC && first) tile.coding = readComponentCoding(body, tile.coding);
      else if (marker === QCD && first) tile.quantization = readQuantization(body, 0);
      else if (marker === QCC && first) tile.quantization = readQuantization(body, 1);
      else rejectUnsupported(marker);
    }
    if (r.position > end) throw new Jpeg2000Error('tile-part header overruns the tile-part');
    tile.chunks.push(data.subarray(r.position, end));
    r.position = end;
    if (end >= data.length - 1) break;
    const next = r.u16();
    if (next === EOC) break;
    if (next !== SOT) throw new Jpeg2000Error(`marker 0x${next.toString(16)} where SOT or EOC was expected`);
    sotStart = end;
  }

  const { width, height } = imageSize(size);
  const out = new Float64Array(width * height);
  const tilesAcross = Math.ceil((size.width - size.tileX0) / size.tileWidth);
  const tilesDown = Math.ceil((size.height - size.tileY0) / size.tileHeight);
  for (let t = 0; t < tilesAcross * tilesDown; t++) {
    const tile = tiles.get(t);
    if (!tile) throw new Jpeg2000Error(`tile ${t} is missing`);
    decodeTile(size, tile, t % tilesAcross, Math.floor(t / tilesAcross), out, width);
  }
  return out;
}

/** The contiguous codestream: the input itself, or the contents of the jp2c box of a JP2 file. */
function codestream(input: Uint8Array): Uint8Array {
  if (input.length >= 12 && input[4] === 0x6a && input[5] === 0x50 && input[6] === 0x20 && input[7] === 0x20) {
    let p = 0;
    while (p + 8 <= input.length) {
      let length = readU32(input, p);
      const type = String.fromCharCode(input[p + 4], input[p + 5], input[p + 6], input[p + 7]);
      let header = 8;
      if (length === 1) {
        length = readU32(input, p + 8) * 2 ** 32 + readU32(input, p + 12);
        header = 16;
      } else if (length === 0) {
        length = input.length - p;
      }
      if (length < header || p + length > input.length) break;
      if (type === 'jp2c') return input.subarray(p + header, p + length);
      p += length;
    }
    throw new Jpeg2000Error('JP2 file without a codestream box');
  }
  return input;
}

function rejectUnsupported(marker: number): void {
  const names: Record<number, string> = { [RGN]: 'region of interest (RGN)', [POC]: 'progression order change (POC)', [PPM]: 'packed packet headers (PPM)', [PPT]: 'packed packet headers (PPT)' };
  const name = names[marker];
  if (name) throw new Jpeg2000Error(`unsupported JPEG 2000 feature: ${name}`);
  if (marker < 0xff30) throw new Jpeg2000Error(`invalid marker 0x${marker.toString(16)}`);
}

function readU32(data: Uint8Array, p: number): number {
  return data[p] * 0x1000000 + ((data[p + 1] << 16) | (data[p + 2] << 8) | data[p + 3]);
}

class MarkerReader {
  position = 0;
  constructor(private readonly data: Uint8Array) {}

  private need(n: number): void {
    if (this.position + n > this.data.length) throw new Jpeg2000Error('truncated codestream');
  }

  u16(): number {
    this.need(2);
    const value = (this.data[this.position] << 8) | this.data[this.position + 1];
    this.position += 2;
    return value;
  }

  u32(): number {
    this.need(4);
    const value = readU32(this.data, this.position);
    this.position += 4;
    return value;
  }

  skip(n: number): void {
    this.need(n);
    this.position += n;
  }

  bytes(n: number): Uint8Array {
    if (n < 0) throw new Jpeg2000Error('marker segment of negative length');
    this.need(n);
    const bytes = this.data.subarray(this.position, this.position + n);
    this.position += n;
    return bytes;
  }
}

function readSize(b: Uint8Array): Size {
  if (b.length < 39) throw new Jpeg2000Error('short SIZ');
  const components = (b[34] << 8) | b[35];
  if (components !== 1) throw new Jpeg2000Error(`unsupported JPEG 2000 image of ${components} components`);
  const size = {
    width: readU32(b, 2),
    height: readU32(b, 6),
    x0: readU32(b, 10),
    y0: readU32(b, 14),
    tileWidth: readU32(b, 18),
    tileHeight: readU32(b, 22),
    tileX0: readU32(b, 26),
    tileY0: readU32(b, 30),
    precision: (b[36] & 0x7f) + 1,
    signed: (b[36] & 0x80) !== 0,
    dx: b[37],
    dy: b[38],
  };
  if (size.precision > 30) throw new Jpeg2000Error(`unsupported precision of ${size.precision} bits`);
  if (size.width <= size.x0 || size.height <= size.y0 || size.tileWidth === 0 || size.tileHeight === 0 || size.dx === 0 || size.dy === 0) {
    throw new Jpeg2000Error('invalid image or tile size');
  }
  if (size.tileX0 > size.x0 || size.tileY0 > size.y0 || size.tileX0 + size.tileWidth <= size.x0 || size.tileY0 + size.tileHeight <= size.y0) {
    throw new Jpeg2000Error('invalid tile origin');
  }
  return size;
}

function imageSize(size: Size): { width: number; height: number } {
  return {
    width: Math.ceil(size.width / size.dx) - Math.ceil(size.x0 / size.dx),
    height: Math.ceil(size.height / size.dy) - Math.ceil(size.y0 / size.dy),
  };
}

function readCoding(b: Uint8Array): CodingStyle {
  if (b.length < 10) throw new Jpeg2000Error('short COD');
  const scod = b[0];
  const style = readCodingParameters(b.subarray(5), (scod & 1) !== 0);
  const progression = b[1];
  const layers = (b[2] << 8) | b[3];
  if (progression > 4) throw new Jpeg2000Error(`invalid progression order ${progression}`);
  if (layers === 0) throw new Jpeg2000Error('zero quality layers');
  return { sop: (scod & 2) !== 0, eph: (scod & 4) !== 0, progression, layers, ...style };
}

function readComponentCoding(b: Uint8Array, base: CodingStyle): CodingStyle {
  if (b.length < 7) throw new Jpeg2000Error('short COC');
  return { ...base, ...readCodingParameters(b.subarray(2), (b[1] & 1) !== 0) };
}

function readCodingParameters(b: Uint8Array, precincts: boolean) {
  const levels = b[0];
  if (levels > 32) throw new Jpeg2000Error(`${levels} decomposition levels`);
  const xcb = (b[1] & 0xf) + 2;
  const ycb = (b[2] & 0xf) + 2;
  if (xcb > 10 || ycb > 10 || xcb + ycb > 12) throw new Jpeg2000Error('invalid code-block size');
  const ppx: number[] = [];
  const ppy: number[] = [];
  for (let r = 0; r <= levels; r++) {
    if (precincts) {
      if (5 + r >= b.length) throw new Jpeg2000Error('short precinct sizes');
      ppx.push(b[5 + r] & 0xf);
      ppy.push(b[5 + r] >> 4);
      if (r > 0 && (ppx[r] === 0 || ppy[r] === 0)) throw new Jpeg2000Error('invalid precinct size');
    } else {
      ppx.push(15);
      ppy.push(15);
    }
  }
  return { levels, xcb, ycb, blockStyle: b[3], reversible: b[4] === 1, ppx, ppy };
}

function readQuantization(b: Uint8Array, offset: number): Quantization {
  const sq = b[offset];
  const style = sq & 0x1f;
  const exponents: number[] = [];
  const mantissas: number[] = [];
  if (style === 0) {
    for (let i = offset + 1; i < b.length; i++) {
      exponents.push(b[i] >> 3);
      mantissas.push(0);
    }
  } else if (style === 1 || style === 2) {
    for (let i = offset + 1; i + 1 < b.length; i += 2) {
      const v = (b[i] << 8) | b[i + 1];
      exponents.push(v >> 11);
      mantissas.push(v & 0x7ff);
    }
  } else {
    throw new Jpeg2000Error(`invalid quantization style ${style}`);
  }
  if (exponents.length === 0) throw new Jpeg2000Error('quantization without step sizes');
  return { style, guardBits: sq >> 5, exponents, mantissas };
}

// ---------------------------------------------------------------------------------------------
// Tile structure: resolutions, subbands, precincts, code-blocks

interface Segment {
  chunks: Uint8Array[];
  passes: number;
  maxPasses: number;
}

interface CodeBlock {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  included: boolean;
  zeroPlanes: number;
  lblock: number;
  passes: number;
  segments: Segment[];
}

interface Band {
  /** 0 LL, 1 HL, 2 LH, 3 HH. */
  type: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Magnitude bit-planes (Mb) and the dequantisation step. */
  planes: number;
  step: number;
  blocks: CodeBlock[];
}

interface PrecinctBand {
  band: Band;
  blocks: CodeBlock[];
  across: number;
  inclusion: TagTree;
  zeroPlanes: TagTree;
}

interface Precinct {
  bands: PrecinctBand[];
  /** Reference-grid position at which position-driven progressions reach it. */
  x: number;
  y: number;
}

interface Resolution {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  bands: Band[];
  precincts: Precinct[];
}

function decodeTile(size: Size, tile: TileParts, column: number, row: number, out: Float64Array, outWidth: number): void {
  const { coding, quantization } = tile;
  const tx0 = Math.max(size.tileX0 + column * size.tileWidth, size.x0);
  const ty0 = Math.max(size.tileY0 + row * size.tileHeight, size.y0);
  const tx1 = Math.min(size.tileX0 + (column + 1) * size.tileWidth, size.width);
  const ty1 = Math.min(size.tileY0 + (row + 1) * size.tileHeight, size.height);
  const cx0 = Math.ceil(tx0 / size.dx);
  const cy0 = Math.ceil(ty0 / size.dy);
  const cx1 = Math.ceil(tx1 / size.dx);
  const cy1 = Math.ceil(ty1 / size.dy);
  const levels = coding.levels;

  const resolutions: Resolution[] = [];
  for (let r = 0; r <= levels; r++) {
    const scale = 2 ** (levels - r);
    const res: Resolution = {
      x0: Math.ceil(cx0 / scale),
      y0: Math.ceil(cy0 / scale),
      x1: Math.ceil(cx1 / scale),
      y1: Math.ceil(cy1 / scale),
      bands: [],
      precincts: [],
    };
    const level = r === 0 ? levels : levels - r + 1;
    for (const type of r === 0 ? [0] : [1, 2, 3]) {
      const xo = type & 1;
      const yo = type >> 1;
      const half = r === 0 ? 0 : 2 ** (level - 1);
      const index = r === 0 ? 0 : 3 * (r - 1) + type;
      const { planes, step } = bandQuantization(quantization, coding.reversible, size.precision, index, levels, level, type);
      res.bands.push({
        type,
        x0: Math.ceil((cx0 - half * xo) / 2 ** level),
        y0: Math.ceil((cy0 - half * yo) / 2 ** level),
        x1: Math.ceil((cx1 - half * xo) / 2 ** level),
        y1: Math.ceil((cy1 - half * yo) / 2 ** level),
        planes,
        step,
        blocks: [],
      });
    }
    buildPrecincts(res, r, coding, levels, size, tx0, ty0);
    resolutions.push(res);
  }

  readPackets(concat(tile.chunks), coding, resolutions);

  // Tier-1 decoding of every code-block into its subband, then the inverse wavelet transform.
  const t1 = new BlockDecoder();
  const bandData = resolutions.map((res) =>
    res.bands.map((band) => {
      const w = band.x1 - band.x0;
      const values = new Float64Array(Math.max(0, w * (band.y1 - band.y0)));
      for (const block of band.blocks) t1.decode(block, band, coding.blockStyle, coding.reversible, values, w);
      return values;
    }),
  );
  const samples = inverseWavelet(resolutions, bandData, coding.reversible);

  const shift = size.signed ? 0 : 2 ** (size.precision - 1);
  const low = size.signed ? -(2 ** (size.precision - 1)) : 0;
  const high = low + 2 ** size.precision - 1;
  const w = cx1 - cx0;
  const ox = cx0 - Math.ceil(size.x0 / size.dx);
  const oy = cy0 - Math.ceil(size.y0 / size.dy);
  for (let y = 0; y < cy1 - cy0; y++) placeRow(samples, y * w, out, (oy + y) * outWidth + ox, w, shift, low, high, coding.reversible);
}

/** A row of w tile samples into the image: level-shifted, rounded after the 9/7 wavelet, clamped to the sample range. */
function placeRow(samples: Float64Array, from: number, out: Float64Array, to: number, w: number, shift: number, low: number, high: number, reversible: boolean): void {
  for (let x = 0; x < w; x++) {
    let v = samples[from + x] + shift;
    if (!reversible) v = Math.round(v);
    out[to + x] = v < low ? low : v > high ? high : v;
  }
}

function bandQuantization(
  q: Quantization,
  reversible: boolean,
  precision: number,
  index: number,
  levels: number,
  level: number,
  type: number,
): { planes: number; step: number } {
  let exponent: number;
  let mantissa: number;
  if (q.style === 1) {
    // Derived: one step for LL, scaled by the decomposition level for the others.
    exponent = q.exponents[0] - levels + level;
    mantissa = q.mantissas[0];
  } else {
    if (index >= q.exponents.length) throw new Jpeg2000Error('fewer quantization steps than subbands');
    exponent = q.exponents[index];
    mantissa = q.mantissas[index];
  }
  const planes = q.guardBits + exponent - 1;
  // Magnitudes are kept in unsigned 32-bit integers.
  if (planes > 32) throw new Jpeg2000Error(`unsupported ${planes} magnitude bit-planes`);
  const gain = type === 0 ? 0 : type === 3 ? 2 : 1;
  const step = reversible ? 1 : 2 ** (precision + gain - exponent) * (1 + mantissa / 2048);
  return { planes, step };
}

function buildPrecincts(res: Resolution, r: number, coding: CodingStyle, levels: number, size: Size, tx0: number, ty0: number): void {
  const ppx = coding.ppx[r];
  const ppy = coding.ppy[r];
  if (res.x1 <= res.x0 || res.y1 <= res.y0) return;
  const px0 = Math.floor(res.x0 / 2 ** ppx);
  const py0 = Math.floor(res.y0 / 2 ** ppy);
  const across = Math.ceil(res.x1 / 2 ** ppx) - px0;
  const down = Math.ceil(res.y1 / 2 ** ppy) - py0;
  // Within a subband, precincts and code-blocks are half as large in resolutions above 0.
  const bppx = r === 0 ? ppx : ppx - 1;
  const bppy = r === 0 ? ppy : ppy - 1;
  const xcb = Math.min(coding.xcb, bppx);
  const ycb = Math.min(coding.ycb, bppy);
  const toReference = 2 ** (levels - r);
  for (let j = 0; j < down; j++) {
    for (let i = 0; i < across; i++) {
      const precinct: Precinct = {
        bands: [],
        x: i === 0 ? tx0 : (px0 + i) * 2 ** ppx * toReference * size.dx,
        y: j === 0 ? ty0 : (py0 + j) * 2 ** ppy * toReference * size.dy,
      };
      for (const band of res.bands) {
        const x0 = Math.max(band.x0, (px0 + i) * 2 ** bppx);
        const y0 = Math.max(band.y0, (py0 + j) * 2 ** bppy);
        const x1 = Math.min(band.x1, (px0 + i + 1) * 2 ** bppx);
        const y1 = Math.min(band.y1, (py0 + j + 1) * 2 ** bppy);
        if (x1 <= x0 || y1 <= y0) continue;
        const bx0 = Math.floor(x0 / 2 ** xcb);
        const by0 = Math.floor(y0 / 2 ** ycb);
        const bAcross = Math.ceil(x1 / 2 ** xcb) - bx0;
        const bDown = Math.ceil(y1 / 2 ** ycb) - by0;
        const blocks: CodeBlock[] = [];
        for (let v = 0; v < bDown; v++) {
          for (let u = 0; u < bAcross; u++) {
            const block: CodeBlock = {
              x0: Math.max(x0, (bx0 + u) * 2 ** xcb),
              y0: Math.max(y0, (by0 + v) * 2 ** ycb),
              x1: Math.min(x1, (bx0 + u + 1) * 2 ** xcb),
              y1: Math.min(y1, (by0 + v + 1) * 2 ** ycb),
              included: false,
              zeroPlanes: 0,
              lblock: 3,
              passes: 0,
              segments: [],
            };
            blocks.push(block);
            band.blocks.push(block);
          }
        }
        precinct.bands.push({
          band,
          blocks,
          across: bAcross,
          inclusion: new TagTree(bAcross, bDown),
          zeroPlanes: new TagTree(bAcross, bDown),
        });
      }
      res.precincts.push(precinct);
    }
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Tier 2: packets

/** Packets of a tile in its progression order, each a (layer, resolution, precinct), generated as read. */
function* packetOrder(coding: CodingStyle, resolutions: Resolution[]): Generator<[number, number, number]> {
  const layers = coding.layers;
  switch (coding.progression) {
    case 0: // LRCP
      for (let l = 0; l < layers; l++)
        for (let r = 0; r < resolutions.length; r++)
          for (let p = 0; p < resolutions[r].precincts.length; p++) yield [l, r, p];
      break;
    case 1: // RLCP
      for (let r = 0; r < resolutions.length; r++)
        for (let l = 0; l < layers; l++)
          for (let p = 0; p < resolutions[r].precincts.length; p++) yield [l, r, p];
      break;
    case 2: // RPCL: precincts of one resolution are met in raster order.
      for (let r = 0; r < resolutions.length; r++)
        for (let p = 0; p < resolutions[r].precincts.length; p++)
          for (let l = 0; l < layers; l++) yield [l, r, p];
      break;
    default: {
      // PCRL and CPRL (identical with one component): by position, then resolution.
      const all: [number, number, Precinct][] = [];
      resolutions.forEach((res, r) => res.precincts.forEach((precinct, p) => all.push([r, p, precinct])));
      all.sort((a, b) => a[2].y - b[2].y || a[2].x - b[2].x || a[0] - b[0]);
      for (const [r, p] of all) for (let l = 0; l < layers; l++) yield [l, r, p];
    }
  }
}

class PacketReader {
  position = 0;
  private byte = 0;
  private bits = 0;

  constructor(readonly data: Uint8Array) {}

  bit(): number {
    if (this.bits === 0) {
      if (this.position >= this.data.length) throw new Jpeg2000Error('truncated packet header');
      // After 0xFF a byte carries 7 bits: its first bit is a stuffed 0.
      this.bits = this.byte === 0xff ? 7 : 8;
      this.byte = this.data[this.position++];
    }
    this.bits--;
    return (this.byte >> this.bits) & 1;
  }

  read(n: number): number {
    let value = 0;
    for (let i = 0; i < n; i++) value = value * 2 + this.bit();
    return value;
  }

  /** Ends a packet header: skips the remaining bits and a stuffed byte after 0xFF. */
  align(): void {
    if (this.byte === 0xff) this.position++;
    this.byte = 0;
    this.bits = 0;
  }

  marker(code: number, length: number): void {
    const d = this.data;
    const p = this.position;
    if (p + 1 < d.length && d[p] === 0xff && d[p + 1] === (code & 0xff)) this.position += length;
  }
}

function readPackets(data: Uint8Array, coding: CodingStyle, resolutions: Resolution[]): void {
  const reader = new PacketReader(data);
  for (const [layer, r, p] of packetOrder(coding, resolutions)) {
    if (reader.position >= data.length) break;
    if (coding.sop) reader.marker(0xff91, 6);
    readPacket(reader, resolutions[r].precincts[p], layer, coding);
  }
}

interface Contribution {
  block: CodeBlock;
  segment: Segment;
  passes: number;
  length: number;
}

function readPacket(reader: PacketReader, precinct: Precinct, layer: number, coding: CodingStyle): void {
  const contributions: Contribution[] = [];
  if (reader.bit()) {
    for (const pb of precinct.bands) {
      for (let k = 0; k < pb.blocks.length; k++) {
        const block = pb.blocks[k];
        const x = k % pb.across;
        const y = Math.floor(k / pb.across);
        const included = block.included ? reader.bit() === 1 : pb.inclusion.decode(reader, x, y, layer + 1);
        if (!included) continue;
        if (!block.included) {
          let zero = 0;
          while (!pb.zeroPlanes.decode(reader, x, y, zero + 1)) {
            if (++zero > pb.band.planes) throw new Jpeg2000Error('more zero bit-planes than bit-planes');
          }
          block.zeroPlanes = zero;
          block.included = true;
        }
        let passes = readPassCount(reader);
        while (reader.bit()) block.lblock++;
        // New passes fill the open codeword segment, then new ones (their size depends on the style).
        let segment: Segment | undefined = block.segments[block.segments.length - 1];
        let used = segment ? segment.passes : 0;
        while (passes > 0) {
          if (!segment || used >= segment.maxPasses) {
            segment = { chunks: [], passes: 0, maxPasses: segmentPasses(coding.blockStyle, block.segments) };
            block.segments.push(segment);
            used = 0;
          }
          const take = Math.min(passes, segment.maxPasses - used);
          const length = reader.read(block.lblock + Math.floor(Math.log2(take)));
          contributions.push({ block, segment, passes: take, length });
          used += take;
          passes -= take;
        }
      }
    }
  }
  reader.align();
  if (coding.eph) reader.marker(0xff92, 2);
  for (const c of contributions) {
    const end = reader.position + c.length;
    if (end > reader.data.length) throw new Jpeg2000Error('code-block data overruns the tile');
    c.segment.chunks.push(reader.data.subarray(reader.position, end));
    c.segment.passes += c.passes;
    c.block.passes += c.passes;
    reader.position = end;
  }
}

function readPassCount(reader: PacketReader): number {
  if (!reader.bit()) return 1;
  if (!reader.bit()) return 2;
  const two = reader.read(2);
  if (two < 3) return 3 + two;
  const five = reader.read(5);
  if (five < 31) return 6 + five;
  return 37 + reader.read(7);
}

/** Passes a new codeword segment can hold (as OpenJPEG's t2 decoder reckons them). */
function segmentPasses(style: number, previous: Segment[]): number {
  if (style & TERMINATE_ALL) return 1;
  if (style & BYPASS) {
    if (previous.length === 0) return 10;
    const last = previous[previous.length - 1].maxPasses;
    return last === 1 || last === 10 ? 2 : 1;
  }
  return 109;
}

class TagTree {
  private readonly widths: number[] = [];
  private readonly offsets: number[] = [];
  private readonly value: Int32Array;
  private readonly low: Int32Array;

  constructor(width: number, height: number) {
    let w = width;
    let h = height;
    let total = 0;
    for (;;) {
      this.widths.push(w);
      this.offsets.push(total);
      total += w * h;
      if (w === 1 && h === 1) break;
      w = Math.ceil(w / 2);
      h = Math.ceil(h / 2);
    }
    this.value = new Int32Array(total).fill(0x7fffffff);
    this.low = new Int32Array(total);
  }

  /** Whether the leaf (x, y) has a value below threshold, reading the bits that tell from the root down. */
  decode(reader: PacketReader, x: number, y: number, threshold: number): boolean {
    let low = 0;
    let node = 0;
    for (let l = this.widths.length - 1; l >= 0; l--) {
      node = this.offsets[l] + (y >> l) * this.widths[l] + (x >> l);
      if (low > this.low[node]) this.low[node] = low;
      else low = this.low[node];
      while (low < threshold && low < this.value[node]) {
        if (reader.bit()) this.value[node] = low;
        else low++;
      }
      this.low[node] = low;
    }
    return this.value[node] < threshold;
  }
}

// ---------------------------------------------------------------------------------------------
// Tier 1: the MQ arithmetic decoder and the three coding passes

// Table C.2: probability estimates, next states after an MPS or LPS, and MPS switches.
const QE_TABLE = [
  0x5601, 0x3401, 0x1801, 0x0ac1, 0x0521, 0x0221, 0x5601, 0x5401, 0x4801, 0x3801, 0x3001, 0x2401, 0x1c01, 0x1601,
  0x5601, 0x5401, 0x5101, 0x4801, 0x3801, 0x3401, 0x3001, 0x2801, 0x2401, 0x2201, 0x1c01, 0x1801, 0x1601, 0x1401,
  0x1201, 0x1101, 0x0ac1, 0x09c1, 0x08a1, 0x0521, 0x0441, 0x02a1, 0x0221, 0x0141, 0x0111, 0x0085, 0x0049, 0x0025,
  0x0015, 0x0009, 0x0005, 0x0001, 0x5601,
];
const NMPS_TABLE = [
  1, 2, 3, 4, 5, 38, 7, 8, 9, 10, 11, 12, 13, 29, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
  33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 45, 46,
];
const NLPS_TABLE = [
  1, 6, 9, 12, 29, 33, 6, 14, 14, 14, 17, 18, 20, 21, 14, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
  29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 46,
];
const SWITCH_STATES = new Set([0, 6, 14]);

/**
 * The same tables over combined context values (state * 2 + MPS), as OpenJPEG keeps them: the
 * next combined value after an MPS or an LPS, with the MPS switch folded in.
 */
const QE = new Uint16Array(94);
const NEXT_MPS = new Uint8Array(94);
const NEXT_LPS = new Uint8Array(94);
for (let state = 0; state < 47; state++) {
  for (let mps = 0; mps < 2; mps++) {
    const s = state * 2 + mps;
    QE[s] = QE_TABLE[state];
    NEXT_MPS[s] = NMPS_TABLE[state] * 2 + mps;
    NEXT_LPS[s] = NLPS_TABLE[state] * 2 + (SWITCH_STATES.has(state) ? 1 - mps : mps);
  }
}

const REFINEMENT_CONTEXT = 14;
const RUN_CONTEXT = 17;
const UNIFORM_CONTEXT = 18;

/**
 * Zero-coding contexts (table D.1) indexed by h + 4v + 16d, the counts of significant horizontal,
 * vertical and diagonal neighbours; per subband type (LL and LH share one; HL swaps h and v).
 */
const ZERO_CONTEXTS: Uint8Array[] = (() => {
  const lowHigh = (h: number, v: number, d: number) =>
    h === 2 ? 8 : h === 1 ? (v >= 1 ? 7 : d >= 1 ? 6 : 5) : v === 2 ? 4 : v === 1 ? 3 : d >= 2 ? 2 : d;
  const diagonal = (h: number, v: number, d: number) => {
    const hv = h + v;
    if (d >= 3) return 8;
    if (d === 2) return hv >= 1 ? 7 : 6;
    if (d === 1) return hv >= 2 ? 5 : hv === 1 ? 4 : 3;
    return hv >= 2 ? 2 : hv;
  };
  const table = (f: (h: number, v: number, d: number) => number) => {
    const t = new Uint8Array(80);
    for (let h = 0; h <= 2; h++) for (let v = 0; v <= 2; v++) for (let d = 0; d <= 4; d++) t[h + 4 * v + 16 * d] = f(h, v, d);
    return t;
  };
  const ll = table(lowHigh);
  return [ll, table((h, v, d) => lowHigh(v, h, d)), ll, table(diagonal)];
})();

// Per-sample flags: neighbour counts (h + 4v + 16d) in the low 7 bits, then state bits.
const NEIGHBOURS = 0x7f;
const SIG = 0x100;
const NEG = 0x200;
const VISITED = 0x400;
const REFINED = 0x800;

// Per stripe column (four samples of a column within a stripe), what the passes test before looking
// at its samples: one of them significant, one visited by this plane's significance pass, one with a
// significant neighbour that its context counts (under the vertically causal style, not those below
// a stripe's last row). In a whole stripe each bit is set exactly when some sample's state says so;
// the word of a partial stripe (the last of a block whose height is not a multiple of 4) is not read.
const COLUMN_SIG = 1;
const COLUMN_VISITED = 2;
const COLUMN_NEIGHBOURS = 4;

/** Half of each bit-plane's weight, 2^(plane - 1): where a coefficient is reconstructed within the interval its last plane leaves. */
const HALF_PLANE = Float64Array.from({ length: 32 }, (_, plane) => 2 ** (plane - 1));

/**
 * Sign contexts and XOR bits (table D.3), indexed by the states of the left, right, upper and
 * lower neighbours, 2 bits each: 0 insignificant, 1 positive, 3 negative ((flags >> 8) & 3).
 */
const [SIGN_CONTEXTS, SIGN_XOR] = (() => {
  const contexts = new Uint8Array(256);
  const xor = new Uint8Array(256);
  const value = (state: number) => (state === 1 ? 1 : state === 3 ? -1 : 0);
  const clamp = (n: number) => Math.max(-1, Math.min(1, n));
  for (let i = 0; i < 256; i++) {
    const h = clamp(value(i & 3) + value((i >> 2) & 3));
    const v = clamp(value((i >> 4) & 3) + value((i >> 6) & 3));
    // (H, V) -> context: 13 for (1, 1), 12 for (1, 0), 11 for (1, -1), 10 for (0, +-1), 9 for (0, 0); negated H, V flip the sign.
    const [hh, vv, flip] = h < 0 || (h === 0 && v < 0) ? [-h, -v, 1] : [h, v, 0];
    contexts[i] = hh === 1 ? 12 + vv : vv === 0 ? 9 : 10;
    xor[i] = flip;
  }
  return [contexts, xor];
})();

class BlockDecoder {
  // Per-sample state on a grid with a one-sample border, so neighbours need no bounds checks.
  private flags = new Int32Array(0);
  private magnitude = new Uint32Array(0);
  /** Bit-plane at which each coefficient became significant, for its reconstruction. */
  private sigPlane = new Uint8Array(0);
  /** COLUMN_ bits of each stripe column, on a grid of stripes with a border of one stripe column. */
  private columns = new Int32Array(0);
  /** Context states as state * 2 + MPS. */
  private readonly contexts = new Uint8Array(19);

  // MQ decoder registers (C.3) and the raw (bypass) reader. C is one 32-bit register kept as an
  // int32 (| 0 after each addition, so that it never leaves V8's small integers): Chigh is c >>> 16.
  private data = new Uint8Array(0);
  private bp = 0;
  private c = 0;
  private a = 0;
  private ct = 0;
  private rawByte = 0;

  private stride = 0;
  private vcausal = false;

  decode(block: CodeBlock, band: Band, style: number, reversible: boolean, out: Float64Array, outWidth: number): void {
    const width = block.x1 - block.x0;
    const height = block.y1 - block.y0;
    if (block.passes === 0) return;
    const top = band.planes - 1 - block.zeroPlanes;
    if (top < 0 || block.passes > 3 * top + 1) throw new Jpeg2000Error('more coding passes than bit-planes');
    this.prepare(width, height);
    this.vcausal = (style & VERTICALLY_CAUSAL) !== 0;
    this.resetContexts();

    let plane = top;
    let kind = 2; // 0 significance propagation, 1 magnitude refinement, 2 cleanup
    let segment = 0;
    let inSegment = 0;
    let raw = false;
    // The plane of the last refinement pass (32 for none), which refines every coefficient significant before it.
    let refined = 32;
    for (let pass = 0; pass < block.passes; pass++) {
      if (inSegment === 0) {
        raw = (style & BYPASS) !== 0 && pass >= 10 && kind !== 2;
        this.start(block.segments[segment], raw);
      }
      if (kind === 0) this.significancePass(width, height, plane, band.type, raw);
      else if (kind === 1) {
        this.refinementPass(width, height, plane, raw);
        refined = plane;
      }
      else {
        this.cleanupPass(width, height, plane, band.type);
        if (style & SEGMENTATION) for (let i = 0; i < 4; i++) this.decodeBit(UNIFORM_CONTEXT);
      }
      if (style & RESET) this.resetContexts();
      if (++inSegment === block.segments[segment].passes) {
        segment++;
        inSegment = 0;
      }
      if (kind === 2) {
        plane--;
        kind = 0;
      } else {
        kind++;
      }
    }

    // Coefficients: sign and magnitude, reconstructed at the middle of the interval that each one's
    // last coded bit-plane leaves open, as OpenJPEG does; integers for the reversible transform. That
    // plane is the one where it became significant, or the last refinement pass's if that came after.
    const W = this.stride;
    const step = band.step;
    const flags = this.flags;
    const magnitude = this.magnitude;
    const sigPlane = this.sigPlane;
    for (let y = 0; y < height; y++) {
      const row = (block.y0 - band.y0 + y) * outWidth + block.x0 - band.x0;
      for (let x = 0, p = (y + 1) * W + 1; x < width; x++, p++) {
        const m = magnitude[p];
        if (m === 0) continue;
        const plane = sigPlane[p];
        const middle = m + HALF_PLANE[plane < refined ? plane : refined];
        const v = reversible ? Math.floor(middle) : middle * step;
        out[row + x] = flags[p] & NEG ? -v : v;
      }
    }
  }

  private prepare(width: number, height: number): void {
    this.stride = width + 2;
    const n = this.stride * (height + 2);
    if (this.flags.length < n) {
      this.flags = new Int32Array(n);
      this.magnitude = new Uint32Array(n);
      this.sigPlane = new Uint8Array(n);
    } else {
      this.flags.fill(0, 0, n);
      this.magnitude.fill(0, 0, n);
    }
    const columns = this.stride * ((height + 3 >> 2) + 2);
    if (this.columns.length < columns) this.columns = new Int32Array(columns);
    else this.columns.fill(0, 0, columns);
  }

  private resetContexts(): void {
    this.contexts.fill(0);
    this.contexts[0] = 4 * 2;
    this.contexts[RUN_CONTEXT] = 3 * 2;
    this.contexts[UNIFORM_CONTEXT] = 46 * 2;
  }

  /** Starts a codeword segment: its bytes followed by 0xFF 0xFF, as the decoder expects past the end. */
  private start(segment: Segment, raw: boolean): void {
    const length = segment.chunks.reduce((n, c) => n + c.length, 0);
    const data = new Uint8Array(length + 2);
    let p = 0;
    for (const chunk of segment.chunks) {
      data.set(chunk, p);
      p += chunk.length;
    }
    data[length] = data[length + 1] = 0xff;
    this.data = data;
    this.bp = 0;
    if (raw) {
      this.ct = 0;
      this.rawByte = 0;
      return;
    }
    // INITDEC (C.3.5)
    this.c = data[0] << 16;
    this.byteIn();
    this.c <<= 7;
    this.ct -= 7;
    this.a = 0x8000;
  }

  /**
   * BYTEIN (C.3.4): a 0xFF followed by a byte over 0x8F is a marker, past which 1 bits are fed. The
   * 0xFF 0xFF that start() appends is such a marker, so bp never passes the end.
   */
  private byteIn(): void {
    const data = this.data;
    const bp = this.bp;
    if (data[bp] !== 0xff) {
      this.bp = bp + 1;
      this.c = (this.c + (data[bp + 1] << 8)) | 0;
      this.ct = 8;
    } else if (data[bp + 1] > 0x8f) {
      this.c = (this.c + 0xff00) | 0;
      this.ct = 8;
    } else {
      this.bp = bp + 1;
      this.c = (this.c + (data[bp + 1] << 9)) | 0;
      this.ct = 7;
    }
  }

  /** DECODE (C.3.2) with the conditional exchanges and renormalisation inlined. */
  private decodeBit(cx: number): number {
    const contexts = this.contexts;
    const s = contexts[cx];
    const qe = QE[s];
    let a = this.a - qe;
    let c = this.c;
    let d: number;
    if (c >>> 16 < qe) {
      // LPS interval, or an MPS by conditional exchange.
      if (a < qe) {
        d = s & 1;
        contexts[cx] = NEXT_MPS[s];
      } else {
        d = 1 - (s & 1);
        contexts[cx] = NEXT_LPS[s];
      }
      a = qe;
    } else {
      c = (c - (qe << 16)) | 0;
      if (a & 0x8000) {
        this.a = a;
        this.c = c;
        return s & 1;
      }
      if (a < qe) {
        d = 1 - (s & 1);
        contexts[cx] = NEXT_LPS[s];
      } else {
        d = s & 1;
        contexts[cx] = NEXT_MPS[s];
      }
    }
    // RENORMD: A and C shift left until A's top bit (0x8000) is set, all at once while CT lasts.
    let shift = Math.clz32(a) - 16;
    this.a = a << shift;
    let ct = this.ct;
    while (ct < shift) {
      this.c = c << ct;
      shift -= ct;
      this.byteIn();
      c = this.c;
      ct = this.ct;
    }
    this.c = c << shift;
    this.ct = ct - shift;
    return d;
  }

  /** A bit of a bypass (raw) segment: after 0xFF the next byte has a stuffed first bit. */
  private rawBit(): number {
    if (this.ct === 0) {
      const previous = this.rawByte;
      this.rawByte = this.bp < this.data.length ? this.data[this.bp++] : 0xff;
      this.ct = previous === 0xff ? 7 : 8;
    }
    this.ct--;
    return (this.rawByte >> this.ct) & 1;
  }

  /** Neighbour counts of p, whose flags are given; the vertically causal style ignores the row below the last row of a stripe. */
  private context(flags: number, p: number, y: number): number {
    const n = flags & NEIGHBOURS;
    if ((y & 3) !== 3 || !this.vcausal) return n;
    const W = this.stride;
    const f = this.flags;
    return n - ((f[p + W] & SIG) >> 6) - ((f[p + W - 1] & SIG) >> 4) - ((f[p + W + 1] & SIG) >> 4);
  }

  private decodeSign(p: number, y: number, raw: boolean): number {
    if (raw) return this.rawBit();
    const W = this.stride;
    const f = this.flags;
    const below = this.vcausal && (y & 3) === 3 ? 0 : (f[p + W] >> 8) & 3;
    const i = ((f[p - 1] >> 8) & 3) | (((f[p + 1] >> 8) & 3) << 2) | (((f[p - W] >> 8) & 3) << 4) | (below << 6);
    return this.decodeBit(SIGN_CONTEXTS[i]) ^ SIGN_XOR[i];
  }

  /** Sample p, of row y, becomes significant at this plane; q is its stripe column. */
  private becomeSignificant(p: number, q: number, y: number, negative: number, plane: number): void {
    const W = this.stride;
    const f = this.flags;
    const columns = this.columns;
    columns[q - 1] |= COLUMN_NEIGHBOURS;
    columns[q] |= COLUMN_SIG | COLUMN_NEIGHBOURS;
    columns[q + 1] |= COLUMN_NEIGHBOURS;
    if ((y & 3) === 0 && !this.vcausal) {
      columns[q - W - 1] |= COLUMN_NEIGHBOURS;
      columns[q - W] |= COLUMN_NEIGHBOURS;
      columns[q - W + 1] |= COLUMN_NEIGHBOURS;
    } else if ((y & 3) === 3) {
      columns[q + W - 1] |= COLUMN_NEIGHBOURS;
      columns[q + W] |= COLUMN_NEIGHBOURS;
      columns[q + W + 1] |= COLUMN_NEIGHBOURS;
    }
    f[p] |= negative ? SIG | NEG : SIG;
    this.magnitude[p] = 1 << plane;
    this.sigPlane[p] = plane;
    f[p - 1] += 1;
    f[p + 1] += 1;
    f[p - W] += 4;
    f[p + W] += 4;
    f[p - W - 1] += 16;
    f[p - W + 1] += 16;
    f[p + W - 1] += 16;
    f[p + W + 1] += 16;
  }

  private significancePass(width: number, height: number, plane: number, type: number, raw: boolean): void {
    const W = this.stride;
    const zc = ZERO_CONTEXTS[type];
    const f = this.flags;
    const columns = this.columns;
    for (let y0 = 0; y0 < height; y0 += 4) {
      const y1 = Math.min(y0 + 4, height);
      // Column words are for whole stripes: a partial one (images of a row or two) gains nothing by them.
      const full = y1 - y0 === 4;
      for (let x = 0, q = (y0 / 4 + 1) * W + 1; x < width; x++, q++) {
        // A stripe column with no significant neighbour anywhere has nothing to code in this pass.
        if (full && (columns[q] & COLUMN_NEIGHBOURS) === 0) continue;
        for (let y = y0, p = (y0 + 1) * W + x + 1; y < y1; y++, p += W) {
          const flags = f[p];
          if (flags & SIG) continue;
          const n = this.context(flags, p, y);
          if (n === 0) continue;
          f[p] = flags | VISITED;
          if (full) columns[q] |= COLUMN_VISITED;
          if (raw ? this.rawBit() : this.decodeBit(zc[n])) this.becomeSignificant(p, q, y, this.decodeSign(p, y, raw), plane);
        }
      }
    }
  }

  private refinementPass(width: number, height: number, plane: number, raw: boolean): void {
    const W = this.stride;
    const f = this.flags;
    const bit = 1 << plane;
    const columns = this.columns;
    for (let y0 = 0; y0 < height; y0 += 4) {
      const y1 = Math.min(y0 + 4, height);
      const full = y1 - y0 === 4;
      for (let x = 0, q = (y0 / 4 + 1) * W + 1; x < width; x++, q++) {
        // Only significant samples are refined.
        if (full && (columns[q] & COLUMN_SIG) === 0) continue;
        for (let y = y0, p = (y0 + 1) * W + x + 1; y < y1; y++, p += W) {
          const flags = f[p];
          if ((flags & (SIG | VISITED)) !== SIG) continue;
          let set: number;
          if (raw) set = this.rawBit();
          else {
            const cx = flags & REFINED ? REFINEMENT_CONTEXT + 2 : this.context(flags, p, y) ? REFINEMENT_CONTEXT + 1 : REFINEMENT_CONTEXT;
            set = this.decodeBit(cx);
          }
          if (set) this.magnitude[p] |= bit;
          if ((flags & REFINED) === 0) f[p] = flags | REFINED;
        }
      }
    }
  }

  private cleanupPass(width: number, height: number, plane: number, type: number): void {
    const W = this.stride;
    const zc = ZERO_CONTEXTS[type];
    const f = this.flags;
    const columns = this.columns;
    // Run-length mode needs four samples neither significant, visited, nor with significant neighbours.
    const busy = COLUMN_SIG | COLUMN_VISITED | COLUMN_NEIGHBOURS;
    for (let y0 = 0; y0 < height; y0 += 4) {
      const y1 = Math.min(y0 + 4, height);
      const full = y1 - y0 === 4;
      for (let x = 0, q = (y0 / 4 + 1) * W + 1; x < width; x++, q++) {
        let y = y0;
        const column = full ? columns[q] : busy;
        if ((column & busy) === 0) {
          // One symbol says whether any of the four becomes significant, two more say which.
          if (!this.decodeBit(RUN_CONTEXT)) continue;
          const run = (this.decodeBit(UNIFORM_CONTEXT) << 1) | this.decodeBit(UNIFORM_CONTEXT);
          y = y0 + run;
          const p = (y + 1) * W + x + 1;
          this.becomeSignificant(p, q, y, this.decodeSign(p, y, false), plane);
          y++;
        }
        for (let p = (y + 1) * W + x + 1; y < y1; y++, p += W) {
          const flags = f[p];
          if (flags & VISITED) {
            f[p] = flags & ~VISITED;
            continue;
          }
          if (flags & SIG) continue;
          if (this.decodeBit(zc[this.context(flags, p, y)])) this.becomeSignificant(p, q, y, this.decodeSign(p, y, false), plane);
        }
        if (full && column & COLUMN_VISITED) columns[q] &= ~COLUMN_VISITED;
      }
    }
  }

}

// ---------------------------------------------------------------------------------------------
// Inverse discrete wavelet transform (annex F)

function inverseWavelet(resolutions: Resolution[], bands: Float64Array[][], reversible: boolean): Float64Array {
  let current = bands[0][0];
  for (let r = 1; r < resolutions.length; r++) {
    const res = resolutions[r];
    const previous = resolutions[r - 1];
    const [hl, lh, hh] = bands[r];
    const [bHL, bLH, bHH] = res.bands;
    const w = res.x1 - res.x0;
    const h = res.y1 - res.y0;
    if (w <= 0 || h <= 0) {
      current = new Float64Array(0);
      continue;
    }
    const out = new Float64Array(w * h);
    const llWidth = previous.x1 - previous.x0;
    const hlWidth = bHL.x1 - bHL.x0;
    const lhWidth = bLH.x1 - bLH.x0;
    const hhWidth = bHH.x1 - bHH.x0;
    // Interleave: even absolute coordinates take low-pass samples, odd ones high-pass samples.
    const evenFirst = res.x0 & 1;
    for (let j = 0; j < h; j++) {
      const v = res.y0 + j;
      const lowRow = (v & 1) === 0;
      const sr = lowRow ? v / 2 - previous.y0 : (v - 1) / 2 - bLH.y0;
      // Sample i of the row is column u = res.x0 + i, from column u / 2 (even) or (u - 1) / 2 (odd) of its band.
      const evenBand = lowRow ? current : lh;
      const evenAt = lowRow ? sr * llWidth - previous.x0 : sr * lhWidth - bLH.x0;
      const oddBand = lowRow ? hl : hh;
      const oddAt = lowRow ? sr * hlWidth - bHL.x0 : sr * hhWidth - bHH.x0;
      interleaveRow(out, j * w, w, evenFirst, evenBand, evenAt + (res.x0 + evenFirst) / 2, oddBand, oddAt + (res.x0 - evenFirst) / 2);
    }
    // Rows one by one, then the columns all together: a row of the image at a time, in order.
    const filterRow = reversible ? inverse53Row : inverse97Row;
    for (let j = 0; j < h; j++) filterRow(out, j * w, w, res.x0 & 1);
    if (h > 1 || (res.y0 & 1) === 1) (reversible ? inverse53 : inverse97)(out, 0, h, w, w, res.y0 & 1);
    current = out;
  }
  return current;
}

/**
 * Row `row` of a w-wide image from consecutive samples of two bands: `even` fills the samples at
 * even absolute coordinates, the first of them at index `first`, and `odd` the others. (A function
 * called per row is optimised after a few rows, where a loop of inverseWavelet would wait for OSR.)
 */
function interleaveRow(out: Float64Array, row: number, w: number, first: number, even: Float64Array, evenFrom: number, odd: Float64Array, oddFrom: number): void {
  for (let i = row + first, s = evenFrom; i < row + w; i += 2, s++) out[i] = even[s];
  for (let i = row + 1 - first, s = oddFrom; i < row + w; i += 2, s++) out[i] = odd[s];
}

// The synthesis filters run over `count` signals side by side, sample k of signal v at
// x[base + k * stride + v]: a row is one signal (stride 1), the columns of a w-wide image are w
// signals (stride w), whose lifting steps then read and write whole rows. Whole-sample symmetric
// extension at both ends: sample -1 is sample 1, sample n is sample n - 2.

/** Reversible 5/3 synthesis in place; `odd` is the parity of the first absolute coordinate. */
function inverse53(x: Float64Array, base: number, n: number, stride: number, count: number, odd: number): void {
  if (n === 1) {
    if (odd) for (let v = 0; v < count; v++) x[base + v] /= 2;
    return;
  }
  for (let k = odd; k < n; k += 2) {
    const at = base + k * stride;
    const left = base + (k > 0 ? k - 1 : k + 1) * stride;
    const right = base + (k + 1 < n ? k + 1 : k - 1) * stride;
    for (let v = 0; v < count; v++) x[at + v] -= Math.floor((x[left + v] + x[right + v] + 2) / 4);
  }
  for (let k = 1 - odd; k < n; k += 2) {
    const at = base + k * stride;
    const left = base + (k > 0 ? k - 1 : k + 1) * stride;
    const right = base + (k + 1 < n ? k + 1 : k - 1) * stride;
    for (let v = 0; v < count; v++) x[at + v] += Math.floor((x[left + v] + x[right + v]) / 2);
  }
}

/** inverse53 of one row (stride 1, one signal), without the loop over signals for each sample. */
function inverse53Row(x: Float64Array, base: number, n: number, odd: number): void {
  if (n === 1) {
    if (odd) x[base] /= 2;
    return;
  }
  const last = base + n - 1;
  for (let k = base + odd; k <= last; k += 2) x[k] -= Math.floor((x[k > base ? k - 1 : k + 1] + x[k < last ? k + 1 : k - 1] + 2) / 4);
  for (let k = base + 1 - odd; k <= last; k += 2) x[k] += Math.floor((x[k > base ? k - 1 : k + 1] + x[k < last ? k + 1 : k - 1]) / 2);
}

const ALPHA = -1.586134342059924;
const BETA = -0.052980118572961;
const GAMMA = 0.882911075530934;
const DELTA = 0.443506852043971;
const K = 1.230174104914001;

/** Irreversible 9/7 synthesis in place (F.3.8.2): scaling, then four lifting steps. */
function inverse97(x: Float64Array, base: number, n: number, stride: number, count: number, odd: number): void {
  if (n === 1) {
    if (odd) for (let v = 0; v < count; v++) x[base + v] /= 2;
    return;
  }
  const even = odd;
  const oddStart = 1 - odd;
  for (let k = even; k < n; k += 2) for (let v = 0, at = base + k * stride; v < count; v++) x[at + v] *= K;
  for (let k = oddStart; k < n; k += 2) for (let v = 0, at = base + k * stride; v < count; v++) x[at + v] /= K;
  const lift = (start: number, c: number) => {
    for (let k = start; k < n; k += 2) {
      const at = base + k * stride;
      const left = base + (k > 0 ? k - 1 : k + 1) * stride;
      const right = base + (k + 1 < n ? k + 1 : k - 1) * stride;
      for (let v = 0; v < count; v++) x[at + v] -= c * (x[left + v] + x[right + v]);
    }
  };
  lift(even, DELTA);
  lift(oddStart, GAMMA);
  lift(even, BETA);
  lift(oddStart, ALPHA);
}

/** inverse97 of one row (stride 1, one signal), without the loop over signals for each sample. */
function inverse97Row(x: Float64Array, base: number, n: number, odd: number): void {
  if (n === 1) {
    if (odd) x[base] /= 2;
    return;
  }
  const last = base + n - 1;
  for (let k = base + odd; k <= last; k += 2) x[k] *= K;
  for (let k = base + 1 - odd; k <= last; k += 2) x[k] /= K;
  const lift = (start: number, c: number) => {
    for (let k = start; k <= last; k += 2) x[k] -= c * (x[k > base ? k - 1 : k + 1] + x[k < last ? k + 1 : k - 1]);
  };
  lift(base + odd, DELTA);
  lift(base + 1 - odd, GAMMA);
  lift(base + odd, BETA);
  lift(base + 1 - odd, ALPHA);
}
