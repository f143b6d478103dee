import assert from 'node:assert/strict';
import { copyFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { addArchive } from '../../../src/tools/osm/add.js';
import { repoRoot } from '../../render/suite/cases.js';
import { tempDir } from '../../scratch.js';

const KIRCHBERG_MBTILES = path.join(repoRoot, 'test/fixtures/osm/kirchberg.mbtiles');

/** Every file of a maps folder and its bytes, but the lock file a build leaves beside its versions. */
function contents(dir: string): Map<string, string> {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((entry) => path.basename(entry) !== '.lock' && statSync(path.join(dir, entry)).isFile());
  return new Map(files.sort().map((file) => [file, readFileSync(path.join(dir, file)).toString('base64')]));
}

test('a build that fails part-way removes its partial folder and leaves the published maps as they were', async () => {
  const dir = tempDir();
  await addArchive(KIRCHBERG_MBTILES, { mapsDir: dir, id: 'kirchberg' });
  const before = contents(dir);

  // The same tiles and one more whose column lies outside its zoom (zoom 3 has columns 0 to 7): the
  // file reads as MBTiles, and its conversion in the partial folder fails when it reaches that tile.
  const broken = path.join(tempDir(), 'broken.mbtiles');
  copyFileSync(KIRCHBERG_MBTILES, broken);
  const db = new Database(broken);
  db.prepare('INSERT INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (3, 9, 0, ?)').run(Buffer.from([0x1a, 0x00]));
  db.close();
  await assert.rejects(addArchive(broken, { mapsDir: dir, id: 'kirchberg' }), /tile x\/y outside zoom level bounds/);

  const home = path.join(dir, 'osm', 'kirchberg');
  assert.deepEqual(readdirSync(home).filter((entry) => entry.endsWith('.partial')), []);
  assert.deepEqual(contents(dir), before);
});
