import { GribFileError, readGribFile } from './grib/grib-file.js';
import path from 'node:path';
import type { NewKeyframe, WeatherCatalog } from './catalog.js';
import { gridSpacing, griddedField } from './field.js';
import { GribError, readGrib, type GribMessage } from './grib/grib2.js';
import { gridGeometry } from './grib/grid.js';
import { silentProgress, type Progress } from '../platform/progress.js';
import { convert, deaccumulate, fraction, perHourMaximum, type FieldTime } from './series.js';
import { zoomForResolution, type TileFormat } from './tiler.js';
import { sweepOrphans } from './sweep.js';
import { sourceGridFile, writeSourceGrid } from './source-grid.js';
import { buildKeyframe, removeKeyframeFiles } from './tileset.js';
import type { FieldSelector, VariableDefinition } from './variables.js';

/**
 * `meridian weather ingest`: GRIB2 files in, one published run per reference time out. Every
 * keyframe's archive is written before the run is published in one transaction; if publishing
 * fails, the archives written so far are removed and nothing is published. A file that cannot be
 * read or decoded is reported with its error and the other files still publish; every field left
 * unused is reported with its reason.
 */

export interface IngestOptions {
  model: string;
  attribution: string;
  variables: readonly VariableDefinition[];
  format: TileFormat;
  keepRuns: number;
  /** After publishing, files no run holds and older than this are removed (sweep.ts); none when absent. */
  orphanGraceMs?: number;
}

export interface IngestReport {
  runs: { referenceTime: string; keyframes: { variable_id: string; timestamp: string; id: string }[] }[];
  /** Each field (or region of a file) not used, with its parameter, level, templates and why. */
  skipped: string[];
  /** Each file, or field, that could not be read or decoded, with the error. */
  failed: string[];
  /** How fields were read other than their metadata says (a rate per hour under a per-second parameter). */
  notes: string[];
}

export class IngestError extends Error {}

/** Code table 4.10's statistical processes, as selectors name them. */
const processes: Record<number, FieldSelector['process']> = { 0: 'average', 1: 'accumulation', 2: 'maximum', 3: 'minimum' };

function matches(message: GribMessage, selector: FieldSelector): boolean {
  if (message.discipline !== selector.discipline || message.category !== selector.category || message.number !== selector.number) {
    return false;
  }
  const first = message.level.first;
  if (!first || first.type !== selector.levelType) return false;
  if (selector.level !== undefined && first.value !== selector.level) return false;
  if (selector.process === undefined) return true;
  const statistics = message.statistics;
  return selector.process === (statistics ? processes[statistics.process] : 'instant');
}

function fieldTime(message: GribMessage): FieldTime {
  const statistics = message.statistics;
  return statistics ? { valid: statistics.end, periodStart: message.forecastTime } : { valid: message.forecastTime, periodStart: null };
}

/** Why a field cannot be used whatever the variables, or null: product templates without metadata support and ensemble perturbations. */
function unusable(message: GribMessage): string | null {
  try {
    const ensemble = message.ensemble;
    return ensemble === null || ensemble.perturbation === 0 ? null : `ensemble member ${ensemble.perturbation}`;
  } catch (error) {
    if (error instanceof GribError) return error.message;
    throw error;
  }
}

/** What a field is, for the report: where it is, its parameter, level and templates. */
function describe(file: string, field: number, message: GribMessage): string {
  const where = `${path.basename(file)} field ${field} (byte ${message.offset})`;
  const templates = `templates 4.${message.productTemplate}, 3.${message.gridTemplate}, 5.${message.dataTemplate}`;
  try {
    const first = message.level.first;
    const level = first ? `level type ${first.type}${first.value === null ? '' : ` value ${first.value}`}` : 'no level';
    return `${where}: parameter ${message.discipline}.${message.category}.${message.number}, ${level}, ${templates}`;
  } catch {
    // A product template without metadata support still has its templates to show.
    return `${where}: ${templates}`;
  }
}

