/**
 * Adaptive Entropy Coding decoder (CCSDS 121.0-B, the stream libaec writes) for GRIB2 data template
 * 5.42: blocks of Rice-coded samples (split samples k, second extension, runs of zero blocks,
 * uncompressed blocks), grouped in reference sample intervals, with the unit-delay preprocessor
 * undone when the flags say it was applied. Samples are unsigned integers of up to 32 bits, as GRIB2
 * packs them; the simple-packing scaling is the caller's.
 *
 * It exists because no npm package decodes this stream (libaec is C only).
 */

export class CcsdsError extends Error {
  override name = 'CcsdsError';
}

/**
 * libaec's option flags, as GRIB2 stores them in `ccsdsFlags`. The others (2 and 4) set the byte
 * layout of libaec's output samples, which does not change the stream.
 */
export const CcsdsFlag = {
  signed: 1,
  preprocess: 8,
  restricted: 16,
  /** Each reference sample interval starts on a byte boundary. */
  padRsi: 32,
} as const;

export interface CcsdsParameters {
  bitsPerSample: number;
  flags: number;
  /** Samples per block: 8, 16, 32 or 64. */
  blockSize: number;
  /** Blocks per reference sample interval. */
  referenceSampleInterval: number;
}

/** Blocks one zero-block code of this value stands for: the rest of the segment of 64 blocks or of the interval. */
const REMAINDER_OF_SEGMENT = 5;

/** Second extension: codeword m is the pair (d0, d1) with d0 + d1 = sum[m] and m = sum(sum + 1) / 2 + d1. */
const SE_SUM = new Uint8Array(91);
const SE_BASE = new Uint8Array(91);
for (let sum = 0, m = 0; sum < 13; sum++) {
  for (let j = 0; j <= sum; j++, m++) {
    SE_SUM[m] = sum;
    SE_BASE[m] = (sum * (sum + 1)) / 2;
  }
}

/** The stream as big-endian 32-bit words, two zero words past its end so reads need no bounds checks. */
function toWords(stream: Uint8Array): Int32Array {
  const words = new Int32Array((stream.length >> 2) + 3);
  const whole = stream.length & ~3;
  const view = new DataView(stream.buffer, stream.byteOffset, stream.length);
  for (let i = 0, k = 0; k < whole; i++, k += 4) words[i] = view.getInt32(k);
  for (let k = whole; k < stream.length; k++) words[k >> 2]! |= stream[k]! << (24 - 8 * (k & 3));
  return words;
}

/** The 32 bits that start at bit `position`. */
function peek(words: Int32Array, position: number): number {
  const offset = position & 31;
  const i = position >>> 5;
  return offset === 0 ? words[i]! : (words[i]! << offset) | (words[i + 1]! >>> (32 - offset));
}

/** An unsigned value of 1 to 32 bits at `position`. */
function readAt(words: Int32Array, position: number, width: number): number {
  return peek(words, position) >>> (32 - width);
}

/** A fundamental sequence codeword at `position`: the number of 0 bits before the next 1. */
function zerosAt(words: Int32Array, position: number, end: number): number {
  let count = 0;
  for (let p = position; p < end; p += 32) {
    const w = peek(words, p);
    if (w !== 0) return count + Math.clz32(w);
    count += 32;
  }
  throw new CcsdsError('stream ends inside a codeword');
}

function checkParameters(p: CcsdsParameters): void {
  if (p.bitsPerSample < 1 || p.bitsPerSample > 32) throw new CcsdsError(`${p.bitsPerSample} bits per sample`);
  if (![8, 16, 32, 64].includes(p.blockSize)) throw new CcsdsError(`block size ${p.blockSize}`);
  if (p.referenceSampleInterval < 1 || p.referenceSampleInterval > 4096) {
    throw new CcsdsError(`reference sample interval of ${p.referenceSampleInterval} blocks`);
  }
  // GRIB2 packs unsigned integers; a signed stream is not GRIB2 data.
  if (p.flags & CcsdsFlag.signed) throw new CcsdsError('signed samples');
  if (p.flags & CcsdsFlag.restricted && p.bitsPerSample > 4) {
    throw new CcsdsError(`restricted code options with ${p.bitsPerSample} bits per sample`);
  }
}

/** Bits of a block's option identifier, as libaec sizes it. */
function idLength(p: CcsdsParameters): number {
  if (p.bitsPerSample > 16) return 5;
  if (p.bitsPerSample > 8) return 4;
  if (p.flags & CcsdsFlag.restricted) return p.bitsPerSample <= 2 ? 1 : 2;
  return 3;
}

