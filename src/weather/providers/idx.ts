/**
 * NCEP inventories (`.idx`): one line per field of a GRIB2 file, `N:byteOffset:d=YYYYMMDDHH:VAR:LEVEL:FORECAST:`.
 * They let a client fetch only some fields of a large file with HTTP range requests. A message
 * runs from its offset to the next distinct offset; lines sharing an offset (`581.1`, `581.2`)
 * are fields of one message, which is fetched once.
 */

import { IndexError, mergeRanges, type ByteRange } from './byte-ranges.js';

export class IdxError extends IndexError {
  override name = 'IdxError';
}

export interface IdxEntry {
  /** Message number as written: `581`, or `581.1` for a field inside a message. */
  message: string;
  offset: number;
  /** Reference time as written after `d=` (YYYYMMDDHH). */
  date: string;
  variable: string;
  level: string;
  forecast: string;
}

/** A field by its inventory names, e.g. `TMP` at `2 m above ground`. */
export interface IdxName {
  variable: string;
  level: string;
}

const linePattern = /^(\d+(?:\.\d+)?):(\d+):d=(\d{10}):([^:]+):([^:]+):([^:]*):/;

export function parseIdx(text: string): IdxEntry[] {
  const entries: IdxEntry[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trimEnd();
    if (line === '') return;
    const match = linePattern.exec(line);
    if (!match) throw new IdxError(`Malformed inventory line ${index + 1}: ${JSON.stringify(line)}`);
    const offset = Number(match[2]);
    const previous = entries.at(-1);
    if (!Number.isSafeInteger(offset) || (previous && offset < previous.offset)) {
      throw new IdxError(`Inventory line ${index + 1} has an offset before the previous line's: ${JSON.stringify(line)}`);
    }
    entries.push({ message: match[1]!, offset, date: match[3]!, variable: match[4]!, level: match[5]!, forecast: match[6]! });
  });
  if (entries.length === 0) throw new IdxError('Empty inventory');
  return entries;
}

/**
 * The ranges holding every field named in `wanted`, in file order, adjacent messages merged.
 */
export function byteRanges(entries: readonly IdxEntry[], wanted: readonly IdxName[]): ByteRange[] {
  const offsets = [...new Set(entries.map((e) => e.offset))];
  const names = new Set(wanted.map((w) => `${w.variable}:${w.level}`));
  const selected = new Set(entries.filter((e) => names.has(`${e.variable}:${e.level}`)).map((e) => e.offset));
  // A message runs to the next message's offset: the inventory gives no lengths.
  const messages = offsets.flatMap((offset, index) => {
    const next = offsets[index + 1];
    return selected.has(offset) ? [{ offset, end: next === undefined ? null : next - 1 }] : [];
  });
  return mergeRanges(messages);
}
