import assert from 'node:assert/strict';
import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { mapRevision } from '../../src/maps/revision.js';
import { tempDir } from '../scratch.js';

const styleOver = (url: string, sprite?: string): StyleSpecification => ({
  version: 8,
  sources: { tiles: { type: 'vector', url } },
  layers: [],
  ...(sprite ? { sprite } : {}),
});

test('a map’s revision follows its definition, its style and the local files it reads, not remote ones', async () => {
  const dir = tempDir();
  const archive = path.join(dir, 'tiles.pmtiles');
  writeFileSync(archive, 'one');
  const definition = { style: 'style.json' };
  const style = styleOver('pmtiles://tiles.pmtiles', 'sprite');
  writeFileSync(path.join(dir, 'sprite.json'), '{}');
  const base = await mapRevision(definition, style, dir);
  assert.equal(await mapRevision(definition, style, dir), base, 'stable while nothing changes');
  assert.notEqual(await mapRevision({ ...definition, maxzoom: 10 }, style, dir), base, 'the definition');
  assert.notEqual(await mapRevision(definition, { ...style, layers: [{ id: 'bg', type: 'background' }] }, dir), base, 'the style');

  writeFileSync(archive, 'two!');
  const rewritten = await mapRevision(definition, style, dir);
  assert.notEqual(rewritten, base, 'the archive rewritten');
  utimesSync(archive, new Date(2030, 0, 1), new Date(2030, 0, 1));
  assert.notEqual(await mapRevision(definition, style, dir), rewritten, 'the archive touched');
  const touched = await mapRevision(definition, style, dir);
  writeFileSync(path.join(dir, 'sprite.json'), '{"a":{}}');
  assert.notEqual(await mapRevision(definition, style, dir), touched, 'the sprite');

  const remote = styleOver('pmtiles://https://example.com/planet.pmtiles');
  assert.equal(await mapRevision(definition, remote, dir), await mapRevision(definition, remote, dir));
});
