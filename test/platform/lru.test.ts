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

test('onEvict hears of the entry a full cache drops, not of deletes', () => {
  const evicted: [string, number][] = [];
  const lru = new Lru<string, number>(2, { onEvict: (value, key) => evicted.push([key, value]) });
  lru.set('a', 1);
  lru.set('b', 2);
  lru.delete('b');
  lru.set('c', 3);
  assert.deepEqual(evicted, []);
  lru.set('d', 4);
  assert.deepEqual(evicted, [['a', 1]]);
  assert.equal(lru.size, 2);
});

test('entries expire after their time to live, the cache\'s or their own', () => {
  let now = 1000;
  const evicted: string[] = [];
  const lru = new Lru<string, number>(10, { ttlMs: 100, now: () => now, onEvict: (_value, key) => evicted.push(key) });
  lru.set('short', 1, 10);
  lru.set('default', 2);
  now += 10;
  assert.equal(lru.get('short'), undefined, 'expired at its own time to live');
  assert.equal(lru.get('default'), 2);
  now += 89;
  assert.equal(lru.get('default'), 2);
  now += 1;
  assert.equal(lru.get('default'), undefined);
  assert.deepEqual(evicted, ['short', 'default']);
  assert.equal(lru.size, 0);
});

test('a cache of capacity 0 keeps nothing', () => {
  const lru = new Lru<string, number>(0);
  assert.equal(lru.set('a', 1), 1);
  assert.equal(lru.get('a'), undefined);
});
