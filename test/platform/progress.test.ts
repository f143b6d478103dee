import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eta, formatDuration, progressOn, progressToLog } from '../../src/platform/progress.js';

function recorder(tty: boolean) {
  const written: string[] = [];
  let clock = 0;
  const progress = progressOn({ write: (text: string) => written.push(text), isTTY: tty, columns: 80 }, () => clock);
  return { progress, written, advance: (ms: number) => (clock += ms) };
}

test('off a terminal: a line per phase start, per tenth and per end, nothing redrawn', () => {
  const { progress, written, advance } = recorder(false);
  progress.phase('Writing tiles', 100);
  for (let done = 1; done <= 100; done++) {
    advance(100);
    progress.update(done);
  }
  progress.note('a warning');
  progress.end();
  assert.equal(written[0], 'Writing tiles…\n');
  assert.equal(written.filter((line) => /^Writing tiles: \d+%/.test(line)).length, 9);
  assert.match(written.find((line) => line.startsWith('Writing tiles: 50%'))!, /50%, 5 s left\n$/);
  assert.deepEqual(written.slice(-2), ['a warning\n', 'Writing tiles: done in 10 s\n']);
  assert.ok(written.every((line) => !line.includes('\r') && line.endsWith('\n')));
});

test('on a terminal: one line redrawn in place, at most every 100 ms, with the time left', () => {
  const { progress, written, advance } = recorder(true);
  progress.phase('Sea from GSHHG', 4);
  advance(2000);
  progress.update(1);
  progress.update(2);
  advance(100);
  progress.update(2);
  progress.end();
  const draws = written.filter((text) => text.startsWith('\r\u001b[K') && text.length > 4);
  assert.deepEqual(draws, ['\r\u001b[KSea from GSHHG: 0%', '\r\u001b[KSea from GSHHG: 25%, 6 s left', '\r\u001b[KSea from GSHHG: 50%, 2 s left']);
  assert.equal(written.at(-1), 'Sea from GSHHG: done in 2 s\n');
});

test('durations and the time left read as a person says them', () => {
  assert.equal(formatDuration(59_400), '59 s');
  assert.equal(formatDuration(61_000), '1 min 01 s');
  assert.equal(formatDuration(3_720_000), '1 h 02 min');
  assert.equal(eta(200, 0.5), null);
  assert.equal(eta(10_000, 0.25), 30_000);
});

test("in a server's log: each phase's start with its size, every tenth with the time left, notes, and its end", () => {
  const lines: (Record<string, unknown> & { msg: string })[] = [];
  let clock = 0;
  const progress = progressToLog({ info: (object, msg) => void lines.push({ ...object, msg }) }, { model: 'ifs' }, () => clock);
  progress.phase('Downloading', 20);
  for (let done = 1; done <= 20; done++) {
    clock += 500;
    progress.update(done);
  }
  progress.note('retrying');
  progress.end();
  assert.deepEqual(lines[0], { model: 'ifs', phase: 'Downloading', total: 20, msg: 'started' });
  const tenths = lines.filter((line) => line.msg === 'progress');
  assert.deepEqual(tenths.map((line) => line.percent), [10, 20, 30, 40, 50, 60, 70, 80, 90]);
  assert.deepEqual(tenths[4], { model: 'ifs', phase: 'Downloading', done: 10, total: 20, percent: 50, etaMs: 5000, msg: 'progress' });
  assert.deepEqual(lines.slice(-2), [
    { model: 'ifs', phase: 'Downloading', note: 'retrying', msg: 'note' },
    { model: 'ifs', phase: 'Downloading', ms: 10_000, msg: 'done' },
  ]);
});
