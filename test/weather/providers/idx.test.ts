import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteRanges, IdxError, parseIdx } from '../../../src/weather/providers/idx.js';

const inventory = [
  '1:0:d=2025112200:PRMSL:mean sea level:anl:',
  '2:1000:d=2025112200:HGT:1000 mb:6 hour fcst:',
  '3:2500:d=2025112200:TMP:2 m above ground:6 hour fcst:',
  '4:3100:d=2025112200:UGRD:10 m above ground:6 hour fcst:',
  '4.2:3100:d=2025112200:VGRD:10 m above ground:6 hour fcst:',
  '5:4000:d=2025112200:PRATE:surface:0-6 hour ave fcst:',
  '6:4600:d=2025112200:APCP:surface:0-6 hour acc fcst:',
  '7:5200:d=2025112200:TCDC:entire atmosphere:0-6 hour ave fcst:',
  '8:7000:d=2025112200:REFC:entire atmosphere:6 hour fcst:',
  '',
].join('\n');

const name = (variable: string, level: string) => ({ variable, level });

test('an inventory line gives the message number, offset, run, variable, level and forecast', () => {
  const entries = parseIdx(inventory);
  assert.equal(entries.length, 9);
  assert.deepEqual(entries[4], {
    message: '4.2',
    offset: 3100,
    date: '2025112200',
    variable: 'VGRD',
    level: '10 m above ground',
    forecast: '6 hour fcst',
  });
  assert.equal(entries[5]!.forecast, '0-6 hour ave fcst');
  assert.equal(parseIdx('1:0:d=2025112200:PRMSL:mean sea level:anl:\r\n').length, 1);
});

test('a malformed inventory is an error naming the line', () => {
  assert.throws(() => parseIdx('1:0:d=2025112200:PRMSL:mean sea level:anl:\n2:abc:d=2025112200:TMP:2 m above ground:anl:\n'), (error: Error) => {
    assert.ok(error instanceof IdxError);
    assert.match(error.message, /line 2/);
    assert.match(error.message, /2:abc:/);
    return true;
  });
  assert.throws(() => parseIdx('1:0:d=2025112200:PRMSL:mean sea level:anl:\n2:100:TMP:2 m above ground:anl:\n'), /line 2/);
  assert.throws(() => parseIdx('1:500:d=2025112200:PRMSL:mean sea level:anl:\n2:100:d=2025112200:TMP:2 m above ground:anl:\n'), /line 2.*offset/);
  assert.throws(() => parseIdx('\n\n'), /Empty inventory/);
});

test('a message runs to the byte before the next offset, the last one to the end of the file', () => {
  const entries = parseIdx(inventory);
  assert.deepEqual(byteRanges(entries, [name('TMP', '2 m above ground')]), [
    { start: 2500, end: 3099, messages: [{ offset: 2500, end: 3099 }] },
  ]);
  assert.deepEqual(byteRanges(entries, [name('REFC', 'entire atmosphere')]), [
    { start: 7000, end: null, messages: [{ offset: 7000, end: null }] },
  ]);
});

test('fields sharing an offset are one message, fetched once', () => {
  const entries = parseIdx(inventory);
  const both = byteRanges(entries, [name('UGRD', '10 m above ground'), name('VGRD', '10 m above ground')]);
  assert.deepEqual(both, [{ start: 3100, end: 3999, messages: [{ offset: 3100, end: 3999 }] }]);
  assert.deepEqual(byteRanges(entries, [name('VGRD', '10 m above ground')]), both);
});

test('adjacent wanted messages merge into one range; a gap of unwanted bytes is never fetched', () => {
  const entries = parseIdx(inventory);
  const ranges = byteRanges(entries, [
    name('PRMSL', 'mean sea level'),
    name('TMP', '2 m above ground'),
    name('UGRD', '10 m above ground'),
    name('PRATE', 'surface'),
    name('TCDC', 'entire atmosphere'),
  ]);
  assert.deepEqual(
    ranges.map((r) => [r.start, r.end, r.messages.map((m) => m.offset)]),
    [
      [0, 999, [0]],
      [2500, 4599, [2500, 3100, 4000]],
      [5200, 6999, [5200]],
    ],
  );
  // REFC shares its name's level with TCDC but not its variable: only TCDC is fetched.
  assert.ok(ranges.every((r) => r.end !== null));
});

test('a merged range reaching the last message runs to the end of the file', () => {
  const ranges = byteRanges(parseIdx(inventory), [name('TCDC', 'entire atmosphere'), name('REFC', 'entire atmosphere')]);
  assert.deepEqual(ranges, [
    { start: 5200, end: null, messages: [{ offset: 5200, end: 6999 }, { offset: 7000, end: null }] },
  ]);
});

test('names absent from the inventory select nothing', () => {
  assert.deepEqual(byteRanges(parseIdx(inventory), [name('TMP', '850 mb'), name('SNOD', 'surface')]), []);
  assert.deepEqual(byteRanges(parseIdx(inventory), []), []);
});
