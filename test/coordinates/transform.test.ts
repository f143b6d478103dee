import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { crsInfo } from '../../src/coordinates/proj/proj.js';
import { parseCoordinates, parseOperations, PlanCache, TransformError, transformPoints, type XYZ } from '../../src/coordinates/transform.js';
import { requirePeers } from '../peers.js';
import { LAEA_INVERSE_SOURCES, laeaEuropeInverse, PEER_ON_DEBIAN_REGISTRY, SMALLER_AREA_SINCE_PROJ_9_3 } from './peer-differences.js';
import { sameRegistry } from './peer-registry.js';

describe('parsing', () => {
  test('tuples of two or three finite numbers, separated by ";"', () => {
    assert.deepEqual(parseCoordinates('8.5,47.3'), [{ x: 8.5, y: 47.3, z: 0 }]);
    assert.deepEqual(parseCoordinates('-1.5e2,+2,300;.5,-0.25'), [
      { x: -150, y: 2, z: 300 },
      { x: 0.5, y: -0.25, z: 0 },
    ]);
  });

  test('anything else is a TransformError naming the tuple', () => {
    for (const bad of ['', '1', '1,2,3,4', '1,,2', 'a,b', '1,2;', ';1,2', '1,NaN', '1,Infinity', '1,1e400', '0x10,2', '1 2', '1,2;3']) {
      assert.throws(() => parseCoordinates(bad), TransformError, bad);
    }
    assert.throws(() => parseCoordinates(Array(51).fill('1,2').join(';')), /At most 50/);
    assert.equal(parseCoordinates(Array(50).fill('1,2').join(';')).length, 50);
  });

  test('the parser throws nothing but TransformError', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseCoordinates(text);
        } catch (error) {
          assert.ok(error instanceof TransformError);
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('ops are codes separated by "|"', () => {
    assert.deepEqual(parseOperations('1676'), [1676]);
    assert.deepEqual(parseOperations('1676|1753'), [1676, 1753]);
    for (const bad of ['', '|', '1676|', 'abc', '1676,1753', '-1']) assert.throws(() => parseOperations(bad), TransformError, bad);
  });
});

describe('operation selection', () => {
  const cache = new PlanCache();
  const bern = [{ x: 7.4386, y: 46.9511, z: 0 }];

  test('without ops PROJ chooses (auto)', () => {
    assert.equal(transformPoints(cache, bern, 4326, 2056, []).transformer_selection_strategy, 'auto');
  });

  test('a listed operation between the systems or their geodetic bases is used, in either direction (listed)', () => {
    const forward = transformPoints(cache, bern, 4326, 21781, [1753]);
    assert.equal(forward.transformer_selection_strategy, 'listed');
    const exact = transformPoints(cache, bern, 4326, 4149, [1753]);
    assert.equal(exact.transformer_selection_strategy, 'listed');
    const back = transformPoints(cache, exact.results, 4149, 4326, [1753]);
    // A Helmert shift applied in 2D and undone is exact to well under a millimetre, not to the last digit.
    assert.ok(Math.abs(back.results[0]!.x - bern[0]!.x) < 1e-7 && Math.abs(back.results[0]!.y - bern[0]!.y) < 1e-7);
    // EPSG:1753 (CH1903 to WGS 84 (1)) gives a different answer from PROJ's own pick for 21781.
    const auto = transformPoints(cache, bern, 4326, 21781, []);
    assert.ok(Math.abs(auto.results[0]!.x - forward.results[0]!.x) > 0.1);
  });

  test('an operation with Helmert parameters that does not connect the systems patches the side it starts from (towgs84)', () => {
    // EPSG:1753 goes from CH1903 (4149) to WGS 84; EPSG:4149 to EPSG:2056 has no listed link.
    const result = transformPoints(cache, [{ x: 7.44, y: 46.95, z: 0 }], 4149, 2056, [1753]);
    assert.equal(result.transformer_selection_strategy, 'towgs84');
  });

  test('otherwise both systems are bound to WGS 84 (boundcrs)', () => {
    const result = transformPoints(cache, bern, 4326, 21781, [1676]);
    assert.equal(result.transformer_selection_strategy, 'boundcrs');
  });

  test('unknown systems and operations are named in the error', () => {
    assert.throws(() => transformPoints(cache, bern, 4326, 99999999, []), /Unknown CRS EPSG:99999999/);
    assert.throws(() => transformPoints(cache, bern, 123456789, 4326, []), /Unknown CRS EPSG:123456789/);
    assert.throws(() => transformPoints(cache, bern, 4326, 2056, [99999]), /Unknown operation EPSG:99999/);
    // PROJ's own cause, not "Unknown CRS": the CRS exists, PROJ cannot do its projection method.
    assert.throws(
      () => transformPoints(cache, bern, 4326, 2299, []),
      (error: Error) => error instanceof TransformError && /Unsupported conversion method: Lambert Conic Conformal \(West Orientated\)/.test(error.message),
    );
  });

  test('points PROJ cannot transform fail the request with their positions', () => {
    assert.throws(
      () => transformPoints(cache, [{ x: 0, y: 0, z: 0 }, { x: 0, y: 95, z: 0 }, { x: 0, y: -100, z: 0 }], 4326, 3857, []),
      (error: Error) => error instanceof TransformError && /tuples 2, 3 cannot be transformed from EPSG:4326 to EPSG:3857: webmerc: Invalid latitude$/.test(error.message),
    );
  });
});

/**
 * The peer: PROJ's own cs2cs, on the same points. cs2cs reads and writes coordinates in each
 * CRS's axis order; Meridian always in GIS order, so the harness swaps where a CRS is north-first.
 */
const northFirst = (code: number) => /^(north|south)$/.test(crsInfo(code).axes[0]?.direction ?? '');

function cs2cs(source: number, target: number, points: readonly XYZ[]): number[][] {
  requirePeers('proj');
  const input = points
    .map((p) => (northFirst(source) ? [p.y, p.x, p.z] : [p.x, p.y, p.z]).map((v) => v.toPrecision(17)).join(' '))
    .join('\n');
  const output = execFileSync('cs2cs', ['-f', '%.12f', `EPSG:${source}`, `EPSG:${target}`], {
    input,
    encoding: 'utf8',
    env: PEER_ON_DEBIAN_REGISTRY.has(`${source}>${target}`) ? process.env : sameRegistry,
  });
  return output
    .trim()
    .split('\n')
    .map((line) => {
      const [a, b, c] = line.trim().split(/\s+/).map(Number);
      return northFirst(target) ? [b!, a!, c!] : [a!, b!, c!];
    });
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

// UTM zones, national grids, Web Mercator, geographic 3D, geocentric and a compound system.
const pairs: [number, number][] = [
  [4326, 3857], [3857, 4326], [4326, 32632], [32632, 4326], [4326, 32735], [4326, 25832], [25832, 4258],
  [4258, 3035], [3035, 4326], [4326, 27700], [27700, 4326], [4326, 2056], [2056, 21781], [21781, 4326],
  [4326, 2154], [2154, 4326], [4326, 28992], [31467, 25832], [4326, 5514], [3006, 4326], [4326, 3067],
  [4326, 2180], [4269, 26915], [26915, 4326], [4979, 4978], [4978, 4979], [4326, 3395], [5972, 25832],
];

test('results equal cs2cs on the same registry to 1e-6 m or 1e-9 degrees for 500+ (source, target, point) triples', () => {
  const next = random(20261122);
  const cache = new PlanCache();
  let compared = 0;
  for (const [source, target] of pairs) {
    const area = crsInfo(source).bbox!;
    const targetArea = crsInfo(target).bbox!;
    const west = Math.max(area[0], targetArea[0]);
    const east = Math.min(area[2], targetArea[2]);
    const south = Math.max(area[1], targetArea[1], -80);
    const north = Math.min(area[3], targetArea[3], 80);
    // Points drawn in degrees inside both areas of use, then expressed in the source system.
    const lonLat = Array.from({ length: 19 }, () => ({
      x: west + (east - west) * (0.05 + 0.9 * next()),
      y: south + (north - south) * (0.05 + 0.9 * next()),
      z: Math.round(next() * 1000),
    }));
    const points = source === 4326 ? lonLat : transformPoints(cache, lonLat, 4326, source, []).results;
    const ours = transformPoints(cache, points, source, target, []).results;
    const theirs =
      LAEA_INVERSE_SOURCES.has(source) && target === 4326
        ? points.map((p) => [...laeaEuropeInverse(p.x, p.y), p.z])
        : cs2cs(source, target, points);
    const degrees = crsInfo(target).unit === 'degree';
    const tolerance = degrees ? 1e-9 : 1e-6;
    ours.forEach((point, i) => {
      const [x, y, z] = theirs[i]!;
      const where = `EPSG:${source} -> EPSG:${target}, point ${JSON.stringify(points[i])}`;
      assert.ok(Math.abs(point.x - x!) <= tolerance, `x ${point.x} vs ${x} (${where})`);
      assert.ok(Math.abs(point.y - y!) <= tolerance, `y ${point.y} vs ${y} (${where})`);
      assert.ok(Math.abs(point.z - z!) <= 1e-6, `z ${point.z} vs ${z} (${where})`);
      compared++;
    });
  }
  assert.ok(compared >= 500, `compared ${compared}`);
});

/** The operation cs2cs applies to one point, as it logs it with PROJ_DEBUG=2 ("Using coordinate operation ..."), on the same registry. */
function cs2csOperation(source: number, target: number, point: XYZ): string | null {
  const input = (northFirst(source) ? [point.y, point.x, point.z] : [point.x, point.y, point.z]).map((v) => v.toPrecision(17)).join(' ');
  const run = spawnSync('cs2cs', [`EPSG:${source}`, `EPSG:${target}`], { input, encoding: 'utf8', env: { ...sameRegistry, PROJ_DEBUG: '2' } });
  return /Using coordinate operation (.*)/.exec(run.stderr)?.[1] ?? null;
}

test('each point names the operation PROJ applied to it, as cs2cs reports it, where PROJ picks among several per point', () => {
  requirePeers('proj');
  const next = random(20_2026);
  const cache = new PlanCache();
  // MGI: Austria (3) and Styria (8); DHDN: the BETA2007 grid and the Helmerts; ED50 and NAD27 across many areas; OSGB36.
  const cases: [number, number, [number, number, number, number]][] = [
    [4312, 4326, [9.6, 46.5, 17.1, 49]],
    [4314, 4326, [6, 47.3, 15, 55]],
    [4230, 4326, [-9, 36, 30, 70]],
    [4267, 4326, [-125, 25, -67, 49]],
    [4326, 27700, [-7, 50, 1.7, 58.6]],
    [4326, 31467, [6, 47.3, 15, 55]],
  ];
  let named = 0;
  const disagreements: string[] = [];
  for (const [source, target, [west, south, east, north]] of cases) {
    const points = Array.from({ length: 12 }, () => ({ x: west + (east - west) * next(), y: south + (north - south) * next(), z: 0 }));
    const ours = points.map((point) => {
      try {
        return transformPoints(cache, [point], source, target, []).operations[0]!.name;
      } catch {
        return null;
      }
    });
    points.forEach((point, i) => {
      const theirs = cs2csOperation(source, target, point);
      if (theirs === null) return;
      named++;
      if (ours[i] !== theirs && !SMALLER_AREA_SINCE_PROJ_9_3.has(`${ours[i]}|${theirs}`)) {
        disagreements.push(`EPSG:${source} -> EPSG:${target} ${JSON.stringify(point)}: ours ${ours[i]}, cs2cs ${theirs}`);
      }
    });
  }
  assert.deepEqual(disagreements, []);
  assert.ok(named >= 50, `named ${named}`);
  // The code is EPSG's: MGI to WGS 84 (8) is EPSG:1194.
  assert.deepEqual(transformPoints(cache, [{ x: 15.4, y: 47.1, z: 0 }], 4312, 4326, []).operations, [{ code: 1194, name: 'MGI to WGS 84 (8)' }]);
});
