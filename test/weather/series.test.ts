import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convert, deaccumulate } from '../../src/weather/series.js';
import { defaultVariables } from '../../src/weather/variables.js';

const at = (hours: number) => new Date(Date.UTC(2026, 10, 22) + hours * 3_600_000);

test('units are converted with the variable scale and offset', () => {
  const temperature = defaultVariables.find((v) => v.id === 'temperature-2m')!;
  const celsius = convert(Float32Array.of(273.15, 300), temperature);
  assert.ok(Math.abs(celsius[0]!) < 1e-4 && Math.abs(celsius[1]! - 26.85) < 1e-4);
  const rate = defaultVariables.find((v) => v.id === 'precipitation-1h' && v.time === 'rate')!;
  assert.ok(Math.abs(convert(Float32Array.of(0.001), rate)[0]! - 3.6) < 1e-6, 'kg m-2 s-1 to mm/h');
});

test('totals from a common start are differenced step by step, then divided by the hours', () => {
  const rates = deaccumulate([
    { time: { valid: at(6), periodStart: at(0) }, values: Float32Array.of(9) },
    { time: { valid: at(3), periodStart: at(0) }, values: Float32Array.of(3) },
    { time: { valid: at(9), periodStart: at(6) }, values: Float32Array.of(6) },
    { time: { valid: at(12), periodStart: at(6) }, values: Float32Array.of(7.5) },
  ]);
  assert.deepEqual(
    rates.map((r) => [r.time.valid.getTime(), r.values[0]]),
    [
      [at(3).getTime(), 1],
      [at(6).getTime(), 2],
      [at(9).getTime(), 2],
      [at(12).getTime(), 0.5],
    ],
  );
});

test('a lone total over its own period is its average rate, and noise never goes negative', () => {
  const [only] = deaccumulate([{ time: { valid: at(120), periodStart: at(114) }, values: Float32Array.of(12, -0.001) }]);
  assert.deepEqual([...only!.values], [2, 0]);
});
