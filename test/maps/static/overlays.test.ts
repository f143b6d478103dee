import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { rgba } from '../../../src/maps/static/color.js';
import { ApiError } from '../../../src/platform/errors.js';
import {
  DEFAULT_CLOSED_FILL, DEFAULT_STROKE, MAX_MARKER_SCALE, MAX_PATH_WIDTH, ONE_POINT_PATH, parseMarkers, parsePath,
} from '../../../src/maps/static/overlays.js';
import { rejects } from './rejects.js';

// The patterns as section 4.2 of the spec writes them, anchored; markers entries repeat with `*`
// instead of `+`, as the spec's prose (one or more entries) says.
const SPEC_PATH = /^(?:((fill|stroke|width|shortest)\:[^\|]+\|)*((enc:.+)|((-?\d+\.?\d*,-?\d+\.?\d*\|)+(-?\d+\.?\d*,-?\d+\.?\d*))))$/;
const SPEC_MARKERS = /^(?:((icon|anchor|scale)\:[^\|]+\|)*((-?\d+\.?\d*,-?\d+\.?\d*(,[^\|]+)?\|)*(-?\d+\.?\d*,-?\d+\.?\d*(,[^\|]+)?)))$/;


test('an open path gets the default stroke and width and no fill', () => {
  assert.deepEqual(parsePath('8.5,47.3|9.1,47.5'), {
    fill: null, stroke: DEFAULT_STROKE, width: 1, shortest: false, points: [[8.5, 47.3], [9.1, 47.5]], closed: false,
  });
  assert.deepEqual(DEFAULT_STROKE, rgba(0, 64, 255, 0.7));
});

test('a closed path (first point equals last) is filled with the default fill', () => {
  const path = parsePath('0,0|1,0|1,1|0,0');
  assert.equal(path.closed, true);
  assert.deepEqual(path.fill, DEFAULT_CLOSED_FILL);
  assert.deepEqual(DEFAULT_CLOSED_FILL, rgba(255, 255, 255, 0.4));
  assert.equal(parsePath('fill:none|0,0|1,0|1,1|0,0').fill, null);
  assert.equal(parsePath('fill:false|0,0|1,0|1,1|0,0').fill, null);
});

test('path options override the defaults; the last of a repeated option wins', () => {
  const path = parsePath('fill:#f00|stroke:rgba(1,2,3,0.5)|width:3.5|shortest:true|width:4|0,0|1,1');
  assert.deepEqual(path.fill, rgba(255, 0, 0));
  assert.deepEqual(path.stroke, rgba(1, 2, 3, 0.5));
  assert.equal(path.width, 4);
  assert.equal(path.shortest, true);
});

test('deprecated defaults style every path that does not set its own', () => {
  const defaults = { fill: rgba(0, 255, 0), stroke: rgba(9, 9, 9), width: 6, shortest: true };
  const open = parsePath('0,0|1,1', defaults);
  assert.deepEqual([open.fill, open.stroke, open.width, open.shortest], [rgba(0, 255, 0), rgba(9, 9, 9), 6, true]);
  const own = parsePath('stroke:red|width:2|shortest:0|0,0|1,1', defaults);
  assert.deepEqual([own.stroke, own.width, own.shortest], [rgba(255, 0, 0), 2, false]);
  assert.equal(parsePath('0,0|1,0|0,0', { fill: null }).fill, null);
});

test('enc: decodes a Google polyline in lat/lon order into lon/lat points, latlng or not', () => {
  const expected = [[-120.2, 38.5], [-120.95, 40.7], [-126.453, 43.252]];
  assert.deepEqual(parsePath('width:2|enc:_p~iF~ps|U_ulLnnqC_mqNvxq`@').points, expected);
  assert.deepEqual(parsePath('enc:_p~iF~ps|U_ulLnnqC_mqNvxq`@', {}, true).points, expected);
  rejects(() => parsePath('enc:_p~iF'), 400, 'Invalid path');
  rejects(() => parsePath('enc:_p~iF~ps|U'), 400, ONE_POINT_PATH);
});

test('a path of one point says it needs two', () => {
  for (const value of ['1,2', 'stroke:red|1,2', 'width:3|fill:none|-1.5,2.25']) rejects(() => parsePath(value), 400, ONE_POINT_PATH);
  for (const value of ['1,2|', 'color:red|1,2']) rejects(() => parsePath(value), 400, 'Invalid path');
});

