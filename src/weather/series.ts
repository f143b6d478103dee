import type { VariableDefinition } from './variables.js';

/**
 * Turning forecast fields into the values a keyframe shows: unit conversion, rates per hour, and
 * de-accumulation of totals. Pure: values in, values out.
 */

/** A field's time as the message gives it: a moment, or a statistical period ending at `end`. */
export interface FieldTime {
  /** The moment depicted: the forecast time, or the end of the statistical period. */
  valid: Date;
  /** Start of the statistical period, when there is one. */
  periodStart: Date | null;
}

export function convert(values: Float32Array, variable: VariableDefinition): Float32Array {
  const out = new Float32Array(values.length);
  const { scale, offset } = variable;
  for (let k = 0; k < values.length; k++) out[k] = values[k]! * scale + offset;
  return out;
}

/**
 * Above this no precipitation rate is per second (kg m-2 s-1, parameter 0.1.7's unit): 0.1 is
 * 360 mm/h, beyond any hour of rain ever recorded, let alone a grid cell's average.
 */
export const MAX_RATE_PER_SECOND = 0.1;

/**
 * The largest value of a rate series when it cannot be per second, as its parameter says, so that
 * the producer wrote it per hour (NCEP's southern Africa sample does: up to 88 under 0.1.7);
 * null when the series is plausible per second.
 */
export function perHourMaximum(series: readonly Float32Array[]): number | null {
  let maximum = -Infinity;
  for (const values of series) for (const v of values) if (v > maximum) maximum = v;
  return maximum > MAX_RATE_PER_SECOND ? maximum : null;
}

/** The first field scaled by the second, a percentage: the frozen part of precipitation, say. */
export function fraction(values: Float32Array, percent: Float32Array): Float32Array {
  const out = new Float32Array(values.length);
  for (let k = 0; k < values.length; k++) out[k] = (values[k]! * Math.max(0, percent[k]!)) / 100;
  return out;
}

const hour = 3_600_000;

export interface Accumulation {
  time: FieldTime;
  values: Float32Array;
}

/**
 * Totals over periods become rates per hour. Models often accumulate from a fixed start (0-3,
 * 0-6 h, ...): a total that shares its start with an earlier one is first reduced by it, so
 * each rate covers only the hours since the previous step.
 */
export function deaccumulate(series: readonly Accumulation[]): Accumulation[] {
  const sorted = [...series].sort((a, b) => a.time.valid.getTime() - b.time.valid.getTime());
  return sorted.map((current, index) => {
    const start = current.time.periodStart ?? current.time.valid;
    const previous = sorted
      .slice(0, index)
      .reverse()
      .find((earlier) => earlier.time.periodStart?.getTime() === start.getTime());
    const from = previous ? previous.time.valid : start;
    const hours = (current.time.valid.getTime() - from.getTime()) / hour;
    const rates = new Float32Array(current.values.length);
    if (hours <= 0) {
      rates.fill(Number.NaN);
      return { time: current.time, values: rates };
    }
    for (let k = 0; k < rates.length; k++) {
      const total = previous ? current.values[k]! - previous.values[k]! : current.values[k]!;
      // Packing noise can make a difference of totals slightly negative.
      rates[k] = Math.max(0, total) / hours;
    }
    return { time: current.time, values: rates };
  });
}
