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

test('with weigh and maxWeight, the least recently used go once the values weigh too much together', () => {
  const evicted: string[] = [];
  const lru = new Lru<string, Uint8Array>(100, { weigh: (bytes) => bytes.byteLength, maxWeight: 10, onEvict: (_value, key) => evicted.push(key) });
  lru.set('a', new Uint8Array(4));
  lru.set('b', new Uint8Array(4));
  lru.get('a');
  assert.equal(lru.weight, 8);
  lru.set('c', new Uint8Array(5));
  assert.deepEqual(evicted, ['b'], 'b was the least recently used, and dropping it was enough');
  assert.equal(lru.weight, 9);
  lru.set('d', new Uint8Array(10));
  assert.deepEqual(evicted, ['b', 'a', 'c']);
  assert.equal(lru.size, 1);
  assert.equal(lru.weight, 10);
});

test('the entry count still bounds a weighted cache', () => {
  const lru = new Lru<string, number>(2, { weigh: () => 1, maxWeight: 100 });
  lru.set('a', 1);
  lru.set('b', 2);
  lru.set('c', 3);
  assert.equal(lru.size, 2);
  assert.equal(lru.get('a'), undefined);
});

test('a value heavier than maxWeight alone is not kept, and nothing else is dropped for it', () => {
  const evicted: string[] = [];
  const lru = new Lru<string, Uint8Array>(10, { weigh: (bytes) => bytes.byteLength, maxWeight: 10, onEvict: (_value, key) => evicted.push(key) });
  lru.set('small', new Uint8Array(3));
  const large = new Uint8Array(11);
  assert.equal(lru.set('large', large), large);
  assert.equal(lru.get('large'), undefined);
  assert.equal(lru.get('small')?.byteLength, 3);
  assert.deepEqual(evicted, []);
  assert.equal(lru.weight, 3);
});

test('replacing, deleting, expiring and clearing take their weight off', () => {
  let now = 0;
  const lru = new Lru<string, Uint8Array>(10, { weigh: (bytes) => bytes.byteLength, maxWeight: 100, ttlMs: 10, now: () => now });
  lru.set('a', new Uint8Array(30));
  lru.set('a', new Uint8Array(20));
  assert.equal(lru.weight, 20, 'the replaced value no longer counts');
  lru.set('b', new Uint8Array(5));
  lru.delete('b');
  assert.equal(lru.weight, 20);
  now = 10;
  assert.equal(lru.get('a'), undefined);
  assert.equal(lru.weight, 0, 'an expired entry no longer counts');
  lru.set('c', new Uint8Array(7));
  lru.clear();
  assert.equal(lru.weight, 0);
  lru.set('d', new Uint8Array(100));
  assert.equal(lru.size, 1, 'the whole bound is free again');
});
