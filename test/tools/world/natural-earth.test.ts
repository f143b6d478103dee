import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { colorGraph, countryColors, planarRing, readNaturalEarth, unwrap, withoutCuts } from '../../../src/tools/world/natural-earth.js';

test('a ring across the antimeridian gets continuous longitudes', () => {
  assert.deepEqual(unwrap([[179, 0], [-179, 0], [-179, 1], [179, 1], [179, 0]]), [[179, 0], [181, 0], [181, 1], [179, 1], [179, 0]]);
});

test('a ring round the south pole is closed along it', () => {
  const ring = planarRing([[-180, -70], [0, -65], [180, -70], [-180, -70]]);
  assert.deepEqual(ring, [[-180, -70], [0, -65], [180, -70], [180, -70], [180, -90], [-180, -90], [-180, -70]]);
  assert.equal(planarRing([[-180, -89.999], [178, -89.999], [-180, -89.999]]), null);
});

test('cuts along the antimeridian and past the pole are not coastline', () => {
  const lines = withoutCuts([{ type: 'LineString', coordinates: [[170, 60], [180, 61], [180, 65], [175, 66]] }]);
  assert.deepEqual(lines.map((l) => l.coordinates), [[[170, 60], [180, 61]], [[180, 65], [175, 66]]]);
  assert.deepEqual(withoutCuts([{ type: 'LineString', coordinates: [[0, -86], [10, -86]] }]), []);
  // A shore carried past 180° to keep its longitudes continuous is a shore all the same.
  const past = [[179, 66], [181, 66], [182, 65]];
  assert.deepEqual(withoutCuts([{ type: 'LineString', coordinates: past }]).map((l) => l.coordinates), [past]);
});

test('neighbours never share a colour, whatever the graph', () => {
  const graph = fc.integer({ min: 1, max: 30 }).chain((n) =>
    fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 80 }).map((edges) => {
      const adjacency = Array.from({ length: n }, () => [] as number[]);
      for (const [a, b] of edges) if (a !== b && !adjacency[a]!.includes(b)) adjacency[a]!.push(b), adjacency[b]!.push(a);
      return adjacency;
    }),
  );
  fc.assert(
    fc.property(graph, (adjacency) => {
      const color = colorGraph(adjacency.map((_, i) => `c${i}`), adjacency, 5);
      adjacency.forEach((near, i) => near.forEach((j) => assert.notEqual(color[i], color[j])));
    }),
  );
});

test('the countries of the world get five tints, neighbours apart, at every scale', () => {
  const colors = countryColors(5);
  assert.deepEqual(new Set(colors.values()), new Set([0, 1, 2, 3, 4]));
  for (const [a, b] of [['France', 'Germany'], ['Spain', 'Portugal'], ['United States of America', 'Canada'], ['China', 'India']]) {
    assert.notEqual(colors.get(a), colors.get(b), `${a} / ${b}`);
  }
  for (const country of readNaturalEarth('110m').countries) assert.ok(colors.has(country.properties.name), country.properties.name);
});

test('Natural Earth reads into countries, land, borders and coastlines, within longitudes a tiler wraps', () => {
  const world = readNaturalEarth('110m');
  assert.equal(world.countries.length, 177);
  assert.ok(world.land.length > 0 && world.borders.length > 100 && world.coastline.length > 100);
  for (const line of [...world.borders, ...world.coastline]) {
    for (let i = 1; i < line.coordinates.length; i++) {
      assert.ok(Math.abs(line.coordinates[i]![0]! - line.coordinates[i - 1]![0]!) < 180);
    }
  }
});
