/**
 * The bytes of some messages of a GRIB2 file, as HTTP range requests: what both providers'
 * indexes (NCEP's `.idx`, ECMWF's `.index`) come down to once the wanted fields are picked.
 */

/** An index that cannot be read, or that belongs to another run or step than the file it sits beside. */
export class IndexError extends Error {
  override name = 'IndexError';
}

/** Bytes to request: `end` is inclusive, null to the end of the file. */
export interface ByteRange {
  start: number;
  end: number | null;
  /** Offsets of the messages the range holds, in file order; each starts a GRIB message. */
  messages: { offset: number; end: number | null }[];
}

/**
 * Wanted messages (each once, any order) as ranges in file order. Adjacent messages are merged
 * into one request; messages separated by unwanted bytes never are, so nothing unneeded is fetched.
 */
export function mergeRanges(messages: readonly { offset: number; end: number | null }[]): ByteRange[] {
  const ranges: ByteRange[] = [];
  for (const message of [...messages].sort((a, b) => a.offset - b.offset)) {
    const last = ranges.at(-1);
    if (last && last.end !== null && last.end + 1 >= message.offset) {
      last.end = message.end;
      last.messages.push({ ...message });
    } else {
      ranges.push({ start: message.offset, end: message.end, messages: [{ ...message }] });
    }
  }
  return ranges;
}
