import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DefinitionError, MAP_ID, parseDefinition } from '../../src/maps/definition.js';

test('a definition needs a style, path or inline, and may set formats, attribution, zooms, name, bounds, centre and schema', () => {
  assert.deepEqual(parseDefinition({ style: 'style.json' }), { style: 'style.json' });
  const full = {
    style: { version: 8, sources: {}, layers: [] },
    formats: ['png', 'webp'],
    attribution: '© Me',
    minzoom: 2,
    maxzoom: 16.5,
    name: 'Mine',
    bounds: [-122.3143312, 37.8040142, -122.290784, 37.8175832],
    center: [-122.3, 37.81, 14],
    schema: 'openmaptiles',
  };
  assert.deepEqual(parseDefinition(full), full);
});

test('a bad definition is refused with a message naming the field', () => {
  const cases: [unknown, RegExp][] = [
    [{}, /must have required property 'style'/],
    [{ style: 3 }, /"style" must be string,object/],
    [{ style: 's.json', formats: ['png', 'gif'] }, /"formats.1" must be one of png, jpg, webp/],
    [{ style: 's.json', formats: [] }, /"formats" must NOT have fewer than 1 items/],
    [{ style: 's.json', formats: ['png', 'png'] }, /"formats" must NOT have duplicate items/],
    [{ style: 's.json', maxzoom: 25 }, /"maxzoom" must be <= 24/],
    [{ style: 's.json', minzoom: 10, maxzoom: 5 }, /"minzoom" \(10\) is above "maxzoom" \(5\)/],
    [{ style: 's.json', colour: 'red' }, /unknown field "colour"/],
    [{ style: 's.json', bounds: [0, 0, 1] }, /"bounds" must NOT have fewer than 4 items/],
    [{ style: 's.json', bounds: [0, 91, 1, 92] }, /"bounds.1" must be <= 90/],
    [{ style: 's.json', bounds: [0, 10, 1, 5] }, /"bounds": south \(10\) is above north \(5\)/],
    [{ style: 's.json', center: [200, 0, 1] }, /"center.0" must be <= 180/],
    [{ style: 's.json', schema: 'mapbox' }, /"schema" must be one of openmaptiles, protomaps, raster/],
    [[], /must be object/],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => parseDefinition(value), (error: Error) => error instanceof DefinitionError && message.test(error.message), JSON.stringify(value));
  }
});

test('map ids are 1 to 64 letters, digits, _ and -', () => {
  for (const good of ['osm', 'Bright_2', 'a-b', 'x'.repeat(64)]) assert.ok(MAP_ID.test(good), good);
  for (const bad of ['', 'x'.repeat(65), 'a.b', 'a b', '../x', 'é']) assert.ok(!MAP_ID.test(bad), bad);
});
