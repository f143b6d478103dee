import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { PageCursors } from '../../src/keys/cursor.js';

const cursors = new PageCursors(randomBytes(32));
const account = randomUUID();
const positions = fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }).map(String);

test('cursors are base64, open for their account, and accept base64url with or without padding', () => {
  fc.assert(
    fc.property(positions, (position) => {
      const cursor = cursors.seal(account, position);
      assert.match(cursor, /^[A-Za-z0-9+/]+={0,2}$/);
      assert.equal(cursors.open(account, cursor), position);
      assert.equal(cursors.open(account, cursor.replaceAll('+', ' ')), position);
      const url = cursor.replaceAll('+', '-').replaceAll('/', '_');
      assert.equal(cursors.open(account, url), position);
      assert.equal(cursors.open(account, url.replace(/=+$/, '')), position);
    }),
  );
});

test('a cursor shows nothing of its position: one length for every position, never the same twice', () => {
  const lengths = new Set<number>();
  fc.assert(
    fc.property(positions, (position) => {
      const cursor = cursors.seal(account, position);
      lengths.add(cursor.length);
      assert.notEqual(cursors.seal(account, position), cursor);
      const binary = Buffer.alloc(8);
      binary.writeBigUInt64BE(BigInt(position));
      assert.ok(!Buffer.from(cursor, 'base64').includes(binary), 'position in clear');
    }),
  );
  assert.equal(lengths.size, 1);
  // Long enough that random bytes never hold its digits by chance.
  fc.assert(
    fc.property(fc.bigInt({ min: 10n ** 12n, max: 2n ** 63n - 1n }).map(String), (position) => {
      assert.ok(!Buffer.from(cursors.seal(account, position), 'base64').includes(Buffer.from(position)), 'position in clear');
    }),
  );
});

test("another account's cursor, another master key's and an altered one are refused", () => {
  const cursor = cursors.seal(account, '42');
  assert.equal(cursors.open(randomUUID(), cursor), null, 'another account');
  assert.equal(new PageCursors(randomBytes(32)).open(account, cursor), null, 'another master key');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const body = cursor.replace(/=+$/, '');
  for (let i = 0; i < body.length; i++) {
    for (const replacement of [alphabet[(alphabet.indexOf(body[i]!) + 1) % 64]!, alphabet[(alphabet.indexOf(body[i]!) + 63) % 64]!]) {
      const altered = body.slice(0, i) + replacement + body.slice(i + 1);
      assert.equal(cursors.open(account, altered), null, `character ${i} changed`);
    }
  }
  assert.equal(cursors.open(account, body.slice(0, -4)), null, 'shortened');
  assert.equal(cursors.open(account, body + 'AAAA'), null, 'lengthened');
});

test('anything else is not a cursor', () => {
  const legacy = Buffer.from('v1:5').toString('base64');
  for (const text of ['', '!!', '====', legacy, 'x'.repeat(52), Buffer.alloc(37).toString('base64')]) {
    assert.equal(cursors.open(account, text), null, text);
  }
  fc.assert(fc.property(fc.string(), (text) => assert.equal(cursors.open(account, text), null)));
  fc.assert(fc.property(fc.uint8Array({ minLength: 37, maxLength: 37 }), (bytes) => assert.equal(cursors.open(account, Buffer.from(bytes).toString('base64')), null)));
});
