// A node:test reporter that writes, when the run ends, the test files that took longest, so that the
// suite's time can be kept in check (CI's aim is 20 minutes for the whole of `npm test`), and then
// each failed test with its place and message. scripts/test.sh prints the first part after each pass
// and gathers the failures of both passes at the very end of its output, where a log read from its
// tail (CI's) shows them; the spec reporter's own list is hundreds of lines further up.
//
// A file's time is the sum of its top-level tests' durations, as each test measured itself: with
// files run side by side (--test-concurrency) the runner reports a file's events only once the
// files before it are done, so the time between its events says nothing. Imports and hooks outside
// the tests are not counted.
import path from 'node:path';

const SHOWN = 12;
const FAILURES_HEADING = 'failed tests:';

export default async function* summary(source) {
  const files = new Map();
  const failures = [];
  for await (const event of source) {
    if (event.type === 'test:fail') {
      const error = event.data.details?.error;
      // A suite fails because a test in it did: that test is listed, not the suite again.
      if (error?.failureType !== 'subtestsFailed') failures.push(describe(event.data, error));
    }
    const file = event.data?.file;
    if (!file || (event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    files.set(file, (files.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...files].map(([file, ms]) => ({ file: path.relative(process.cwd(), file), seconds: ms / 1000 }));
  const total = rows.reduce((sum, row) => sum + row.seconds, 0);
  rows.sort((a, b) => b.seconds - a.seconds);
  yield `slowest test files (${rows.length} files, ${total.toFixed(0)} s of tests in all):\n`;
  for (const row of rows.slice(0, SHOWN)) yield `  ${row.seconds.toFixed(1).padStart(7)} s  ${row.file}\n`;
  if (failures.length > 0) yield `${FAILURES_HEADING}\n${failures.join('')}`;
}

function describe(data, error) {
  const where = data.file ? `${path.relative(process.cwd(), data.file)}:${data.line ?? '?'}` : '(no file)';
  // A failure in the test's own code carries the thrown error as its cause.
  const cause = error?.cause ?? error;
  const message = String(cause?.message ?? cause ?? 'no message').split('\n').slice(0, 6).join('\n    ');
  return `  ✖ ${data.name} (${where})\n    ${message.slice(0, 1200)}\n`;
}
