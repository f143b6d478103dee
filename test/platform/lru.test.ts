import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lru } from '../../src/platform/lru.js';

test('a full cache drops its least recently used entry', () => {
  const lru = new Lru<string, number>(2);
  lru.set('a', 1);
  lru.set('b', 2);
  assert.equal(lru.get('a'), 1);
  lru.set('c', 3);
  assert.equal(lru.get('b'), undefined, 'b was the least recently used');
  assert.equal(lru.get('a'), 1);
  assert.equal(lru.get('c'), 3);
});
