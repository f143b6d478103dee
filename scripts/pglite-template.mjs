// Creates an empty PGlite cluster in the given directory, for scripts/test.sh: test data
// directories start from a copy of it (test/helpers.ts) instead of each running PGlite's initdb,
// which takes 2-5 s here, once per test server. What a copy holds is what PGlite's first open writes.
import { PGlite } from '@electric-sql/pglite';

const directory = process.argv[2];
if (!directory) {
  console.error('usage: node scripts/pglite-template.mjs DIRECTORY');
  process.exit(2);
}
const pg = await PGlite.create(directory);
await pg.close();
