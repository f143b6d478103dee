/**
 * The registry index saved at setup (index-cache.ts): read back, it is the index built from proj.db
 * and answers searches alike; a file for another registry, engine, V8 or index format, or a damaged or
 * inconsistent one, is refused with the reason, and a starting server then builds the index from
 * proj.db, saying so.
 */

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import v8 from 'node:v8';
import { indexCachePath, indexKey, loadIndex, readIndexCache, writeIndexCache } from '../../src/coordinates/index-cache.js';
import { loadRegistry } from '../../src/coordinates/search/registry.js';
import { search } from '../../src/coordinates/search/search.js';
import { tempDir } from '../scratch.js';

const built = loadRegistry();
const QUERIES = ['swit', 'germany', 'Schweiz', 'reino unido', 'kind:DATUM wgs', 'mercatr', 'finland deprecated:* kind:*', 'code:4326', 'method:9807 datum:6258 kind:CRS-PROJCRS', 'area_code:1286'];
const page = (registry: ReturnType<typeof loadRegistry>, query: string) => search(registry, { query, limit: 20, offset: 0, transformations: false, exports: false });

/** A log that keeps what it is told. */
function logs() {
  const lines: { level: string; details: Record<string, unknown>; message: string }[] = [];
  return {
    lines,
    info: (details: object, message: string) => lines.push({ level: 'info', details: details as Record<string, unknown>, message }),
    warn: (details: object, message: string) => lines.push({ level: 'warn', details: details as Record<string, unknown>, message }),
  };
}

test('the saved index reads back as the index built from proj.db, and answers searches alike', () => {
  const dataDir = tempDir();
  writeIndexCache(indexCachePath(dataDir), built);
  const log = logs();
  const read = loadIndex(dataDir, log);
  assert.deepEqual(log.lines.map((line) => [line.level, line.message]), [['info', 'coordinates index loaded from its cache']]);
  assert.deepStrictEqual(read, built);
  for (const query of QUERIES) assert.deepEqual(page(read, query), page(built, query), query);
});

test('a saved index for another registry, engine or V8, or a damaged one, is refused, and the server builds the index', () => {
  const dataDir = tempDir();
  const file = indexCachePath(dataDir);
  assert.deepEqual(readIndexCache(file), { problem: 'no cache file' });
  mkdirSync(path.dirname(file), { recursive: true });
  const key = indexKey();
  const cases: [unknown, RegExp][] = [
    [{ key: { ...key, epsg: 'v12.005' }, registry: built }, /^built for another/],
    [{ key: { ...key, v8: '1.0' }, registry: built }, /^built for another/],
    [{ key: { ...key, engine: 'proj-wasm@0.1.0-alpha9' }, registry: built }, /^built for another/],
    // An index saved before it held the countries' names in other languages.
    [{ key: { ...key, index: key.index - 1 }, registry: built }, /^built for another/],
    [{ registry: built }, /^built for another/],
    [{ key, registry: { ...built, entries: built.entries.slice(1) } }, /^inconsistent index/],
    [{ key, registry: { ...built, text: { ...built.text, words: built.text.words.slice(1) } } }, /^inconsistent index/],
    [{ key, registry: { ...built, epsgVersion: 'v12.005' } }, /^inconsistent index/],
    [{ key, registry: { ...built, crs: {} } }, /^inconsistent index/],
    [{ key, registry: { ...built, places: undefined } }, /^inconsistent index/],
  ];
  for (const [saved, problem] of cases) {
    writeFileSync(file, v8.serialize(saved));
    const read = readIndexCache(file);
    assert.ok('problem' in read && problem.test(read.problem), `${problem}: ${JSON.stringify('problem' in read ? read.problem : 'read')}`);
  }
  writeFileSync(file, v8.serialize({ key, registry: built }).subarray(0, 1000));
  const truncated = readIndexCache(file);
  assert.ok('problem' in truncated && /^unreadable/.test(truncated.problem), JSON.stringify(truncated));

  const log = logs();
  const fallback = loadIndex(dataDir, log);
  assert.equal(log.lines.length, 1);
  assert.equal(log.lines[0]!.level, 'warn');
  assert.match(log.lines[0]!.message, /^coordinates index built from proj\.db/);
  assert.match(String(log.lines[0]!.details.problem), /^unreadable/);
  assert.deepEqual(page(fallback, 'swit'), page(built, 'swit'));
});
