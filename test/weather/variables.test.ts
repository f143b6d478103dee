import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { before, test } from 'node:test';
import { defaultVariables } from '../../src/weather/variables.js';
import { requirePeers } from '../peers.js';

before(() => requirePeers('udunits'));

/** What each variable's unit must convert to: its physical quantity in other units. */
const quantity: Record<string, string> = {
  'temperature-2m': 'K',
  'pressure-msl': 'Pa',
  'wind-10m': 'km/h',
  'precipitation-1h': 'm/s',
  'frozen_precipitation-1h': 'm/s',
  'cloud_cover-total': '1',
  'precipitation_rate': 'm/s',
  'relative_humidity-2m': '1',
  'wind_gust-10m': 'km/h',
  // A logarithmic unit, which UDUNITS parses but converts to nothing else.
  'radar-composite': '',
};

/** udunits2's answer for converting one unit to another, or its error. */
function convert(unit: string, to: string): string {
  try {
    return execFileSync('udunits2', ['-H', unit, '-W', to], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    return `error: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`;
  }
}

test('every built-in variable has a unit that people read and UDUNITS converts to its quantity', () => {
  for (const variable of defaultVariables) {
    const to = quantity[variable.id];
    assert.ok(to !== undefined, `${variable.id} has a quantity to check`);
    assert.doesNotMatch(convert(variable.unit, to), /^error/, `${variable.id}: "${variable.unit}" to "${to}"`);
  }
  const units = new Map(defaultVariables.map((v) => [v.id, v.unit]));
  // "C" is the coulomb and "ms" the millisecond to UDUNITS and to people alike.
  assert.equal(units.get('temperature-2m'), '°C');
  assert.equal(units.get('wind-10m'), 'm/s');
  assert.match(convert('°C', 'K'), /1 °C = 274\.15 K/);
  assert.match(convert('m/s', 'km/h'), /1 m\/s = 3\.6 km\/h/);
});
