// Prints, of the compiled test files given, those whose static imports reach the database opener
// (dist/src/platform/storage/open.js). Only these can behave differently on PGlite and on PostgreSQL,
// so scripts/test.sh runs the others once, on the first pass. A file that reaches it but whose
// header says `@oneDatabase <why>` runs once too: the database only checks its keys, and what it
// tests (a browser's drawing, a timing under load) is the same on both. Imports are read from the compiled
// JavaScript (`import … from './x.js'`, `export … from`, `import('./x.js')`); packages are not followed.
import fs from 'node:fs';
import path from 'node:path';

const opener = path.resolve('dist/src/platform/storage/open.js');
const relativeImport = /(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|import\s*['"](\.[^'"]+)['"]/g;
const known = new Map();

function reachesOpener(file, visiting = new Set()) {
  if (file === opener) return true;
  if (known.has(file)) return known.get(file);
  if (visiting.has(file)) return false;
  visiting.add(file);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  let reaches = false;
  for (const match of text.matchAll(relativeImport)) {
    const spec = match[1] ?? match[2] ?? match[3];
    if (reachesOpener(path.resolve(path.dirname(file), spec), visiting)) {
      reaches = true;
      break;
    }
  }
  known.set(file, reaches);
  return reaches;
}

if (!fs.existsSync(opener)) {
  console.error(`database-tests: ${opener} is missing; build first`);
  process.exit(1);
}
const oneDatabase = /^\s*\*\s*@oneDatabase\s+\S/m;
for (const file of process.argv.slice(2)) {
  if (reachesOpener(path.resolve(file)) && !oneDatabase.test(fs.readFileSync(file, 'utf8'))) console.log(file);
}