interface Candidate {
  variable: VariableDefinition;
  time: FieldTime;
  messages: GribMessage[];
}

/**
 * Per reference time, the fields each variable can be built from: the first definition with data
 * wins. `reasons` receives why some of the other fields were not taken.
 */
function select(
  messages: readonly GribMessage[],
  variables: readonly VariableDefinition[],
  reasons: Map<GribMessage, string>,
): Map<number, Candidate[]> {
  const runs = new Map<number, Candidate[]>();
  const references = new Set(messages.map((m) => m.referenceTime.getTime()));
  for (const reference of references) {
    const inRun = messages.filter((m) => m.referenceTime.getTime() === reference);
    const chosen: Candidate[] = [];
    const taken = new Set<string>();
    for (const variable of variables) {
      const [first, ...others] = variable.fields;
      const matching = inRun.filter((m) => matches(m, first!));
      if (taken.has(variable.id)) {
        for (const message of matching) if (!reasons.has(message)) reasons.set(message, `${variable.id} comes from other fields in this run`);
        continue;
      }
      const candidates: Candidate[] = [];
      for (const message of matching) {
        const time = fieldTime(message);
        if (time.periodStart?.getTime() === time.valid.getTime()) {
          // ECMWF's step 0 carries totals and maxima over no time at all.
          reasons.set(message, `a statistic over no time (its period starts and ends at ${time.valid.toISOString()})`);
          continue;
        }
        const companions = others.map((selector) =>
          inRun.find((m) => matches(m, selector) && fieldTime(m).valid.getTime() === time.valid.getTime()),
        );
        if (companions.some((m) => m === undefined)) {
          reasons.set(message, `${variable.id} also needs ${others.map(selectorText).join(' and ')} at ${time.valid.toISOString()}`);
          continue;
        }
        if (candidates.some((c) => c.time.valid.getTime() === time.valid.getTime())) {
          reasons.set(message, `another field gives ${variable.id} at ${time.valid.toISOString()}`);
          continue;
        }
        candidates.push({ variable, time, messages: [message, ...(companions as GribMessage[])] });
      }
      if (candidates.length > 0) {
        taken.add(variable.id);
        chosen.push(...candidates);
      }
    }
    runs.set(reference, chosen);
  }
  return runs;
}

function selectorText(selector: FieldSelector): string {
  const level = selector.level === undefined ? '' : ` value ${selector.level}`;
  return `parameter ${selector.discipline}.${selector.category}.${selector.number} on level type ${selector.levelType}${level}`;
}

/**
 * Values of each keyframe of one variable, after unit conversion and, for totals, de-accumulation.
 * A rate series whose values cannot be per second is read per hour, and `notes` says so.
 */
function keyframeValues(
  fields: { candidate: Candidate; values: Float32Array[] }[],
  label: string,
  notes: string[],
): { candidate: Candidate; channels: Float32Array[] }[] {
  let variable = fields[0]!.candidate.variable;
  if (variable.time === 'rate') {
    const maximum = perHourMaximum(fields.map((f) => f.values[0]!));
    if (maximum !== null) {
      variable = { ...variable, scale: variable.scale / 3600 };
      notes.push(`${label}: ${variable.id} rates up to ${Number(maximum.toPrecision(6))} cannot be per second, as the parameter says; read per hour`);
    }
  }
  const decoded = fields.map(({ candidate, values }) => {
    const channels = variable.combine === 'fraction' ? [convert(fraction(values[0]!, values[1]!), variable)] : values.map((v) => convert(v, variable));
    return { candidate, channels };
  });
  if (variable.time !== 'accumulation') return decoded;
  const rates = deaccumulate(decoded.map(({ candidate, channels }) => ({ time: candidate.time, values: channels[0]! })));
  return rates.map((rate) => ({
    candidate: decoded.find((d) => d.candidate.time.valid.getTime() === rate.time.valid.getTime())!.candidate,
    channels: [rate.values],
  }));
}

