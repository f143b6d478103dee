import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assembleLines, assembleRings, lakePolygons, parseDump, riverProperties, type Piece } from '../../src/tools/gshhg.js';

// A square lake from (0,0) to (2,2), cut by bins of 1 degree into four pieces as `gmt coast -M` prints them.
const binnedLake = `> Shore Bin # 1, Level 2
0\t1
0\t0
1\t0
> Shore Bin # 2, Level 2
1\t0
2\t0
2\t1
> Shore Bin # 4, Level 2
2\t1
2\t2
1\t2
> Shore Bin # 3, Level 2
1\t2
0\t2
0\t1
> Shore Bin # 3, Level 3
0.5\t0.5
0.8\t0.5
0.8\t0.8
0.5\t0.5
`;

test('the dump parses into pieces with their level', () => {
  const pieces = parseDump(binnedLake);
  assert.equal(pieces.length, 5);
  assert.deepEqual(pieces.map((p) => p.level), [2, 2, 2, 2, 3]);
  assert.deepEqual(pieces[0]!.points, [[0, 1], [0, 0], [1, 0]]);
});

test('pieces cut at bin edges are chained back into closed rings', () => {
  const rings = assembleRings(parseDump(binnedLake));
  const lake = rings.find((r) => r.level === 2)!;
  assert.equal(rings.length, 2);
  assert.deepEqual(lake.points[0], lake.points.at(-1));
  // Every corner once, no joint twice: 8 distinct points and the closing one.
  assert.equal(lake.points.length, 9);
  assert.equal(new Set(lake.points.slice(1).map(String)).size, 8);
});

test('an island in a lake becomes a hole of that lake', () => {
  const [lake, ...others] = lakePolygons(assembleRings(parseDump(binnedLake)));
  assert.equal(others.length, 0);
  assert.equal(lake!.coordinates.length, 2);
  assert.deepEqual(lake!.coordinates[1]![0], [0.5, 0.5]);
});

test('a lake cut by the antimeridian is closed along it', () => {
  const half: Piece = { level: 2, points: [[180, 65.3], [179.5, 65.35], [180, 65.4]] };
  const [ring] = assembleRings([half]);
  assert.deepEqual(ring!.points, [[180, 65.3], [179.5, 65.35], [180, 65.4], [180, 65.3]]);
});

test('river pieces that continue one another are joined, but not through a confluence', () => {
  const pieces: Piece[] = [
    { level: 1, points: [[0, 0], [1, 0]] },
    { level: 1, points: [[1, 0], [2, 0]] },
    // A tributary and the main river both end at (3, 0), where the next piece starts.
    { level: 1, points: [[2, 0], [3, 0]] },
    { level: 1, points: [[3, 1], [3, 0]] },
    { level: 1, points: [[3, 0], [4, 0]] },
  ];
  const lines = assembleLines(pieces).map((l) => l.points);
  assert.equal(lines.length, 3);
  assert.ok(lines.some((l) => l.length === 4 && l[0]![0] === 0 && l[3]![0] === 3));
});

test('river levels map to classes and ranks; river banks and irrigation ditches have no rank of their own', () => {
  assert.equal(riverProperties(0), null);
  assert.deepEqual(riverProperties(1), { class: 'river', rank: 1 });
  assert.deepEqual(riverProperties(4), { class: 'river', rank: 4 });
  assert.deepEqual(riverProperties(5), { class: 'intermittent', rank: 1 });
  assert.deepEqual(riverProperties(9), { class: 'canal', rank: 2 });
});
