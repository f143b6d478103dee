import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../../src/platform/errors.js';
import { MAX_LATITUDE } from '../../../src/platform/web-mercator.js';
import { project, unproject } from '../../../src/render/view/viewport.js';
import { autoViewport, checkViewport, fitBounds } from '../../../src/maps/static/fit.js';
import { SINGLE_POINT_ZOOM } from '../../../src/maps/static/fit-defaults.js';

const near = (actual: number, expected: number, tolerance = 1e-9): void => {
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected}`);
};
const outOfBounds = (error: unknown): boolean => error instanceof ApiError && error.statusCode === 400 && error.message.startsWith('Out of bounds: ');

test('at zoom 0 the world is 512 px: lon -180 at x 0, 180 at x 512, the equator at y 256', () => {
  assert.deepEqual(project(-180, 0, 0), [0, 256]);
  assert.equal(project(180, 0, 0)[0], 512);
  near(project(0, MAX_LATITUDE, 0)[1], 0, 1e-9);
  near(project(0, -MAX_LATITUDE, 0)[1], 512, 1e-9);
  assert.deepEqual(project(-180, 0, 3), [0, 2048]);
});

test('project agrees with the atanh form of Mercator and unproject inverts it', () => {
  for (const [lon, lat, zoom] of [[8.5, 47.3, 12], [-122.4, 37.8, 5.5], [151.2, -33.9, 0]] as const) {
    const size = 512 * 2 ** zoom;
    const [x, y] = project(lon, lat, zoom);
    near(x, ((lon + 180) / 360) * size, 1e-6);
    near(y, (0.5 - Math.atanh(Math.sin((lat * Math.PI) / 180)) / (2 * Math.PI)) * size, 1e-6);
    const [backLon, backLat] = unproject(x, y, zoom);
    near(backLon, lon, 1e-9);
    near(backLat, lat, 1e-9);
  }
});

test('the whole world fits 512x512 at zoom 0 once latitudes are capped to the Mercator square', () => {
  const view = fitBounds([-180, -90, 180, 90], 512, 512, 0);
  near(view.zoom, 0, 1e-9);
  near(view.center[0], 0);
  near(view.center[1], 0);
  near(fitBounds([-180, -MAX_LATITUDE, 180, MAX_LATITUDE], 1024, 1024, 0).zoom, 1, 1e-9);
});

test('padding shrinks the usable image on each side', () => {
  near(fitBounds([-180, -90, 180, 90], 640, 640, 0.1).zoom, 0, 1e-9);
  near(fitBounds([-180, -90, 180, 90], 2560, 2560, 0.1).zoom, 2, 1e-9);
});

test('bounds are centred on their midpoint in Web Mercator, not in degrees', () => {
  const view = fitBounds([0, 0, 10, 60], 512, 512, 0);
  const [, y0] = project(0, 60, 0);
  const [, y1] = project(0, 0, 0);
  near(view.center[0], 5);
  near(project(0, view.center[1], 0)[1], (y0 + y1) / 2, 1e-9);
  assert.ok(view.center[1] > 30);
});

test('bounds across the antimeridian (west > east) are centred on it', () => {
  const view = fitBounds([170, -10, -170, 10], 512, 4096, 0);
  near(Math.abs(view.center[0]), 180);
  near(view.center[1], 0);
  near(view.zoom, Math.log2(18), 1e-9);
});

test('zoom is capped at 22 and floored at 0', () => {
  assert.equal(fitBounds([8, 47, 8.000001, 47.000001], 512, 512, 0).zoom, 22);
  assert.equal(fitBounds([8, 47, 8, 47], 512, 512, 0).zoom, 22);
  assert.equal(fitBounds([-180, -90, 180, 90], 10, 10, 0).zoom, 0);
});

test('bounds outside the globe or upside down are out of bounds', () => {
  for (const bounds of [[-181, 0, 0, 1], [0, -91, 1, 1], [0, 10, 1, 5], [0, 0, 1, Number.NaN]] as const) {
    assert.throws(() => fitBounds([...bounds], 512, 512, 0), outOfBounds);
  }
});

test('a client viewport must have |lat| <= 85.0511, |lon| <= 180 and zoom 0..22', () => {
  checkViewport([180, 85.0511], 22);
  checkViewport([-180, -85.0511], 0);
  for (const [lon, lat, zoom] of [[0, 85.06, 1], [180.1, 0, 1], [0, 0, 22.01], [0, 0, -0.5], [Number.NaN, 0, 1]] as const) {
    assert.throws(() => checkViewport([lon, lat], zoom), outOfBounds);
  }
});

test('auto-fit of a single point, or identical points, uses the street-level default zoom', () => {
  const one = autoViewport({ paths: [], markers: [[8.5, 47.3]] }, 300, 200, 0.1, false);
  assert.equal(one.zoom, SINGLE_POINT_ZOOM);
  near(one.center[0], 8.5);
  near(one.center[1], 47.3, 1e-9);
  const same = autoViewport({ paths: [{ points: [[1, 2], [1, 2]], shortest: false }], markers: [[1, 2]] }, 300, 200, 0.1, false);
  assert.equal(same.zoom, SINGLE_POINT_ZOOM);
});

test('auto-fit of features equals fitBounds of their bounding box', () => {
  const features = { paths: [{ points: [[5.9, 45.8], [10.5, 47.8]] as [number, number][], shortest: false }], markers: [[7, 46.5]] as [number, number][] };
  assert.deepEqual(autoViewport(features, 800, 600, 0.1, false), fitBounds([5.9, 45.8, 10.5, 47.8], 800, 600, 0.1));
});

test('a shortest path across the antimeridian is fitted around it; otherwise around the world', () => {
  const path = { points: [[170, 0], [-170, 10]] as [number, number][], shortest: true };
  const short = autoViewport({ paths: [path], markers: [] }, 512, 512, 0, false);
  near(Math.abs(short.center[0]), 180);
  assert.ok(short.zoom > 3);
  const long = autoViewport({ paths: [{ ...path, shortest: false }], markers: [] }, 512, 512, 0, false);
  near(long.center[0], 0);
  assert.ok(long.zoom < 1);
  const markers = autoViewport({ paths: [], markers: [[175, 0], [-175, 0], [179, 5]] }, 512, 512, 0, true);
  near(Math.abs(markers.center[0]), 180);
});

test('auto-fit with nothing to fit is a 400', () => {
  assert.throws(() => autoViewport({ paths: [], markers: [] }, 512, 512, 0.1, false), (error) => error instanceof ApiError && error.statusCode === 400);
});

test('out of bounds names the value and its range, after the documented words', () => {
  const message = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return (error as Error).message;
    }
    return 'no error';
  };
  assert.equal(message(() => checkViewport([10, 50], 30)), 'Out of bounds: zoom 30 is above 22');
  assert.equal(message(() => checkViewport([10, 50], -1)), 'Out of bounds: zoom -1 is below 0');
  assert.equal(message(() => checkViewport([10, 95], 3)), 'Out of bounds: latitude 95 is outside -85.0511..85.0511');
  assert.equal(message(() => checkViewport([190, 50], 3)), 'Out of bounds: longitude 190 is outside -180..180');
  assert.equal(message(() => fitBounds([0, 10, 1, 5], 512, 512, 0)), 'Out of bounds: bounds south 10 is above north 5');
  assert.equal(message(() => fitBounds([-181, 0, 0, 1], 512, 512, 0)), 'Out of bounds: bounds longitude -181 is outside -180..180');
});