test('latlng=true swaps every written pair of paths and markers', () => {
  assert.deepEqual(parsePath('47.3,8.5|47.5,9.1', {}, true).points, [[8.5, 47.3], [9.1, 47.5]]);
  assert.deepEqual(parseMarkers('47.3,8.5,red', true).markers, [{ lon: 8.5, lat: 47.3, color: rgba(255, 0, 0) }]);
});

test('markers get anchor bottom, scale 1 and no icon by default; entries carry an optional colour', () => {
  assert.deepEqual(parseMarkers('8.5,47.3|9,47,rgba(0,0,255,0.5)|-1.5,-2.,#0f0'), {
    icon: null, anchor: 'bottom', scale: 1,
    markers: [
      { lon: 8.5, lat: 47.3, color: null },
      { lon: 9, lat: 47, color: rgba(0, 0, 255, 0.5) },
      { lon: -1.5, lat: -2, color: rgba(0, 255, 0) },
    ],
  });
});

test('marker options: an http(s) icon, nine anchors, a bounded scale', () => {
  const group = parseMarkers('icon:https://example.com/pin.png?a=1|anchor:topleft|scale:2|1,2');
  assert.deepEqual([group.icon, group.anchor, group.scale], ['https://example.com/pin.png?a=1', 'topleft', 2]);
  for (const anchor of ['top', 'left', 'bottom', 'right', 'center', 'topleft', 'bottomleft', 'topright', 'bottomright']) {
    assert.equal(parseMarkers(`anchor:${anchor}|1,2`).anchor, anchor);
  }
  for (const icon of ['javascript:alert(1)', 'file:///etc/passwd', 'data:image/png;base64,AA', 'ftp://x/y', 'not a url']) {
    rejects(() => parseMarkers(`icon:${icon}|1,2`), 400, 'Invalid markers icon');
  }
  rejects(() => parseMarkers('anchor:middle|1,2'), 400, 'Invalid markers anchor');
  rejects(() => parseMarkers('scale:0|1,2'), 400, 'Invalid markers scale');
  rejects(() => parseMarkers(`scale:${MAX_MARKER_SCALE + 0.5}|1,2`), 400, 'Invalid markers scale');
  assert.equal(parseMarkers(`scale:${MAX_MARKER_SCALE}|1,2`).scale, MAX_MARKER_SCALE);
});

test('path option values are checked', () => {
  rejects(() => parsePath('width:0|0,0|1,1'), 400, 'Invalid path width');
  rejects(() => parsePath(`width:${MAX_PATH_WIDTH + 1}|0,0|1,1`), 400, 'Invalid path width');
  rejects(() => parsePath('width:-1|0,0|1,1'), 400, 'Invalid path width');
  rejects(() => parsePath('stroke:none|0,0|1,1'), 400, 'Invalid path stroke');
  rejects(() => parsePath('fill:bogus|0,0|1,1'), 400, 'Invalid path fill');
  rejects(() => parsePath('shortest:yes|0,0|1,1'), 400, 'Invalid path shortest');
  rejects(() => parseMarkers('1,2,notacolour'), 400, 'Invalid markers colour');
});

test('coordinates outside |lon| <= 180, |lat| <= 90 are out of bounds', () => {
  rejects(() => parsePath('181,0|0,0'), 400, 'Out of bounds: longitude 181 is outside -180..180');
  rejects(() => parsePath('0,90.5|0,0'), 400, 'Out of bounds: latitude 90.5 is outside -90..90');
  rejects(() => parsePath('100,0|0,0', {}, true), 400, /^Out of bounds: /);
  rejects(() => parseMarkers(`${'9'.repeat(400)},0`), 400, /^Out of bounds: /);
  rejects(() => parseMarkers('100,0', true), 400, /^Out of bounds: /);
  assert.deepEqual(parsePath('180,90|-180,-90').points, [[180, 90], [-180, -90]]);
});

test('values that do not match the pattern as a whole are rejected', () => {
  for (const value of ['', '1,2', '1,2|', '|1,2|3,4', '1,2|3,4|', 'color:red|1,2|3,4', '1,2;3,4', '1e3,2|3,4', '+1,2|3,4',
    'fill:|1,2|3,4', 'enc:', 'enc:ab\ncd', '1,2|3,4 ', ' 1,2|3,4', 'icon:x|1,2|3,4']) {
    rejects(() => parsePath(value), 400, /^Invalid path/);
  }
  assert.equal(parseMarkers('1,2').markers.length, 1);
  for (const value of ['', '1,2|', 'anchor:top', 'anchor:top|', 'fill:red|1,2', '1,2,|3,4', 'x1,2']) {
    rejects(() => parseMarkers(value), 400, /^Invalid markers/);
  }
});

