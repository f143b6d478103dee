import type { ForecastLayout } from './fetch.js';
import { byteRanges, IdxError, parseIdx, type IdxName } from './idx.js';
import { overlaps, type FieldSelector } from '../variables.js';

/**
 * GFS as NOMADS publishes it: `{baseUrl}/gfs.YYYYMMDD/HH/atmos/gfs.tHHz.pgrb2.{resolution}.fFFF`,
 * each file with an NCEP inventory (`.idx`, idx.ts) beside it. Runs at 00, 06, 12 and 18 UTC, all
 * with the same steps.
 */

export type GfsResolution = '0p25' | '0p50' | '1p00';

/** Inventory names of the fields GFS files carry, by the selectors of the variable table. */
const inventory: { selector: FieldSelector; name: IdxName }[] = [
  { selector: { discipline: 0, category: 0, number: 0, levelType: 103, level: 2 }, name: { variable: 'TMP', level: '2 m above ground' } },
  { selector: { discipline: 0, category: 2, number: 2, levelType: 103, level: 10 }, name: { variable: 'UGRD', level: '10 m above ground' } },
  { selector: { discipline: 0, category: 2, number: 3, levelType: 103, level: 10 }, name: { variable: 'VGRD', level: '10 m above ground' } },
  { selector: { discipline: 0, category: 3, number: 1, levelType: 101 }, name: { variable: 'PRMSL', level: 'mean sea level' } },
  { selector: { discipline: 0, category: 1, number: 7, levelType: 1 }, name: { variable: 'PRATE', level: 'surface' } },
  { selector: { discipline: 0, category: 1, number: 8, levelType: 1 }, name: { variable: 'APCP', level: 'surface' } },
  // The inventory names both the entire atmosphere as a single layer (10) and NCEP's local surface 200 alike.
  { selector: { discipline: 0, category: 6, number: 1, levelType: 10 }, name: { variable: 'TCDC', level: 'entire atmosphere' } },
  { selector: { discipline: 0, category: 6, number: 1, levelType: 200 }, name: { variable: 'TCDC', level: 'entire atmosphere' } },
  { selector: { discipline: 0, category: 16, number: 196, levelType: 10 }, name: { variable: 'REFC', level: 'entire atmosphere' } },
  { selector: { discipline: 0, category: 1, number: 39, levelType: 1 }, name: { variable: 'CPOFP', level: 'surface' } },
  { selector: { discipline: 0, category: 1, number: 1, levelType: 103, level: 2 }, name: { variable: 'RH', level: '2 m above ground' } },
  { selector: { discipline: 0, category: 2, number: 22, levelType: 1 }, name: { variable: 'GUST', level: 'surface' } },
];

/** Selectors without an inventory name are left out: GFS files do not carry them. */
function inventoryNames(selectors: readonly FieldSelector[]): IdxName[] {
  const names = new Map<string, IdxName>();
  for (const selector of selectors) {
    for (const { selector: known, name } of inventory) if (overlaps(selector, known)) names.set(`${name.variable}:${name.level}`, name);
  }
  return [...names.values()];
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** `YYYYMMDDHH` of a cycle, as in the inventories' `d=`. */
function runStamp(run: Date): string {
  return `${run.getUTCFullYear()}${pad(run.getUTCMonth() + 1, 2)}${pad(run.getUTCDate(), 2)}${pad(run.getUTCHours(), 2)}`;
}

export function gfsLayout(resolution: GfsResolution): ForecastLayout {
  return {
    name: 'GFS',
    fileUrl(baseUrl, run, step) {
      const stamp = runStamp(run);
      const hour = stamp.slice(8);
      return `${baseUrl.replace(/\/+$/, '')}/gfs.${stamp.slice(0, 8)}/${hour}/atmos/gfs.t${hour}z.pgrb2.${resolution}.f${pad(step, 3)}`;
    },
    indexUrl: (fileUrl) => `${fileUrl}.idx`,
    stepsOf: (_run, steps) => [...steps],
    publishes: (selectors) => inventoryNames(selectors).length > 0,
    ranges(index, run, _step, selectors) {
      const entries = parseIdx(index);
      const other = entries.find((entry) => entry.date !== runStamp(run));
      if (other) throw new IdxError(`message ${other.message} belongs to run ${other.date}, not ${runStamp(run)}`);
      return byteRanges(entries, inventoryNames(selectors));
    },
  };
}
