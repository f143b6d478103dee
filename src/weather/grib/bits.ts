/**
 * Big-endian bit unpacking for GRIB2 data sections: runs of fixed-width unsigned integers, read a
 * 32-bit word at a time (the hot path of simple and complex packing). Bytes past the end read as 0.
 */

/** Writes `count` values of `width` bits (0..32) starting at bit `bitPos` into out[outPos...], each plus `add`. */
export function unpackBits(
  buf: Uint8Array,
  bitPos: number,
  width: number,
  count: number,
  out: Float64Array,
  outPos: number,
  add: number,
): void {
  const end = outPos + count;
  if (width === 0) {
    out.fill(add, outPos, end);
    return;
  }
  let pos = bitPos;
  let k = outPos;
  // A word holds any value of up to 25 bits whatever its offset within the first byte.
  if (width <= 25 && bitPos + width * count < 2 ** 32) {
    const mask = (1 << width) - 1;
    const lastWord = buf.length - 4;
    for (; k < end; k++) {
      const byte = pos >>> 3;
      if (byte > lastWord) break;
      const word = (buf[byte] << 24) | (buf[byte + 1] << 16) | (buf[byte + 2] << 8) | buf[byte + 3];
      out[k] = ((word >>> (32 - width - (pos & 7))) & mask) + add;
      pos += width;
    }
  }
  for (; k < end; k++) {
    out[k] = readBits(buf, pos, width) + add;
    pos += width;
  }
}

/** One unsigned value of up to 32 bits at any bit position. */
export function readBits(buf: Uint8Array, bitPos: number, width: number): number {
  let value = 0;
  let pos = bitPos;
  let remaining = width;
  while (remaining > 0) {
    const byte = buf[Math.floor(pos / 8)] ?? 0;
    const offset = pos % 8;
    const take = Math.min(8 - offset, remaining);
    value = value * 2 ** take + ((byte >>> (8 - offset - take)) & ((1 << take) - 1));
    remaining -= take;
    pos += take;
  }
  return value;
}

/** A sign-and-magnitude integer (GRIB2's signed representation) of `width` bits. */
export function unpackBitsSigned(buf: Uint8Array, bitPos: number, width: number): number {
  const magnitude = readBits(buf, bitPos + 1, width - 1);
  return readBits(buf, bitPos, 1) ? -magnitude : magnitude;
}