/** What the decoding half of an ingest hands to the publishing half: archives written, none published. */
export interface PreparedIngest {
  runs: { reference: Date; keyframes: NewKeyframe[] }[];
  skipped: string[];
  failed: string[];
  notes: string[];
}

/** Runs the decoding half of an ingest somewhere (the weather worker pool in a server), showing how far it is on `progress`. */
export type IngestPreparer = (directory: string, files: readonly string[], options: IngestOptions, progress?: Progress) => Promise<PreparedIngest>;

/**
 * Reads, decodes and tiles the files, writing one archive per keyframe: the CPU-heavy half of an
 * ingest, which a server runs on its weather worker pool. If anything fails, the archives written
 * so far are removed.
 */
export async function prepareIngest(
  directory: string,
  files: readonly string[],
  options: IngestOptions,
  progress: Progress = silentProgress,
): Promise<PreparedIngest> {
  const messages: GribMessage[] = [];
  const skipped: string[] = [];
  const failed: string[] = [];
  const notes: string[] = [];
  const labels = new Map<GribMessage, string>();
  progress.phase(`Reading ${files.length} file(s)`, files.length);
  for (const [index, file] of files.entries()) {
    progress.update(index);
    let data: Uint8Array;
    try {
      data = await readGribFile(file);
    } catch (error) {
      failed.push(error instanceof GribFileError ? error.message : `Cannot read ${file}: ${(error as Error).message}`);
      continue;
    }
    let grib;
    try {
      grib = readGrib(data);
    } catch (error) {
      if (!(error instanceof GribError)) throw error;
      failed.push(`${file}: ${error.message}`);
      continue;
    }
    for (const region of grib.skipped) skipped.push(`${path.basename(file)} at byte ${region.offset}: ${region.reason}`);
    grib.messages.forEach((message, k) => {
      const label = describe(file, k + 1, message);
      const reason = unusable(message);
      if (reason) skipped.push(`${label}: ${reason}`);
      else {
        labels.set(message, label);
        messages.push(message);
      }
    });
  }

  const reasons = new Map<GribMessage, string>();
  const used = new Set<GribMessage>();
  const written: string[] = [];
  try {
    const runs: PreparedIngest['runs'] = [];
    const selected = select(messages, options.variables, reasons);
    // A step per field (or pair of fields) a variable reads: most make one keyframe each.
    const steps = [...selected.values()].reduce((sum, candidates) => sum + candidates.length, 0);
    progress.phase(`Tiling ${steps} field(s)`, steps);
    let done = 0;
    for (const [reference, candidates] of selected) {
      const keyframes: NewKeyframe[] = [];
      const byVariable = new Map<string, Candidate[]>();
      for (const candidate of candidates) {
        for (const message of candidate.messages) used.add(message);
        const list = byVariable.get(candidate.variable.id) ?? [];
        list.push(candidate);
        byVariable.set(candidate.variable.id, list);
      }
      for (const list of byVariable.values()) {
        const fields = list.flatMap((candidate) => {
          const values = decode(candidate, labels, skipped, failed);
          return values ? [{ candidate, values }] : [];
        });
        // Fields that make no keyframe (undecodable, or the first of an accumulation) count as done.
        done += list.length - fields.length;
        progress.update(done);
        if (fields.length === 0) continue;
        for (const { candidate, channels } of keyframeValues(fields, labels.get(fields[0]!.candidate.messages[0]!)!, notes)) {
          const geometry = gridGeometry(candidate.messages[0]!);
          const spacing = gridSpacing(geometry);
          const keyframe = await buildKeyframe(directory, griddedField(geometry, channels), {
            variable: candidate.variable,
            model: options.model,
            attribution: options.attribution,
            referenceTime: new Date(reference),
            validTime: candidate.time.valid,
            maxZoom: zoomForResolution(spacing.metres, spacing.latitude),
            format: options.format,
          });
          written.push(keyframe.archive);
          // The values as converted, on their own grid, for point forecasts (point.ts).
          await writeSourceGrid(path.join(directory, sourceGridFile(keyframe.archive)), candidate.messages[0]!.grid, channels);
          keyframes.push(keyframe);
          progress.update(++done);
        }
      }
      if (keyframes.length > 0) runs.push({ reference: new Date(reference), keyframes });
    }
    for (const message of messages) {
      if (!used.has(message)) skipped.push(`${labels.get(message)}: ${reasons.get(message) ?? 'no variable reads this parameter on this level'}`);
    }
    progress.end();
    if (runs.length === 0) {
      const found = [...failed, ...skipped];
      throw new IngestError(`No field of these files makes a keyframe. ${found.length === 0 ? 'They hold no field.' : `Found:\n${found.join('\n')}`}`);
    }
    return { runs, skipped, failed, notes };
  } catch (error) {
    await Promise.all(written.map((archive) => removeKeyframeFiles(directory, archive)));
    throw error;
  }
}

