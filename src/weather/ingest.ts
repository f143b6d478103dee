import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { NewKeyframe, WeatherCatalog } from './catalog.js';
import { gridSpacing, griddedField } from './field.js';
import { GribError, readGrib, type GribMessage } from './grib2.js';
import { gridGeometry } from './grid.js';
import { zoomForResolution } from './mercator.js';
import { convert, deaccumulate, fraction, type FieldTime } from './series.js';
import type { TileFormat } from './tiler.js';
import { sweepOrphans } from './sweep.js';
import { buildKeyframe } from './tileset.js';
import type { FieldSelector, VariableDefinition } from './variables.js';

/**
 * `meridian weather ingest`: GRIB2 files in, one published run per reference time out. Every
 * keyframe's archive is written before the run is published in one transaction; if anything
 * fails, the archives written so far are removed and nothing is published.
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
  skipped: string[];
}

export class IngestError extends Error {}

function matches(message: GribMessage, selector: FieldSelector): boolean {
  if (message.discipline !== selector.discipline || message.category !== selector.category || message.number !== selector.number) {
    return false;
  }
  const first = message.level.first;
  if (!first || first.type !== selector.levelType) return false;
  return selector.level === undefined || first.value === selector.level;
}

function fieldTime(message: GribMessage): FieldTime {
  const statistics = message.statistics;
  return statistics ? { valid: statistics.end, periodStart: message.forecastTime } : { valid: message.forecastTime, periodStart: null };
}

/** Product templates whose metadata this reader cannot interpret are passed over, not fatal. */
function describable(message: GribMessage): boolean {
  try {
    void message.category;
    return message.ensemble === null || message.ensemble.perturbation === 0;
  } catch (error) {
    if (error instanceof GribError) return false;
    throw error;
  }
}

interface Candidate {
  variable: VariableDefinition;
  time: FieldTime;
  messages: GribMessage[];
}

/** Per reference time, the fields each variable can be built from: the first definition with data wins. */
function select(messages: readonly GribMessage[], variables: readonly VariableDefinition[]): Map<number, Candidate[]> {
  const runs = new Map<number, Candidate[]>();
  const references = new Set(messages.map((m) => m.referenceTime.getTime()));
  for (const reference of references) {
    const inRun = messages.filter((m) => m.referenceTime.getTime() === reference);
    const chosen: Candidate[] = [];
    const taken = new Set<string>();
    for (const variable of variables) {
      if (taken.has(variable.id)) continue;
      const [first, ...others] = variable.fields;
      const candidates: Candidate[] = [];
      for (const message of inRun.filter((m) => matches(m, first!))) {
        const time = fieldTime(message);
        const companions = others.map((selector) =>
          inRun.find((m) => matches(m, selector) && fieldTime(m).valid.getTime() === time.valid.getTime()),
        );
        if (companions.some((m) => m === undefined)) continue;
        if (candidates.some((c) => c.time.valid.getTime() === time.valid.getTime())) continue;
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

/** Values of each keyframe of one variable, after unit conversion and, for totals, de-accumulation. */
function keyframeValues(candidates: Candidate[]): { candidate: Candidate; channels: Float32Array[] }[] {
  const variable = candidates[0]!.variable;
  const decoded = candidates.map((candidate) => {
    const values = candidate.messages.map((m) => m.values());
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
}

/** Runs the decoding half of an ingest somewhere (the weather worker pool in a server). */
export type IngestPreparer = (directory: string, files: readonly string[], options: IngestOptions) => Promise<PreparedIngest>;

/**
 * Reads, decodes and tiles the files, writing one archive per keyframe: the CPU-heavy half of an
 * ingest, which a server runs on its weather worker pool. If anything fails, the archives written
 * so far are removed.
 */
export async function prepareIngest(directory: string, files: readonly string[], options: IngestOptions): Promise<PreparedIngest> {
  const messages: GribMessage[] = [];
  const skipped: string[] = [];
  for (const file of files) {
    let data: Uint8Array;
    try {
      data = await readFile(file);
    } catch (error) {
      throw new IngestError(`Cannot read ${file}: ${(error as Error).message}`);
    }
    try {
      const grib = readGrib(data);
      for (const region of grib.skipped) skipped.push(`${path.basename(file)} at byte ${region.offset}: ${region.reason}`);
      for (const message of grib.messages) {
        if (describable(message)) messages.push(message);
        else skipped.push(`${path.basename(file)} at byte ${message.offset}: product template 4.${message.productTemplate}`);
      }
    } catch (error) {
      if (error instanceof GribError) throw new IngestError(`${file}: ${error.message}`);
      throw error;
    }
  }

  const written: string[] = [];
  try {
    const runs: PreparedIngest['runs'] = [];
    for (const [reference, candidates] of select(messages, options.variables)) {
      const keyframes: NewKeyframe[] = [];
      const byVariable = new Map<string, Candidate[]>();
      for (const candidate of candidates) {
        const list = byVariable.get(candidate.variable.id) ?? [];
        list.push(candidate);
        byVariable.set(candidate.variable.id, list);
      }
      for (const list of byVariable.values()) {
        for (const { candidate, channels } of keyframeValues(list)) {
          let geometry;
          try {
            geometry = gridGeometry(candidate.messages[0]!);
          } catch (error) {
            if (error instanceof GribError) throw new IngestError(error.message);
            throw error;
          }
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
          keyframes.push(keyframe);
        }
      }
      if (keyframes.length > 0) runs.push({ reference: new Date(reference), keyframes });
    }
    if (runs.length === 0) throw new IngestError('No message of these files matches a known weather variable');
    return { runs, skipped };
  } catch (error) {
    await Promise.all(written.map((archive) => rm(path.join(directory, archive), { force: true })));
    throw error;
  }
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
): Promise<IngestReport> {
  const prepared = await prepare(directory, files, options);
  const report: IngestReport = { runs: [], skipped: prepared.skipped };
  try {
    const runs = [...prepared.runs].sort((a, b) => a.reference.getTime() - b.reference.getTime());
    for (const { reference, keyframes } of runs) {
      const expired = await catalog.publish(options.model, reference, keyframes, options.keepRuns);
      await Promise.all(expired.map((archive) => rm(path.join(directory, archive), { force: true })));
      report.runs.push({
        referenceTime: reference.toISOString(),
        keyframes: keyframes.map((k) => ({ variable_id: k.variableId, timestamp: k.validTime.toISOString(), id: k.id })),
      });
    }
    if (options.orphanGraceMs !== undefined) await sweepOrphans(catalog, directory, options.orphanGraceMs);
    return report;
  } catch (error) {
    const live = await catalog.archives();
    const written = prepared.runs.flatMap((run) => run.keyframes.map((keyframe) => keyframe.archive));
    await Promise.all(written.filter((a) => !live.has(a)).map((archive) => rm(path.join(directory, archive), { force: true })));
    throw error;
  }
}
