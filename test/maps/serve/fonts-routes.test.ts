/**
 * @oneDatabase the database only checks the key; what is tested is glyph ranges.
 */

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { PbfReader } from 'pbf';
import { parseFontstack, parseGlyphRange } from '../../../src/maps/serve/fonts-routes.js';
import { newAccount, startTestServer, testConfig, type TestServer } from '../../helpers.js';

let server: TestServer;
let key: string;

before(async () => {
  server = await startTestServer(testConfig());
  key = (await server.meridian.keys.create((await newAccount(server.meridian)).accountId, {})).token;
});

after(() => server.close());

const get = (url: string, headers: Record<string, string> = {}) =>
  server.server.public.inject({ method: 'GET', url: `${url}?key=${encodeURIComponent(key)}`, headers });

/** The fontstack name, range and glyph ids of a glyph PBF (glyphs.proto). */
function readGlyphs(bytes: Buffer): { name: string; range: string; ids: number[] } {
  const result = { name: '', range: '', ids: [] as number[] };
  new PbfReader(bytes).readFields((tag, _, pbf) => {
    if (tag !== 1) return;
    pbf!.readMessage((field, _value, stack) => {
      if (field === 1) result.name = stack!.readString();
      else if (field === 2) result.range = stack!.readString();
      else if (field === 3) {
        stack!.readMessage((glyphField, _g, glyph) => {
          if (glyphField === 1) result.ids.push(glyph!.readVarint());
        }, undefined);
      }
    }, undefined);
  }, undefined);
  return result;
}

describe('GET /fonts/{fontstack}/{range}.pbf', () => {
  test('a range of a fontstack is its glyph PBF, the same bytes every time, with caching headers', async () => {
    const response = await get('/fonts/Noto%20Sans%20Regular,Noto%20Sans%20Bold/0-255.pbf');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/x-protobuf');
    assert.equal(response.headers['cache-control'], 'public, max-age=86400');
    const glyphs = readGlyphs(response.rawPayload);
    assert.equal(glyphs.name, 'Noto Sans Regular,Noto Sans Bold');
    assert.equal(glyphs.range, '0-255');
    assert.ok(glyphs.ids.includes(65) && glyphs.ids.includes(233), 'A and é are there');
    assert.ok(glyphs.ids.every((id) => id >= 0 && id <= 255));
    const again = await get('/fonts/Noto%20Sans%20Regular,Noto%20Sans%20Bold/0-255.pbf');
    assert.ok(again.rawPayload.equals(response.rawPayload));
    assert.equal((await get('/fonts/Noto%20Sans%20Regular,Noto%20Sans%20Bold/0-255.pbf', { 'if-none-match': String(response.headers.etag) })).statusCode, 304);
  });

  test('a font the catalog lacks falls back, so its glyphs are still there', async () => {
    const response = await get('/fonts/No%20Such%20Font%20Regular/1024-1279.pbf');
    assert.equal(response.statusCode, 200);
    const glyphs = readGlyphs(response.rawPayload);
    assert.ok(glyphs.ids.includes(0x416), 'Cyrillic Ж from a fallback font');
  });

  test('a range that is not start-end over 256 codepoints from a multiple of 256 is 400', async () => {
    for (const range of ['0-254', '1-256', '256-255', '65536-65791', 'a-b', '0-255-511', '-256-0']) {
      const response = await get(`/fonts/Noto%20Sans%20Regular/${range}.pbf`);
      assert.equal(response.statusCode, 400, range);
      assert.match(response.json().errors[0].message, /Invalid glyph range/, range);
    }
    assert.equal((await get('/fonts/Noto%20Sans%20Regular,,Noto%20Sans%20Bold/0-255.pbf')).statusCode, 400, 'an empty font name');
  });

  test('without a key glyphs are refused with 403', async () => {
    const response = await server.server.public.inject({ method: 'GET', url: '/fonts/Noto%20Sans%20Regular/0-255.pbf' });
    assert.equal(response.statusCode, 403);
  });
});

test('parseGlyphRange takes the start of the 256 ranges up to 65280-65535', () => {
  assert.equal(parseGlyphRange('0-255'), 0);
  assert.equal(parseGlyphRange('65280-65535'), 65280);
  assert.throws(() => parseGlyphRange('65536-65791'), /Invalid glyph range/);
  assert.equal(parseGlyphRange('256-511'), 256);
  assert.throws(() => parseGlyphRange('256-510'), /Invalid glyph range/);
});

test('parseFontstack trims names and refuses empty ones and too many', () => {
  assert.deepEqual(parseFontstack(' Open Sans Bold , Noto Sans Regular'), ['Open Sans Bold', 'Noto Sans Regular']);
  assert.throws(() => parseFontstack(''), /Invalid fontstack/);
  assert.throws(() => parseFontstack(Array(9).fill('A').join(',')), /Invalid fontstack/);
});
