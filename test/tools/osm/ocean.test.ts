import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import type { Polygon, Position } from 'geojson';
import { inSea, type Region } from '../../../src/tools/gshhg.js';
import { inside, signedArea } from '../../../src/tools/ring.js';
import { cellsOf, edgePosition, seaOfCell, seaPolygons, withoutEdges } from '../../../src/tools/osm/ocean.js';
import { requirePeers } from '../../peers.js';

function inPolygons(polygons: readonly Polygon[], point: Position): boolean {
  return polygons.some(({ coordinates: [outer, ...holes] }) => inside(point, outer!) && !holes.some((hole) => inside(point, hole)));
}

const cell: Region = [0, 0, 1, 1];

test('a coast line across a cell leaves the sea on its left, closed along the edge', () => {
  // From the south edge to the north edge at x = 0.5, going north: the sea (left) is the west half.
  const [sea] = seaOfCell(cell, [[[0.5, 0], [0.5, 1]]], () => assert.fail('no corner test when a line crosses'));
  assert.ok(sea);
  assert.ok(inPolygons([sea], [0.25, 0.5]));
  assert.ok(!inPolygons([sea], [0.75, 0.5]));
  assert.ok(signedArea(sea.coordinates[0]!) > 0, 'the sea is traced counter-clockwise');
});

test('an island ring is a hole in the sea; a cell without coast is sea or land as its corner is', () => {
  const island = [[0.4, 0.4], [0.4, 0.6], [0.6, 0.6], [0.6, 0.4], [0.4, 0.4]];
  assert.ok(signedArea(island) < 0);
  const polygons = seaOfCell(cell, [island], () => true);
  assert.equal(polygons.length, 1);
  assert.equal(polygons[0]!.coordinates.length, 2);
  assert.ok(inPolygons(polygons, [0.1, 0.1]));
  assert.ok(!inPolygons(polygons, [0.5, 0.5]));
  assert.deepEqual(seaOfCell(cell, [], () => false), []);
});

test('two bays: each coast line closes with the edge to the next one', () => {
  // Two headlands from the south edge: sea west of the first, between them none, east of the second.
  const lines = [
    [[0.3, 0], [0.3, 0.5], [0.35, 0.5], [0.35, 0]],
    [[0.7, 0], [0.7, 0.5], [0.75, 0.5], [0.75, 0]],
  ];
  const polygons = seaOfCell(cell, lines, () => true);
  assert.ok(inPolygons(polygons, [0.5, 0.2]), 'between the headlands');
  assert.ok(inPolygons(polygons, [0.1, 0.9]));
  assert.ok(!inPolygons(polygons, [0.32, 0.2]), 'on a headland');
  assert.ok(!inPolygons(polygons, [0.72, 0.2]));
});

test('stretches along the cell edge are not coast', () => {
  const pieces = withoutEdges(cell, [[0.5, 1], [0.5, 0], [1, 0], [1, 0.5], [0.7, 0.5]]);
  assert.deepEqual(pieces, [[[0.5, 1], [0.5, 0]], [[1, 0.5], [0.7, 0.5]]]);
  assert.equal(edgePosition(cell, [1, 0.5]), 1.5);
});

test('cells cover a region, cut to it', () => {
  const cells = cellsOf([-122.6, 37.6, -121.9, 38.1]);
  assert.equal(cells.length, 6);
  assert.deepEqual(cells[0], [-122.6, 37.6, -122.5, 38]);
  assert.deepEqual(cells.at(-1), [-122, 38, -121.9, 38.1]);
});

test('the sea of San Francisco Bay agrees with gmt select point by point', async () => {
  requirePeers('gshhgFull');
  const region: Region = [-122.6, 37.6, -122.0, 38.0];
  const polygons = await seaPolygons(region);
  const points: Position[] = [];
  for (let i = 0; i < 30; i++) for (let j = 0; j < 30; j++) points.push([-122.6 + (i + 0.5) * 0.02, 37.6 + (j + 0.5) * (0.4 / 30)]);
  const reference = await inSea(points, 'f', region);
  const agree = points.filter((point, i) => inPolygons(polygons, point) === reference[i]).length;
  const seaPoints = reference.filter(Boolean).length;
  assert.ok(seaPoints > 200 && seaPoints < 700, `a region of land and sea (${seaPoints} sea points)`);
  assert.ok(agree >= 0.995 * points.length, `${agree} of ${points.length} points agree with gmt select`);
});

before(() => requirePeers('gshhgFull'));
