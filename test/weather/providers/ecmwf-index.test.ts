import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ecmwfByteRanges, EcmwfIndexError, parseEcmwfIndex } from '../../../src/weather/providers/ecmwf-index.js';

// Lines as ECMWF writes them (keys of its open-data indexes), not in file order.
const index = [
  '{"domain": "g", "date": "20260830", "time": "1200", "expver": "0001", "class": "od", "type": "fc", "stream": "oper", "step": "6", "levtype": "sfc", "param": "2t", "_offset": 3000, "_length": 1000}',
  '{"domain": "g", "date": "20260830", "time": "1200", "expver": "0001", "class": "od", "type": "fc", "stream": "oper", "step": "6", "levelist": "850", "levtype": "pl", "param": "t", "_offset": 0, "_length": 1500}',
  '{"domain": "g", "date": "20260830", "time": "1200", "expver": "0001", "class": "od", "type": "fc", "stream": "oper", "step": "6", "levtype": "sfc", "param": "10v", "_offset": 4000, "_length": 800}',
  '{"domain": "g", "date": "20260830", "time": "1200", "expver": "0001", "class": "od", "type": "fc", "stream": "oper", "step": "0-6", "levtype": "sfc", "param": "tp", "_offset": 6000, "_length": 700}',
  '{"domain": "g", "date": "20260830", "time": "1200", "expver": "0001", "class": "od", "type": "fc", "stream": "oper", "step": "6", "levtype": "sfc", "param": "10u", "_offset": 1500, "_length": 1500}',
  '',
].join('\n');

test('an index line gives the field by its MARS keys and its bytes', () => {
  const entries = parseEcmwfIndex(index);
  assert.equal(entries.length, 5);
  assert.deepEqual(entries[1], { param: 't', levtype: 'pl', levelist: '850', date: '20260830', time: '1200', step: '6', offset: 0, length: 1500 });
  assert.deepEqual(entries[3]!.step, '0-6');
});

test('wanted fields become ranges in file order, adjacent ones merged, others never fetched', () => {
  const entries = parseEcmwfIndex(index);
  const sfc = (param: string) => ({ param, levtype: 'sfc' });
  // 10u (1500-2999), 2t (3000-3999) and 10v (4000-4799) touch; tp (6000-6699) stands apart.
  assert.deepEqual(ecmwfByteRanges(entries, [sfc('2t'), sfc('10u'), sfc('10v'), sfc('tp')]), [
    { start: 1500, end: 4799, messages: [{ offset: 1500, end: 2999 }, { offset: 3000, end: 3999 }, { offset: 4000, end: 4799 }] },
    { start: 6000, end: 6699, messages: [{ offset: 6000, end: 6699 }] },
  ]);
  // 850 hPa temperature is not 2 m temperature; a surface name does not pick a pressure level.
  assert.deepEqual(ecmwfByteRanges(entries, [sfc('t')]), []);
  assert.deepEqual(ecmwfByteRanges(entries, [{ param: 't', levtype: 'pl', levelist: '850' }]).map((r) => [r.start, r.end]), [[0, 1499]]);
});

test('a line that is not a JSON object with param, levtype, _offset and _length is an error naming the line', () => {
  for (const [text, message] of [
    ['{"param": "2t", "levtype": "sfc", "_offset": 0, "_length": 100}\nnot json', /line 2 is not JSON/],
    ['[1, 2]', /line 1 is not a JSON object/],
    ['{"levtype": "sfc", "_offset": 0, "_length": 100}', /line 1 has no param or levtype/],
    ['{"param": "2t", "levtype": "sfc", "_offset": -1, "_length": 100}', /line 1 has no valid _offset and _length/],
    ['{"param": "2t", "levtype": "sfc", "_offset": 0}', /line 1 has no valid _offset and _length/],
    // No GRIB2 message is shorter than its 16-byte indicator section.
    ['{"param": "2t", "levtype": "sfc", "_offset": 0, "_length": 0}', /line 1 has no valid _offset and _length/],
    ['\n\n', /Empty index/],
  ] as const) {
    assert.throws(() => parseEcmwfIndex(text), (error: Error) => error instanceof EcmwfIndexError && message.test(error.message), text);
  }
});
