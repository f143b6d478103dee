import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandTemplate, localPath, resolveUrlTemplate } from '../../../src/render/source/template.js';

test('templates expand the tokens MapLibre knows, and {-y}', () => {
  assert.equal(expandTemplate(['https://t/{z}/{x}/{y}.png'], 'xyz', 3, 5, 1), 'https://t/3/5/1.png');
  assert.equal(expandTemplate(['https://t/{z}/{x}/{y}.png'], 'tms', 3, 5, 1), 'https://t/3/5/6.png');
  assert.equal(expandTemplate(['/t/{z}/{x}/{-y}{ratio}.png'], 'xyz', 3, 5, 1), '/t/3/5/6.png');
  assert.equal(expandTemplate(['q/{quadkey}/{prefix}'], 'xyz', 3, 5, 1), 'q/103/51');
  assert.equal(expandTemplate(['b?{bbox-epsg-3857}'], 'xyz', 1, 0, 0), 'b?-20037508.342789244,0,0,20037508.342789244');
});

test('several templates spread tiles by (x + y) mod count', () => {
  const templates = ['a/{x}', 'b/{x}', 'c/{x}'];
  assert.deepEqual([0, 1, 2, 3].map((x) => expandTemplate(templates, 'xyz', 2, x, 0)), ['a/0', 'b/1', 'c/2', 'a/3']);
});

test('relative tile templates resolve against their document, braces kept', () => {
  assert.equal(resolveUrlTemplate('{z}/{x}/{y}.pbf', 'https://h/tiles/doc.json?key=1'), 'https://h/tiles/{z}/{x}/{y}.pbf');
  assert.equal(resolveUrlTemplate('/v/{z}/{x}/{y}.pbf', 'https://h/tiles/doc.json'), 'https://h/v/{z}/{x}/{y}.pbf');
  assert.equal(resolveUrlTemplate('//cdn/{z}.pbf', 'https://h/doc.json'), 'https://cdn/{z}.pbf');
  assert.equal(resolveUrlTemplate('{z}.pbf', 'https://h'), 'https://h/{z}.pbf');
  assert.equal(resolveUrlTemplate('http://other/{z}.pbf', 'https://h/doc.json'), 'http://other/{z}.pbf');
});

test('local references are paths relative to a folder, or file: URLs', () => {
  assert.equal(localPath('tiles/a.pmtiles', '/data/maps'), '/data/maps/tiles/a.pmtiles');
  assert.equal(localPath('/abs/a.pmtiles', '/data/maps'), '/abs/a.pmtiles');
  assert.equal(localPath('file:///abs/my%20tiles/a.pmtiles', '/data/maps'), '/abs/my tiles/a.pmtiles');
});
