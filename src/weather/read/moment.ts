/**
 * A moment of a variable, as the console shows it and static maps draw it: the two keyframes of
 * the latest run around a time and how far between them the time lies (values are interpolated
 * linearly between the two, as the console does). A time between the run's first and last
 * keyframes is required; without one, the first keyframe.
 */

import path from 'node:path';
import { ApiError, NotFoundError } from '../../platform/errors.js';
import type { KeyframeRow } from '../catalog.js';
import type { CatalogMemory } from './catalog-memory.js';
import { weatherCredit } from '../providers/credit.js';

export interface WeatherMoment {
  variableId: string;
  name: string;
  unit: string;
  decoding: { channels: 'r' | 'rg'; min: number; max: number };
  /** Who an image of it credits (credit.ts), from the attribution the catalog records. */
  attribution: string;
  maxzoom: number;
  /** Absolute paths of the archives of the keyframes before and after the time (the same one on a keyframe). */
  archives: [string, string];
  /** 0 at the first keyframe, 1 at the second. */
  t: number;
}

interface Layer {
  metadata: { maxzoom: number; weather_variable: { name: string; unit: string; attribution: string; decoding: WeatherMoment['decoding'] } };
}

export async function weatherMoment(memory: CatalogMemory, directory: string, variable: string, time: Date | null): Promise<WeatherMoment> {
  const rows = await memory.latestKeyframes();
  if (rows.length === 0) throw new NotFoundError();
  const ids = [...new Set(rows.map((row) => row.variable_id))];
  const matching = ids.filter((id) => id === variable || id.slice(0, id.indexOf(':')) === variable);
  if (matching.length === 0) throw new ApiError(`Unknown weather variable "${variable}"; the latest runs have ${ids.join(', ')}`);
  if (matching.length > 1) throw new ApiError(`Weather variable "${variable}" is given by several models: name one of ${matching.join(', ')}`);
  const keyframes = rows.filter((row) => row.variable_id === matching[0]);
  const { before, after, t } = around(keyframes, time);
  const layer = before.layer as unknown as Layer;
  const { name, unit, attribution, decoding } = layer.metadata.weather_variable;
  return {
    variableId: before.variable_id,
    name,
    unit,
    decoding,
    attribution: weatherCredit(attribution),
    maxzoom: layer.metadata.maxzoom,
    archives: [path.join(directory, before.archive), path.join(directory, after.archive)],
    t,
  };
}

function around(keyframes: KeyframeRow[], time: Date | null): { before: KeyframeRow; after: KeyframeRow; t: number } {
  const first = keyframes[0]!;
  const last = keyframes[keyframes.length - 1]!;
  if (time === null) return { before: first, after: first, t: 0 };
  const at = time.getTime();
  if (at < first.valid_time.getTime() || at > last.valid_time.getTime()) {
    throw new ApiError(`time ${time.toISOString()} is outside the keyframes of ${first.variable_id}: ${first.valid_time.toISOString()} to ${last.valid_time.toISOString()}`);
  }
  for (let k = 0; k < keyframes.length; k++) {
    const keyframe = keyframes[k]!;
    const valid = keyframe.valid_time.getTime();
    if (valid === at) return { before: keyframe, after: keyframe, t: 0 };
    if (valid > at) {
      const previous = keyframes[k - 1]!;
      const start = previous.valid_time.getTime();
      return { before: previous, after: keyframe, t: (at - start) / (valid - start) };
    }
  }
  return { before: last, after: last, t: 0 };
}
