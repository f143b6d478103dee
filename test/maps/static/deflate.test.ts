/**
 * libdeflate's zlib streams, read back by Node's zlib (another implementation of RFC 1950): the
 * same bytes at every level, for empty, repetitive, random and large inputs, one call after another.
 */

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { inflateSync } from 'node:zlib';
import { deflate } from '../../../src/maps/static/deflate.js';

const inputs: [string, Buffer][] = [
  ['empty', Buffer.alloc(0)],
  ['one byte', Buffer.from([42])],
  ['repetitive', Buffer.from('Hauptstrasse 12, Hauptstrasse 14, '.repeat(3000))],
  ['random', randomBytes(70_000)],
  // Larger than any earlier one, so that the output buffer grows between calls.
  ['a 512x512 RGB image of runs', Buffer.from(Uint8Array.from({ length: 512 * 1537 }, (_, i) => (i >> 9) % 7))],
];

test('every level writes a zlib stream Node inflates to the input', () => {
  for (const level of [0, 1, 2, 6, 12]) {
    for (const [name, input] of inputs) {
      const stream = Buffer.from(deflate(input, level));
      assert.ok(inflateSync(stream).equals(input), `${name} at level ${level}`);
    }
  }
});

test('what a call returns holds until the next call, which may reuse its memory', () => {
  const first = Buffer.from(deflate(inputs[2]![1], 1));
  const second = deflate(inputs[4]![1], 1);
  assert.ok(inflateSync(first).equals(inputs[2]![1]));
  assert.ok(inflateSync(second).equals(inputs[4]![1]));
});

test('compression levels libdeflate does not have are a RangeError', () => {
  for (const level of [-1, 13, 1.5, Number.NaN]) assert.throws(() => deflate(Buffer.from('x'), level), RangeError, String(level));
});

test('repetitive input shrinks, and higher levels give no more bytes than level 1 on it', () => {
  const input = inputs[4]![1];
  const one = deflate(input, 1).length;
  assert.ok(one < input.length / 50, `${one} bytes from ${input.length}`);
  assert.ok(deflate(input, 9).length <= one);
});
