import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GRIB_EXAMPLES } from '../peers.js';

/**
 * Files in ECMWF's open-data layout, made with ecCodes from the real fields of python-grib-doc's
 * GFS sample, re-encoded as ECMWF encodes its open data (centre ecmf, its parameters, CCSDS
 * packing), and their `.index` written from what ecCodes reads in them (`grib_get`): the tests'
 * expected offsets and lengths never come from Meridian.
 */

const gfs = path.join(GRIB_EXAMPLES, 'gfs.t12z.pgrbf120.2p5deg.grib2');

/** In file order: unwanted surface pressure and 850 hPa humidity sit between wanted fields. */
export const fileOrder = ['sp', '2t', '10u', 'r', '10v', 'msl', 'tp', 'tprate', 'tcc', '2r', '10fg3'] as const;

/** ecCodes steps from a GFS field to an ECMWF one: where it comes from, then each `grib_set -s`. */
const recipes: Record<(typeof fileOrder)[number], { from: string; sets: string[] }> = {
  sp: { from: 'shortName=sp', sets: ['centre=98'] },
  '2t': { from: 'shortName=2t', sets: ['centre=98'] },
  '10u': { from: 'shortName=10u', sets: ['centre=98'] },
  r: { from: 'shortName=r,typeOfLevel=isobaricInhPa,level=850', sets: ['centre=98'] },
  '10v': { from: 'shortName=10v', sets: ['centre=98'] },
  // NCEP's PRMSL (0.3.1) becomes ECMWF's msl (0.3.0).
  msl: { from: 'shortName=prmsl', sets: ['centre=98,parameterNumber=0'] },
  // APCP in kg m-2 becomes ECMWF's tp in metres.
  tp: { from: 'shortName=tp', sets: ['centre=98,paramId=228,scaleValuesBy=0.001'] },
  tprate: { from: 'shortName=prate', sets: ['stepType=instant', 'centre=98', 'paramId=260048'] },
  tcc: { from: 'shortName=tcc,typeOfFirstFixedSurface=200', sets: ['stepType=instant', 'centre=98,typeOfFirstFixedSurface=1,typeOfSecondFixedSurface=8', 'paramId=228164'] },
  '2r': { from: 'shortName=2r', sets: ['centre=98'] },
  // The gust since the previous step: a maximum over 3 hours, 10 m above ground.
  '10fg3': {
    from: 'shortName=gust',
    sets: ['centre=98,productDefinitionTemplateNumber=8', 'typeOfFirstFixedSurface=103,scaledValueOfFirstFixedSurface=10,scaleFactorOfFirstFixedSurface=0,typeOfStatisticalProcessing=2,stepRange=117-120'],
  },
};

/** The fields once, ECMWF-encoded and CCSDS-packed, in `fileOrder`, as one file. */
export function ecmwfFields(directory: string): string {
  mkdirSync(directory, { recursive: true });
  const parts = fileOrder.map((name) => {
    let file = path.join(directory, `${name}-0.grib2`);
    execFileSync('grib_copy', ['-w', recipes[name].from, gfs, file]);
    recipes[name].sets.forEach((set, k) => {
      const next = path.join(directory, `${name}-${k + 1}.grib2`);
      execFileSync('grib_set', ['-s', set, file, next]);
      file = next;
    });
    // Repacked simply first: after scaleValuesBy, ecCodes keeps a decimal scale too fine for its bits until it repacks.
    const simple = path.join(directory, `${name}-simple.grib2`);
    execFileSync('grib_set', ['-r', '-s', 'packingType=grid_simple', file, simple]);
    const packed = path.join(directory, `${name}.grib2`);
    execFileSync('grib_set', ['-r', '-s', 'packingType=grid_ccsds', simple, packed]);
    return readFileSync(packed);
  });
  const all = path.join(directory, 'fields.grib2');
  writeFileSync(all, Buffer.concat(parts));
  return all;
}

const pad = (value: number) => String(value).padStart(2, '0');
const day = (run: Date) => `${run.getUTCFullYear()}${pad(run.getUTCMonth() + 1)}${pad(run.getUTCDate())}`;

/** Where ECMWF puts a step of a run, relative to its root (ECMWF's documented layout, written out here). */
export function ecmwfPath(model: string, run: Date, step: number): string {
  const hour = pad(run.getUTCHours());
  const stream = model === 'ifs' && (hour === '06' || hour === '18') ? 'scda' : 'oper';
  return `${day(run)}/${hour}z/${model}/0p25/${stream}/${day(run)}${hour}0000-${step}h-${stream}-fc.grib2`;
}

export interface IndexLine {
  param: string;
  levtype: string;
  levelist?: string;
  _offset: number;
  _length: number;
}

/**
 * Writes a step of a run under `root`: the fields dated by ecCodes (`grib_filter`), and the
 * index from `grib_get`, its lines in reverse file order as ECMWF's are not in file order either.
 * Returns the index lines.
 */
export function publishEcmwfStep(
  root: string,
  fields: string,
  model: string,
  run: Date,
  step: number,
  options: { index?: boolean } = {},
): IndexLine[] {
  const file = path.join(root, ecmwfPath(model, run, step));
  mkdirSync(path.dirname(file), { recursive: true });
  const rules = path.join(path.dirname(file), `rules-${step}`);
  writeFileSync(
    rules,
    [
      `set dataDate = ${day(run)};`,
      `set dataTime = ${pad(run.getUTCHours())}00;`,
      `if (stepType is "instant") { set step = ${step}; } else {`,
      `  if (stepType is "accum") { set stepRange = "0-${step}"; } else { set stepRange = "${Math.max(0, step - 3)}-${step}"; }`,
      '}',
      'write;',
      '',
    ].join('\n'),
  );
  execFileSync('grib_filter', ['-o', file, rules, fields]);
  const lines = execFileSync('grib_get', ['-f', '-p', 'shortName,mars.levtype,mars.levelist,offset:i,totalLength', file], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => {
      const [param, levtype, levelist, offset, length] = line.trim().split(/\s+/) as [string, string, string, string, string];
      return { param, levtype, ...(levelist === 'not_found' ? {} : { levelist }), _offset: Number(offset), _length: Number(length) };
    });
  if (options.index !== false) {
    const index = lines
      .map((line) => JSON.stringify({ domain: 'g', date: day(run), time: `${pad(run.getUTCHours())}00`, expver: '0001', class: 'od', type: 'fc', stream: ecmwfPath(model, run, step).split('/')[4], step: String(step), ...line }))
      .reverse();
    writeFileSync(file.replace(/\.grib2$/, '.index'), `${index.join('\n')}\n`);
  }
  return lines;
}
