import type { ForecastLayout } from './fetch.js';
import { ecmwfByteRanges, EcmwfIndexError, parseEcmwfIndex, type EcmwfFieldName } from './ecmwf-index.js';
import { overlaps, type FieldSelector } from '../variables.js';

/**
 * ECMWF's real-time open data as ECMWF publishes it ("ECMWF open data: real-time forecasts from
 * IFS and AIFS" on confluence.ecmwf.int, and the ecmwf-opendata client's README):
 * `{root}/{YYYYMMDD}/{HH}z/{model}/0p25/{stream}/{YYYYMMDD}{HH}0000-{step}h-{stream}-fc.grib2`,
 * one file per step with a JSON-lines `.index` beside it (ecmwf-index.ts).
 *
 * - `ifs`: the 00 and 12 UTC runs are stream `oper`, steps 0-144 by 3 h then 150-360 by 6 h; the
 *   06 and 18 UTC runs are the short cut-off stream `scda`, steps 0-90 by 3 h.
 * - `aifs-single`: stream `oper` at 00, 06, 12 and 18 UTC, steps 0-360 by 6 h.
 *
 * Of the configured steps, a run is asked only for those it publishes.
 */

export const ecmwfModels = ['ifs', 'aifs-single'] as const;
export type EcmwfModel = (typeof ecmwfModels)[number];

/** Index names of the single-level fields the variable table reads, by its selectors (checked with ecCodes). */
const fields: { selector: FieldSelector; params: string[] }[] = [
  { selector: { discipline: 0, category: 0, number: 0, levelType: 103, level: 2 }, params: ['2t'] },
  { selector: { discipline: 0, category: 2, number: 2, levelType: 103, level: 10 }, params: ['10u'] },
  { selector: { discipline: 0, category: 2, number: 3, levelType: 103, level: 10 }, params: ['10v'] },
  { selector: { discipline: 0, category: 3, number: 0, levelType: 101 }, params: ['msl'] },
  { selector: { discipline: 0, category: 1, number: 193, levelType: 1 }, params: ['tp'] },
  { selector: { discipline: 0, category: 1, number: 52, levelType: 1, process: 'instant' }, params: ['tprate'] },
  { selector: { discipline: 0, category: 6, number: 1, levelType: 1 }, params: ['tcc'] },
  { selector: { discipline: 0, category: 6, number: 192, levelType: 1 }, params: ['tcc'] },
  { selector: { discipline: 0, category: 1, number: 1, levelType: 103, level: 2 }, params: ['2r'] },
  // The gust since the previous post-processing step; files name it by that period when they name one.
  { selector: { discipline: 0, category: 2, number: 22, levelType: 103, level: 10 }, params: ['10fg', '10fg3', '10fg6'] },
];

function indexNames(selectors: readonly FieldSelector[]): EcmwfFieldName[] {
  const names = new Map<string, EcmwfFieldName>();
  for (const selector of selectors) {
    for (const known of fields) {
      if (overlaps(selector, known.selector)) for (const param of known.params) names.set(param, { param, levtype: 'sfc' });
    }
  }
  return [...names.values()];
}

const pad = (value: number) => String(value).padStart(2, '0');
const day = (run: Date) => `${run.getUTCFullYear()}${pad(run.getUTCMonth() + 1)}${pad(run.getUTCDate())}`;

/** The stream directory of a run, and the steps it publishes. */
function productOf(model: EcmwfModel, run: Date): { stream: string; publishes: (step: number) => boolean } {
  const hour = run.getUTCHours();
  if (model === 'aifs-single') return { stream: 'oper', publishes: (step) => step <= 360 && step % 6 === 0 };
  if (hour === 0 || hour === 12) return { stream: 'oper', publishes: (step) => (step <= 144 ? step % 3 === 0 : step <= 360 && step % 6 === 0) };
  return { stream: 'scda', publishes: (step) => step <= 90 && step % 3 === 0 };
}

export function ecmwfLayout(model: EcmwfModel): ForecastLayout {
  return {
    name: model === 'ifs' ? 'ECMWF IFS' : 'ECMWF AIFS Single',
    fileUrl(baseUrl, run, step) {
      const { stream } = productOf(model, run);
      const hour = pad(run.getUTCHours());
      return `${baseUrl.replace(/\/+$/, '')}/${day(run)}/${hour}z/${model}/0p25/${stream}/${day(run)}${hour}0000-${step}h-${stream}-fc.grib2`;
    },
    indexUrl: (fileUrl) => fileUrl.replace(/\.grib2$/, '.index'),
    stepsOf: (run, steps) => steps.filter(productOf(model, run).publishes),
    publishes: (selectors) => indexNames(selectors).length > 0,
    ranges(index, run, step, selectors) {
      const entries = parseEcmwfIndex(index);
      const time = `${pad(run.getUTCHours())}00`;
      for (const entry of entries) {
        if ((entry.date !== null && entry.date !== day(run)) || (entry.time !== null && entry.time.padStart(4, '0') !== time)) {
          throw new EcmwfIndexError(`${entry.param} belongs to run ${entry.date} ${entry.time}, not ${day(run)} ${time}`);
        }
        // A period's step (`0-6`) ends at the file's step.
        if (entry.step !== null && Number(entry.step.split('-').at(-1)) !== step) {
          throw new EcmwfIndexError(`${entry.param} is for step ${entry.step}, not ${step}`);
        }
      }
      return ecmwfByteRanges(entries, indexNames(selectors));
    },
  };
}
