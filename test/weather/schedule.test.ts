import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSteps } from '../../src/weather/schedule.js';

test('forecast hours are single hours, ranges and ranges with a step, ascending and once each', () => {
  assert.deepEqual(parseSteps('6'), [6]);
  assert.deepEqual(parseSteps('0-3'), [0, 1, 2, 3]);
  assert.deepEqual(parseSteps('0-12/6,3,12-18/3'), [0, 3, 6, 12, 15, 18]);
  assert.equal(parseSteps('0-96/1').length, 97);
  for (const bad of ['', 'a', '5-1', '0-9/0', '0-9/x', '1,,2']) assert.throws(() => parseSteps(bad), Error, bad);
});
