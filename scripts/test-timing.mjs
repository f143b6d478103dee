// A node:test reporter that writes, when the run ends, the test files that took longest, so that the
// suite's time can be kept in check (CI's aim is 20 minutes for the whole of `npm test`).
// scripts/test.sh prints it after each pass. A file's time is the sum of its top-level tests'
// durations, as each test measured itself: with files run side by side (--test-concurrency) the
// runner reports a file's events only once the files before it are done, so the time between its
// events says nothing. Imports and hooks outside the tests are not counted.
import path from 'node:path';

const SHOWN = 12;

export default async function* timing(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    if (!file || (event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    files.set(file, (files.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...files].map(([file, ms]) => ({ file: path.relative(process.cwd(), file), seconds: ms / 1000 }));
  const total = rows.reduce((sum, row) => sum + row.seconds, 0);
  rows.sort((a, b) => b.seconds - a.seconds);
  yield `slowest test files (${rows.length} files, ${total.toFixed(0)} s of tests in all):\n`;
  for (const row of rows.slice(0, SHOWN)) yield `  ${row.seconds.toFixed(1).padStart(7)} s  ${row.file}\n`;
}
