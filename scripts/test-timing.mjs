// A node:test reporter that writes, when the run ends, the test files that took longest (wall-clock
// from a file's first event to its last), so that the suite's time can be kept in check (CI's aim is
// 20 minutes for the whole of `npm test`). scripts/test.sh prints it after each pass.
import path from 'node:path';

const SHOWN = 12;

export default async function* timing(source) {
  const files = new Map();
  for await (const event of source) {
    const file = event.data?.file;
    // Every file is enqueued at the start; it runs from its dequeue to its last event.
    if (!file || event.type === 'test:enqueue') continue;
    const now = performance.now();
    const seen = files.get(file);
    if (seen) seen.last = now;
    else files.set(file, { first: now, last: now });
  }
  const rows = [...files].map(([file, { first, last }]) => ({ file: path.relative(process.cwd(), file), seconds: (last - first) / 1000 }));
  const total = rows.reduce((sum, row) => sum + row.seconds, 0);
  rows.sort((a, b) => b.seconds - a.seconds);
  yield `slowest test files (${rows.length} files, ${total.toFixed(0)} s in all):\n`;
  for (const row of rows.slice(0, SHOWN)) yield `  ${row.seconds.toFixed(1).padStart(7)} s  ${row.file}\n`;
}
