import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { readProcStat } from '../../../src/platform/files/proc-stat.js';
import { tempDir } from '../../scratch.js';

test("this process's stat line gives its parent (field 4) and its state (field 3)", () => {
  const stat = readProcStat('/proc/self/stat');
  assert.ok(stat);
  assert.equal(Number(stat.field(4)), process.ppid);
  assert.equal(stat.field(3), 'R');
});

test('fields are counted after the last closing parenthesis: a command name may hold spaces and parentheses', () => {
  const file = path.join(tempDir(), 'stat');
  writeFileSync(file, '4242 (odd) name (x)) S 7 4242 4242 0 -1 4194560 1 0 0 0 11 22 33 44 20 5 1 0 98765 0\n');
  const stat = readProcStat(file)!;
  assert.equal(stat.name, 'odd) name (x)');
  assert.deepEqual([3, 4, 14, 15, 16, 17, 19, 22].map((n) => stat.field(n)), ['S', '7', '11', '22', '33', '44', '5', '98765']);
});

test('a process that has ended (no file) is null', () => {
  assert.equal(readProcStat('/proc/0/stat'), null);
});
