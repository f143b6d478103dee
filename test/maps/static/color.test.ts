import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseColor, parseFill, rgba } from '../../../src/maps/static/color.js';

test('hex colours in all four lengths', () => {
  assert.deepEqual(parseColor('#f00'), rgba(255, 0, 0, 1));
  assert.deepEqual(parseColor('#f008'), rgba(255, 0, 0, 0x88 / 255));
  assert.deepEqual(parseColor('#0040FF'), rgba(0, 64, 255, 1));
  assert.deepEqual(parseColor('#0040ff80'), rgba(0, 64, 255, 128 / 255));
});

test('CSS named colours, case-insensitive, including the late additions and transparent', () => {
  assert.deepEqual(parseColor('red'), rgba(255, 0, 0));
  assert.deepEqual(parseColor('RebeccaPurple'), rgba(102, 51, 153));
  assert.deepEqual(parseColor('lightgoldenrodyellow'), rgba(250, 250, 210));
  assert.deepEqual(parseColor('transparent'), rgba(0, 0, 0, 0));
});

test('rgb() and rgba() with numbers or percentages, clamped like CSS', () => {
  assert.deepEqual(parseColor('rgba(0,64,255,0.7)'), rgba(0, 64, 255, 0.7));
  assert.deepEqual(parseColor('rgb( 10 , 20 , 30 )'), rgba(10, 20, 30));
  assert.deepEqual(parseColor('rgb(100%,50%,0%)'), rgba(255, 128, 0));
  assert.deepEqual(parseColor('rgba(255,255,255,40%)'), rgba(255, 255, 255, 0.4));
  assert.deepEqual(parseColor('rgb(300,-5,.5)'), rgba(255, 0, 1));
  assert.deepEqual(parseColor('rgba(1,2,3,7)'), rgba(1, 2, 3, 1));
});

test('anything else is not a colour', () => {
  for (const text of ['', '#', '#12', '#12345', '#ggg', 'notacolour', 'rgb(1,2)', 'rgb(1,2,3,4,5)', 'rgb(1e3,2,3)',
    'hsl(0,0%,0%)', 'constructor', '__proto__', 'toString', 'none', 'false']) {
    assert.equal(parseColor(text), null, text);
  }
});

test('none and false mean no fill; an invalid fill is undefined', () => {
  assert.equal(parseFill('none'), null);
  assert.equal(parseFill('false'), null);
  assert.deepEqual(parseFill('#fff'), rgba(255, 255, 255));
  assert.equal(parseFill('nope'), undefined);
});
