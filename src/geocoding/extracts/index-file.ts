/**
 * An extract's index (extract-index.ts) as a file in its maps' version folder,
 * `<maps>/osm/<id>/<version>/geocoding.v8` (V8's serializer), written by `maps import` into the
 * partial folder and so published, replaced and kept with the maps (tools/osm/publish.ts). Unlike
 * the world index, a server cannot rebuild it (it has no extract), so it is keyed by its format
 * only: V8 reads what older versions wrote.
 */

import { readFile } from 'node:fs/promises';
import v8 from 'node:v8';
import { writeFileAtomically } from '../../platform/files/atomic-file.js';
import { EXTRACT_INDEX_FORMAT, type ExtractIndex } from './extract-index.js';

export const EXTRACT_INDEX_FILE = 'geocoding.v8';

/** The parts search reads must be there and agree with each other. */
function consistent(index: ExtractIndex): boolean {
  if (typeof index !== 'object' || index === null || typeof index.map !== 'string') return false;
  const entries = index.kind?.length;
  const names = index.nameEntry?.length;
  return (
    [index.lon, index.lat, index.osmType, index.osmId, index.importance, index.category, index.context, index.firstName].every((array) => ArrayBuffer.isView(array) && array.length === entries) &&
    index.box?.length === 4 * entries &&
    index.housenumber?.length === entries &&
    index.lineStart?.length === entries + 1 &&
    index.nameText?.length === names &&
    index.nameLanguage?.length === names &&
    index.nameWordStart?.length === names + 1 &&
    index.postingStart?.length === index.words?.length + 1 &&
    index.trigramStart?.length === index.trigrams?.length + 1 &&
    index.contextWordStart?.length === index.contexts?.length + 1 &&
    index.cellStart?.length === index.columns * index.rows + 1
  );
}

export function writeExtractIndex(file: string, index: ExtractIndex): number {
  const bytes = v8.serialize(index);
  writeFileAtomically(file, bytes);
  return bytes.length;
}

/** The index saved in `file`, or why it cannot be used (`no file` when there is none: maps added from an archive). */
export async function readExtractIndex(file: string): Promise<{ index: ExtractIndex } | { problem: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    return { problem: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no file' : `unreadable (${(error as Error).message})` };
  }
  let index: ExtractIndex;
  try {
    index = v8.deserialize(bytes) as ExtractIndex;
  } catch (error) {
    return { problem: `unreadable (${(error as Error).message})` };
  }
  if (index?.format !== EXTRACT_INDEX_FORMAT) return { problem: `format ${String(index?.format)}, this server reads ${EXTRACT_INDEX_FORMAT}: import the extract again` };
  if (!consistent(index)) return { problem: 'inconsistent index' };
  return { index };
}