test("our patterns accept exactly the strings the spec's patterns accept", () => {
  const alphabet = fc.constantFrom(...'0123456789.-,|:abcdefilnorstuwhkp#()'.split(''), 'enc:', 'fill:', 'icon:', 'width:', 'anchor:');
  const text = fc.array(alphabet, { maxLength: 14 }).map((parts) => parts.join(''));
  fc.assert(fc.property(text, (value) => {
    for (const [parse, spec] of [[parsePath, SPEC_PATH], [parseMarkers, SPEC_MARKERS]] as const) {
      let grammarError = false;
      try {
        parse(value);
      } catch (error) {
        assert.ok(error instanceof ApiError);
        grammarError = error.message === 'Invalid path' || error.message === ONE_POINT_PATH || error.message === 'Invalid markers';
      }
      // Our grammar error is exactly the spec's rejection, except an enc: that is not a polyline.
      if (!value.includes('enc:')) assert.equal(grammarError, !spec.test(value), value);
    }
  }), { numRuns: 3000 });
});

/**
 * Near-misses that make a backtracking matcher of the spec's patterns explode, made of `n`
 * repetitions, with their full size and the error each parser rejects them with.
 */
const hostile: { name: string; make: (n: number) => string; size: number; path: string; markers: string }[] = [
  { name: 'pairs without pipes', make: (n) => `${'1111111111,'.repeat(n)}x`, size: 400, path: 'Invalid path', markers: 'Out of bounds: longitude 1111111111 is outside -180..180' },
  { name: 'pairs, then a stray x', make: (n) => `${'1111111111,1111111111|'.repeat(n)}x`, size: 300, path: 'Invalid path', markers: 'Invalid markers' },
  { name: 'options only', make: (n) => 'fill:a|'.repeat(n), size: 1000, path: 'Invalid path', markers: 'Invalid markers' },
  { name: 'a long polyline', make: (n) => `enc:${'~'.repeat(n)}`, size: 5000, path: 'Invalid path', markers: 'Invalid markers' },
  { name: 'a trailing comma run', make: (n) => `${'1.1,1.1,'.repeat(n)}|`, size: 500, path: 'Invalid path', markers: 'Invalid markers' },
  { name: 'a long icon URL', make: (n) => `icon:${'a'.repeat(n)}|1,2`, size: 8000, path: 'Invalid path', markers: 'Invalid markers icon' },
];

/**
 * Milliseconds per character to reject `value` with both parsers: batches of about 16,000
 * characters, the fastest of three.
 */
function costPerCharacter(value: string): number {
  const batch = Math.ceil(16_000 / value.length);
  let fastest = Infinity;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    for (let i = 0; i < batch; i++) {
      for (const parse of [parsePath, parseMarkers]) {
        try {
          parse(value);
        } catch {
          // Rejected: the test checks with what once it knows the parsers are linear.
        }
      }
    }
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest / (batch * value.length);
}

test('hostile strings are rejected with the ApiError of the rule they break, in time linear in their length', () => {
  // First the cost: no absolute bound in milliseconds, but each string's cost per character
  // compared with that of its shorter versions, doubling from one repetition, so that a
  // backtracking blow-up fails at the first size where it shows (a few repetitions) instead of
  // hanging on the full-size strings below. A linear matcher's cost per character falls or stays;
  // 8 times the least seen so far leaves room for noise, and a cost over it is measured twice more
  // before it counts.
  for (const { name, make } of hostile) {
    let least = Infinity;
    for (let n = 1; n <= 4096 && make(n).length <= 9000; n *= 2) {
      const value = make(n);
      let cost = costPerCharacter(value);
      for (let again = 0; again < 2 && cost > 8 * least; again++) cost = Math.min(cost, costPerCharacter(value));
      assert.ok(cost <= 8 * least, `${name}: ${n} repetitions (${value.length} characters) cost ${(cost / least).toFixed(1)} times as much per character as shorter ones`);
      least = Math.min(least, cost);
    }
  }
  // Then the behaviour, at full size.
  for (const { make, size, path, markers } of hostile) {
    rejects(() => parsePath(make(size)), 400, path);
    rejects(() => parseMarkers(make(size)), 400, markers);
  }
  rejects(() => parsePath('__proto__:1|1,2'), 400, 'Invalid path');
  rejects(() => parseMarkers('__proto__:1|1,2'), 400, 'Invalid markers');
});
