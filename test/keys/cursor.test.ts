import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodeCursor, encodeCursor } from '../../src/keys/cursor.js';

test('cursors are base64 and round-trip', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 999_999_999_999_999_999n }), (seq) => {
      const cursor = encodeCursor(String(seq));
      assert.match(cursor, /^[A-Za-z0-9+/]+={0,2}$/);
      assert.equal(decodeCursor(cursor), String(seq));
      assert.equal(decodeCursor(cursor.replaceAll('+', ' ')), String(seq));
      assert.equal(decodeCursor(cursor.replaceAll('+', '-').replaceAll('/', '_')), String(seq));
    }),
  );
});

test('anything else is not a cursor', () => {
  for (const text of ['', '!!', Buffer.from('v1:0').toString('base64'), Buffer.from('v2:5').toString('base64'), Buffer.from('v1:12a').toString('base64')]) {
    assert.equal(decodeCursor(text), null, text);
  }
  fc.assert(
    fc.property(fc.string(), (text) => {
      const seq = decodeCursor(text);
      if (seq !== null) assert.match(seq, /^[1-9][0-9]*$/);
    }),
  );
});
