import { IndexError, mergeRanges, type ByteRange } from './byte-ranges.js';

/**
 * ECMWF open-data indexes (`.index` beside each `.grib2`): JSON lines, one object per field with
 * its MARS keys (`param`, `levtype`, `levelist` on pressure and soil levels, `date`, `time`,
 * `step`, ...) and its bytes, `_offset` and `_length`. Lines are not in file order. The layout is
 * ECMWF's ("ECMWF open data: real-time forecasts from IFS and AIFS", confluence.ecmwf.int, and the
 * `get_parts` of its `ecmwf-opendata` client, github.com/ecmwf/ecmwf-opendata).
 */

export class EcmwfIndexError extends IndexError {
  override name = 'EcmwfIndexError';
}

export interface EcmwfIndexEntry {
  param: string;
  levtype: string;
  levelist: string | null;
  /** `YYYYMMDD` and `HHMM` of the run, and the step (`6`, or `0-6` for some products), when given. */
  date: string | null;
  time: string | null;
  step: string | null;
  offset: number;
  length: number;
}

/** A field by its MARS keys: `2t` on `sfc`, `t` on `pl` at `850`. */
export interface EcmwfFieldName {
  param: string;
  levtype: string;
  levelist?: string;
}

const text = (value: unknown): string | null => (typeof value === 'string' || typeof value === 'number' ? String(value) : null);

export function parseEcmwfIndex(source: string): EcmwfIndexEntry[] {
  const entries: EcmwfIndexEntry[] = [];
  source.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new EcmwfIndexError(`Index line ${index + 1} is not JSON: ${JSON.stringify(line.slice(0, 120))}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new EcmwfIndexError(`Index line ${index + 1} is not a JSON object: ${JSON.stringify(line.slice(0, 120))}`);
    }
    const object = parsed as Record<string, unknown>;
    const offset = object._offset;
    const length = object._length;
    const param = text(object.param);
    const levtype = text(object.levtype);
    if (param === null || levtype === null) {
      throw new EcmwfIndexError(`Index line ${index + 1} has no param or levtype: ${JSON.stringify(line.slice(0, 120))}`);
    }
    if (!Number.isSafeInteger(offset) || (offset as number) < 0 || !Number.isSafeInteger(length) || (length as number) < 16) {
      throw new EcmwfIndexError(`Index line ${index + 1} has no valid _offset and _length: ${JSON.stringify(line.slice(0, 120))}`);
    }
    entries.push({
      param,
      levtype,
      levelist: text(object.levelist),
      date: text(object.date),
      time: text(object.time),
      step: text(object.step),
      offset: offset as number,
      length: length as number,
    });
  });
  if (entries.length === 0) throw new EcmwfIndexError('Empty index');
  return entries;
}

const key = (name: { param: string; levtype: string; levelist?: string | null }) => `${name.param}/${name.levtype}/${name.levelist ?? ''}`;

/** The ranges holding every field named in `wanted`, in file order, adjacent messages merged. */
export function ecmwfByteRanges(entries: readonly EcmwfIndexEntry[], wanted: readonly EcmwfFieldName[]): ByteRange[] {
  const names = new Set(wanted.map(key));
  const messages = new Map<number, { offset: number; end: number }>();
  for (const entry of entries) {
    if (names.has(key(entry))) messages.set(entry.offset, { offset: entry.offset, end: entry.offset + entry.length - 1 });
  }
  return mergeRanges([...messages.values()]);
}
