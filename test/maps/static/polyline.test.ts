import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { decodePolyline, encodePolyline, PolylineError } from '../../../src/maps/static/polyline.js';

const GOOGLE_EXAMPLE = '_p~iF~ps|U_ulLnnqC_mqNvxq`@';
const GOOGLE_POINTS: [number, number][] = [[38.5, -120.2], [40.7, -120.95], [43.252, -126.453]];

test("decoding Google's documented example gives its three lat/lon points", () => {
  assert.deepEqual(decodePolyline(GOOGLE_EXAMPLE), GOOGLE_POINTS);
});

test("encoding Google's documented points gives its example", () => {
  assert.equal(encodePolyline(GOOGLE_POINTS), GOOGLE_EXAMPLE);
});

test('an empty polyline has no points', () => {
  assert.deepEqual(decodePolyline(''), []);
});

test('malformed polylines are a PolylineError', () => {
  for (const text of ['_p~iF~ps|U_', '_p~iF', ' ', '_p~iF~ps|U\u00e9', '~~~~~~~~~~~~~?']) {
    assert.throws(() => decodePolyline(text), PolylineError, JSON.stringify(text));
  }
});

test('encode then decode returns the points rounded to 1e-5', () => {
  const point = fc.tuple(fc.double({ min: -90, max: 90, noNaN: true }), fc.double({ min: -180, max: 180, noNaN: true }));
  fc.assert(fc.property(fc.array(point, { maxLength: 20 }), (points) => {
    const decoded = decodePolyline(encodePolyline(points));
    assert.equal(decoded.length, points.length);
    decoded.forEach(([lat, lon], i) => {
      assert.ok(Math.abs(lat - points[i]![0]) <= 5.01e-6 && Math.abs(lon - points[i]![1]) <= 5.01e-6);
    });
  }));
});

test('any string decodes to points or a PolylineError, nothing else', () => {
  fc.assert(fc.property(fc.string({ maxLength: 60 }), (text) => {
    try {
      for (const [lat, lon] of decodePolyline(text)) assert.ok(Number.isFinite(lat) && Number.isFinite(lon));
    } catch (error) {
      assert.ok(error instanceof PolylineError);
    }
  }));
});