/**
 * The values of a keyframe's fields, or null when one has a grid Meridian cannot place (reported in
 * `skipped`) or values it cannot decode (reported in `failed`); its other fields are skipped with it.
 */
function decode(candidate: Candidate, labels: Map<GribMessage, string>, skipped: string[], failed: string[]): Float32Array[] | null {
  const values: Float32Array[] = [];
  const give = (message: GribMessage, list: string[], reason: string) => {
    list.push(`${labels.get(message)}: ${reason}`);
    for (const other of candidate.messages) {
      if (other !== message) skipped.push(`${labels.get(other)}: ${candidate.variable.id} cannot use its other field`);
    }
    return null;
  };
  for (const message of candidate.messages) {
    try {
      gridGeometry(message);
    } catch (error) {
      if (error instanceof GribError) return give(message, skipped, error.message);
      throw error;
    }
    try {
      values.push(message.values());
    } catch (error) {
      if (error instanceof GribError) return give(message, failed, error.message);
      throw error;
    }
  }
  return values;
}

/**
 * An ingest: the files decoded and tiled by `prepare` (in this thread when none is given), then
 * each run published in one transaction, oldest first. If publishing fails, the archives that no
 * published run holds are removed.
 */
export async function ingestFiles(
  catalog: WeatherCatalog,
  directory: string,
  files: readonly string[],
  options: IngestOptions,
  prepare: IngestPreparer = prepareIngest,
  progress: Progress = silentProgress,
): Promise<IngestReport> {
  const prepared = await prepare(directory, files, options, progress);
  const report: IngestReport = { runs: [], skipped: prepared.skipped, failed: prepared.failed, notes: prepared.notes };
  try {
    const runs = [...prepared.runs].sort((a, b) => a.reference.getTime() - b.reference.getTime());
    progress.phase(`Publishing ${runs.length} run(s)`, runs.length);
    for (const [index, { reference, keyframes }] of runs.entries()) {
      progress.update(index);
      const expired = await catalog.publish(options.model, reference, keyframes, options.keepRuns);
      await Promise.all(expired.map((archive) => removeKeyframeFiles(directory, archive)));
      report.runs.push({
        referenceTime: reference.toISOString(),
        keyframes: keyframes.map((k) => ({ variable_id: k.variableId, timestamp: k.validTime.toISOString(), id: k.id })),
      });
    }
    if (options.orphanGraceMs !== undefined) await sweepOrphans(catalog, directory, options.orphanGraceMs);
    progress.end();
    return report;
  } catch (error) {
    const live = await catalog.archives();
    const written = prepared.runs.flatMap((run) => run.keyframes.map((keyframe) => keyframe.archive));
    await Promise.all(written.filter((a) => !live.has(a)).map((archive) => removeKeyframeFiles(directory, archive)));
    throw error;
  }
}
