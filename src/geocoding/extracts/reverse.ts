/**
 * Reverse lookups in an extract's index: the address nearest the point (within 50 m), the point
 * of interest (within 30 m) and the street (within 150 m of its lines), most detailed first; the
 * world's place and country follow them (reverse.ts).
 */

import { ADDRESS, entriesNear, metresPerDegree, nearestPoint, POI, STREET, streetLines, type ExtractIndex } from './extract-index.js';
import { EXTRACT_KINDS } from './extract-index.js';
import type { SearchOptions } from '../parameters.js';

const REACH_METRES: Record<number, number> = { [ADDRESS]: 50, [POI]: 30, [STREET]: 150 };
const LONGEST_REACH_KM = 0.15;

export interface ExtractHit {
  index: ExtractIndex;
  entry: number;
  metres: number;
}

/** The nearest address, point of interest and street of each extract at the point, nearest first within each kind, in that order. */
export function reverseExtracts(indexes: readonly ExtractIndex[], lon: number, lat: number, options: SearchOptions): ExtractHit[] {
  const nearest = new Map<number, ExtractHit>();
  const [kx, ky] = metresPerDegree(lat);
  for (const index of indexes) {
    for (const entry of entriesNear(index, lon, lat, LONGEST_REACH_KM)) {
      const kind = index.kind[entry]!;
      const reach = REACH_METRES[kind];
      if (reach === undefined) continue;
      if (options.kinds && !options.kinds.has(EXTRACT_KINDS[kind]!)) continue;
      const country = index.contexts[index.context[entry]!]!.country;
      if (options.countries && (country === null || !options.countries.has(country))) continue;
      const metres = kind === STREET ? nearestPoint(streetLines(index, entry), [lon, lat]).metres : Math.hypot((index.lon[entry]! - lon) * kx, (index.lat[entry]! - lat) * ky);
      if (metres > reach) continue;
      const known = nearest.get(kind);
      if (!known || metres < known.metres) nearest.set(kind, { index, entry, metres });
    }
  }
  return [ADDRESS, POI, STREET].map((kind) => nearest.get(kind)).filter((hit): hit is ExtractHit => hit !== undefined);
}
