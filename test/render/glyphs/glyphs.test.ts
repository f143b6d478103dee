import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PbfReader } from 'pbf';
import { FontCatalog } from '../../../src/render/glyphs/catalog.js';
import { glyphRangePbf } from '../../../src/render/glyphs/pbf.js';
import { repoRoot } from '../suite/cases.js';

interface Glyph { id: number; bitmap?: Uint8Array; width: number; height: number; left: number; top: number; advance: number }

function parse(data: Uint8Array): { name: string; range: string; glyphs: Map<number, Glyph> } {
  const result = { name: '', range: '', glyphs: new Map<number, Glyph>() };
  new PbfReader(data).readFields((tag, out, pbf) => {
    if (tag !== 1) return;
    pbf.readMessage((field, stack, reader) => {
      if (field === 1) stack.name = reader.readString();
      else if (field === 2) stack.range = reader.readString();
      else if (field === 3) {
        const glyph = reader.readMessage((f, g: Glyph, r) => {
          if (f === 1) g.id = r.readVarint();
          else if (f === 2) g.bitmap = r.readBytes();
          else if (f === 3) g.width = r.readVarint();
          else if (f === 4) g.height = r.readVarint();
          else if (f === 5) g.left = r.readSVarint();
          else if (f === 6) g.top = r.readSVarint();
          else if (f === 7) g.advance = r.readVarint();
        }, { id: 0, width: 0, height: 0, left: 0, top: 0, advance: 0 } as Glyph);
        stack.glyphs.set(glyph.id, glyph);
      }
    }, out);
  }, result);
  return result;
}

const catalog = FontCatalog.default();

test('the catalog names fonts by family and style, case-insensitively', () => {
  for (const name of ['Noto Sans Regular', 'Noto Sans Bold', 'Noto Sans Italic', 'Open Sans Regular', 'Open Sans Semibold', 'Open Sans Bold', 'Open Sans Italic']) {
    assert.ok(catalog.has(name), name);
  }
  assert.ok(catalog.has('noto sans regular'));
  assert.ok(!catalog.has('Comic Sans Regular'));
  assert.ok(catalog.names().includes('Noto Sans CJK SC Regular'));
});

test('a codepoint the first font lacks falls back to the script font', () => {
  assert.equal(catalog.fontFor(['Open Sans Regular'], 'A'.codePointAt(0)!), 'open sans regular');
  assert.equal(catalog.fontFor(['Open Sans Regular'], 'ب'.codePointAt(0)!), 'noto sans arabic regular');
  assert.match(catalog.fontFor(['Open Sans Bold'], '東'.codePointAt(0)!)!, /noto sans cjk .. bold/);
  assert.equal(catalog.glyph(['Noto Sans Regular'], 0x10ffff), null);
});

test('glyph metrics match the Noto Sans PBFs node-fontnik made for tileserver-gl-styles', () => {
  const theirs = parse(readFileSync(path.join(repoRoot, 'node_modules/tileserver-gl-styles/fonts/Noto Sans Regular/0-255.pbf')));
  const ours = parse(glyphRangePbf(catalog, ['Noto Sans Regular'], 0));
  assert.equal(ours.name, 'Noto Sans Regular');
  assert.equal(ours.range, '0-255');
  let compared = 0;
  let close = 0;
  for (const [id, glyph] of theirs.glyphs) {
    const mine = ours.glyphs.get(id);
    if (!mine || id < 33 || id > 126) continue;
    compared++;
    const within1 = ['width', 'height', 'left', 'top', 'advance'].every((k) => Math.abs(mine[k as keyof Glyph] as number - (glyph[k as keyof Glyph] as number)) <= 1);
    if (within1) close++;
  }
  assert.ok(compared > 90);
  assert.ok(close / compared > 0.95, `${close} of ${compared} ASCII glyphs within 1 px`);
});

test('each bitmap is an SDF of (width + 6) x (height + 6) bytes, inside high and outside low', () => {
  const ours = parse(glyphRangePbf(catalog, ['Noto Sans Regular'], 0));
  const h = ours.glyphs.get('H'.charCodeAt(0))!;
  assert.equal(h.bitmap!.length, (h.width + 6) * (h.height + 6));
  const row = (y: number) => Array.from(h.bitmap!.subarray(y * (h.width + 6), (y + 1) * (h.width + 6)));
  const middle = row(Math.floor((h.height + 6) / 2));
  assert.ok(middle[0]! < 100, 'border outside the glyph');
  assert.ok(Math.max(...middle) > 191, 'stems inside the glyph');
  assert.equal(ours.glyphs.get(32)!.bitmap, undefined);
});

test('CJK ranges come from the CJK font and ranges must be multiples of 256', () => {
  const cjk = parse(glyphRangePbf(catalog, ['Noto Sans Regular'], 0x6700));
  assert.ok(cjk.glyphs.get(0x6771)!.advance >= 23);
  assert.throws(() => glyphRangePbf(catalog, ['Noto Sans Regular'], 100), RangeError);
});

test('the catalog tells the file a font is read from, and nothing for a font it lacks', () => {
  assert.match(catalog.file('noto sans regular') ?? '', /NotoSans-Regular\.ttf$/);
  assert.equal(catalog.file('No Such Font Regular'), undefined);
});
