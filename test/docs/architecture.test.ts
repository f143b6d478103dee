/**
 * The map of the code stays true to the tree: docs/architecture.md names every folder of src/ and
 * cites only files that exist, and the README stays short enough for a newcomer to read.
 * Folder names are checked as the doc writes them: `src/<area>/` for a folder of src/, and
 * `<name>/` in backticks for a folder below (the doc describes those inside their parent's entry).
 * A file is cited as `src/<path>`, or in backticks as the end of a path of the checkout: a path
 * below src/ (`maps/static/fit.ts`), below the folder a section is about (`http/server.ts`), or a
 * bare name (`grib2.ts`); the section on the console cites console/src/… as src/….
 */

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const architecture = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

function folders(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => [`${dir}/${entry.name}`, ...folders(`${dir}/${entry.name}`)]);
}

/** The files of the checkout's code folders, relative to it. */
function checkoutFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'fixtures') continue;
      if (entry.isDirectory()) walk(`${dir}/${entry.name}`);
      else files.push(`${dir}/${entry.name}`);
    }
  };
  for (const dir of ['src', 'console', 'scripts', 'test', 'bench', 'bin']) walk(dir);
  return files;
}

test('docs/architecture.md names every folder of src/', () => {
  const missing = folders('src').filter((folder) => {
    const below = folder.slice('src/'.length);
    if (!below.includes('/')) return !architecture.includes(`src/${below}/`);
    return !architecture.includes(`\`${path.basename(folder)}/\``) && !architecture.includes(`${folder}/`);
  });
  assert.deepEqual(missing, []);
});

test('docs/architecture.md cites only files that exist', () => {
  const cited = new Set<string>();
  for (const match of architecture.matchAll(/\bsrc\/[\w./-]*\w/g)) cited.add(match[0]);
  for (const match of architecture.matchAll(/`([\w./-]+\.(?:ts|mjs|js|json|html))`/g)) cited.add(match[1]!);
  const files = checkoutFiles();
  const missing = [...cited].filter((citation) => {
    if (citation.startsWith('/')) return false; // a URL path, not a file
    // console/src/… is cited as src/… in the doc's section on the console
    if (citation.startsWith('src/') || citation.startsWith('console/')) return !existsSync(path.join(root, citation)) && !existsSync(path.join(root, 'console', citation));
    // a path below src/ or, inside a folder's own section, below that folder (`http/server.ts`)
    return !files.some((file) => file.endsWith(`/${citation}`));
  });
  assert.deepEqual(missing, []);
});

test('the README is under 250 lines', () => {
  const lines = readFileSync(path.join(root, 'README.md'), 'utf8').split('\n').length;
  assert.ok(lines < 250, `README.md has ${lines} lines`);
});