/** `count` samples of the stream, in order. Throws CcsdsError for a corrupt or truncated stream. */
export function decodeCcsds(stream: Uint8Array, count: number, p: CcsdsParameters): Float64Array {
  checkParameters(p);
  const out = new Float64Array(count);
  const { blockSize, bitsPerSample } = p;
  const preprocess = (p.flags & CcsdsFlag.preprocess) !== 0;
  const idBits = idLength(p);
  const uncompressedId = (1 << idBits) - 1;
  const maxSample = 2 ** bitsPerSample - 1;
  const half = 2 ** (bitsPerSample - 1);
  const words = toWords(stream);
  const streamBits = stream.length * 8;
  // Bit position in the stream.
  let at = 0;
  const intervalSamples = p.referenceSampleInterval * blockSize;
  const buffer = new Uint32Array(Math.min(intervalSamples, Math.ceil(count / blockSize) * blockSize));

  for (let start = 0; start < count; start += intervalSamples) {
    const blocks = Math.min(p.referenceSampleInterval, Math.ceil((count - start) / blockSize));
    let n = 0;
    for (let block = 0; block < blocks; block++) {
      const reference = preprocess && block === 0 ? 1 : 0;
      const id = readAt(words, at, idBits);
      at += idBits;
      if (id === uncompressedId) {
        for (let k = 0; k < blockSize; k++, at += bitsPerSample) buffer[n++] = readAt(words, at, bitsPerSample);
      } else if (id > 0) {
        // Split samples: every sample's high part as a fundamental sequence, then every k-bit low part.
        const k = id - 1;
        if (reference) {
          buffer[n++] = readAt(words, at, bitsPerSample);
          at += bitsPerSample;
        }
        const end = n + blockSize - reference;
        const scale = 2 ** k;
        for (let q = n; q < end; q++) {
          const zeros = zerosAt(words, at, streamBits);
          buffer[q] = zeros * scale;
          at += zeros + 1;
        }
        if (k > 0) for (let q = n; q < end; q++, at += k) buffer[q] += readAt(words, at, k);
        n = end;
      } else {
        const secondExtension = readAt(words, at++, 1) === 1;
        if (reference) {
          buffer[n++] = readAt(words, at, bitsPerSample);
          at += bitsPerSample;
        }
        if (secondExtension) {
          for (let q = reference; q < blockSize; ) {
            const m = zerosAt(words, at, streamBits);
            at += m + 1;
            if (m > 90) throw new CcsdsError(`second-extension codeword ${m}`);
            const d1 = m - SE_BASE[m]!;
            // The reference sample takes the first of the first pair.
            if ((q & 1) === 0) {
              buffer[n++] = SE_SUM[m]! - d1;
              q++;
            }
            buffer[n++] = d1;
            q++;
          }
        } else {
          const zeros = zerosAt(words, at, streamBits);
          at += zeros + 1;
          let zeroBlocks = zeros + 1;
          if (zeroBlocks === REMAINDER_OF_SEGMENT) {
            zeroBlocks = Math.min(p.referenceSampleInterval - block, 64 - (block % 64), blocks - block);
          } else if (zeroBlocks > REMAINDER_OF_SEGMENT) {
            zeroBlocks--;
          }
          if (block + zeroBlocks > blocks) throw new CcsdsError(`run of ${zeroBlocks} zero blocks past the interval`);
          const end = n + zeroBlocks * blockSize - reference;
          buffer.fill(0, n, end);
          n = end;
          block += zeroBlocks - 1;
        }
      }
    }
    const length = Math.min(n, count - start);
    if (!preprocess) {
      for (let k = 0; k < length; k++) out[start + k] = buffer[k]!;
    } else {
      // Undo the unit-delay predictor: each mapped residual is relative to the previous sample.
      let x = buffer[0]!;
      out[start] = x;
      for (let k = 1; k < length; k++) {
        const d = buffer[k]!;
        const room = x < half ? x : maxSample - x;
        const halfD = d >>> 1;
        if (halfD + (d & 1) <= room) x += d & 1 ? -halfD - 1 : halfD;
        else x = x < half ? d : maxSample - d;
        out[start + k] = x;
      }
    }
    if (p.flags & CcsdsFlag.padRsi) at = (at + 7) & ~7;
  }
  if (at > streamBits) {
    throw new CcsdsError(`stream of ${stream.length} bytes ends before its ${count} samples`);
  }
  return out;
}
