import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { GribError, readGrib, type GribMessage } from '../../../src/weather/grib/grib2.js';
import { gaussianLatitudes, gridGeometry, type Geometry } from '../../../src/weather/grib/grid.js';
import { tempDir } from '../../scratch.js';
import { requirePeers } from '../../peers.js';
import { example, firstMessage, keys, referencePoints, requireReference, set, type ReferencePoint } from '../eccodes.js';

let dir = '';
before(() => {
  dir = tempDir();
});
after(() => rmSync(dir, { recursive: true, force: true }));

const messageOf = (file: string, count = 1): GribMessage => readGrib(new Uint8Array(readFileSync(file))).messages[count - 1];
const angle = (a: number, b: number) => Math.abs(((((a - b) % 360) + 540) % 360) - 180);

/**
 * Each ecCodes point (latitude, longitude, value) is located in the grid at an integer position
 * (within 1e-6), whose value index holds the same value and lies at the same place (1e-6 degree).
 */
function assertSamePoints(
  geometry: Geometry,
  values: Float32Array,
  points: ReferencePoint[],
  label: string,
  tolerance = 1e-6,
  rowLatitude?: (j: number) => number,
): Set<number> {
  const seen = new Set<number>();
  for (const [r, point] of points.entries()) {
    // A point on the grid's edge that the reference's rounding put just outside is looked for within the tolerance.
    const nudges = tolerance > 1e-6 ? [[0, 0], [tolerance, 0], [-tolerance, 0], [0, tolerance], [0, -tolerance]] : [[0, 0]];
    const position = nudges.map(([dlon, dlat]) => geometry.locate(point.lon + dlon!, point.lat + dlat!)).find((found) => found !== null);
    assert.ok(position, `${label}: point ${r} (${point.lat}, ${point.lon}) not located`);
    const i = Math.round(position.i);
    const j = Math.round(position.j);
    // Along a row of a rotated grid, the reference's error grows as 1/cos of the row's rotated latitude.
    const rows = geometry.template === 1 ? (rowLatitude ?? (() => 0)) : () => 0;
    const along = tolerance / Math.max(0.01, Math.cos((rows(j) * Math.PI) / 180));
    assert.ok(Math.abs(position.i - i) <= along && Math.abs(position.j - j) <= tolerance, `${label}: point ${r} at (${position.i}, ${position.j})`);
    const k = geometry.index(i % geometry.width, j);
    assert.deepEqual(geometry.position(k), { i: i % geometry.width, j }, `${label}: index ${k} position`);
    const [lon, lat] = geometry.lonLat(k);
    assert.ok(angle(lon, point.lon) <= tolerance && Math.abs(lat - point.lat) <= tolerance, `${label}: point ${r} is (${lat}, ${lon}), ecCodes (${point.lat}, ${point.lon})`);
    const value = values[k];
    const same = Number.isNaN(value) ? Number.isNaN(point.value) : Math.abs(value - point.value) <= 1e-5 * Math.max(1, Math.abs(point.value));
    assert.ok(same, `${label}: point ${r} holds ${value}, ecCodes ${point.value}`);
    const { west, south, east, north } = geometry.bounds;
    const inside = lat >= south - 1e-9 && lat <= north + 1e-9 && [lon - 360, lon, lon + 360].some((l) => l >= west - 1e-9 && l <= east + 1e-9);
    assert.ok(inside, `${label}: point ${r} outside the bounds ${JSON.stringify(geometry.bounds)}`);
    seen.add(k);
  }
  return seen;
}

/**
 * ecCodes rounds the coordinates of rotated grids to micro-degrees in single precision (its
 * `unrotate`: `roundf`), which leaves them up to 4e-6° off: compared within 1e-5 there.
 */
function assertGridMatches(file: string, count = 1, every = 1): void {
  const message = messageOf(file, count);
  const geometry = gridGeometry(message);
  const points = referencePoints(file, count, every);
  const { grid } = message;
  const rotatedRow = grid.template === 1 ? (j: number) => grid.la1 + (j * (grid.la2 - grid.la1)) / Math.max(1, grid.nj - 1) : undefined;
  const seen = assertSamePoints(geometry, message.values(), points, file, grid.template === 1 ? 1e-5 : 1e-6, rotatedRow);
  if (every === 1) assert.equal(seen.size, message.numberOfPoints, 'every value index met once');
}

describe('geometry against ecCodes', () => {
  before(requireReference);
  const files: [string, number][] = [
    ['regular_latlon_surface.grib2', 1],
    ['gfs.t12z.pgrbf120.2p5deg.grib2', 1],
    ['reduced_latlon_surface.grib2', 1],
    ['flux.grb', 1],
    ['ecmwf_tigge.grb', 1],
    ['safrica.grib2', 1],
    ['ngm.grb', 1],
    ['eta.grb', 1],
    ['ds.maxt.bin', 1],
    ['no-radius-shapeOfEarth-7.grb2', 1],
    ['dspr.temp.bin', 1],
  ];
  for (const [name] of files) {
    const template = () => messageOf(example(name)).gridTemplate;
    test(`every point of ${name} lies where ecCodes puts it, and locate finds its index back`, () => {
      assert.ok([0, 10, 20, 30, 40].includes(template()));
      assertGridMatches(example(name));
    });
  }

  test('every 97th point of ds.waveh.bin (4.5 million points of the same template as dspr.temp.bin) lies where ecCodes puts it', () => {
    assertGridMatches(example('ds.waveh.bin'), 1, 97);
  });

  test('a grid template without geometry support is named', () => {
    const message = messageOf(example('rap.wrfnat.grib2'));
    assert.throws(() => gridGeometry(message), (e: unknown) => e instanceof GribError && /3\.32769\b/.test(e.message));
  });
});

describe('rotated latitude/longitude grids (template 3.1)', () => {
  before(requireReference);
  const rotate = (name: string, input: string, southPole: [number, number]) =>
    set(dir, name, input, `gridType=rotated_ll,latitudeOfSouthernPoleInDegrees=${southPole[1]},longitudeOfSouthernPoleInDegrees=${southPole[0]}`);

  test('every point of a regional rotated grid lies where ecCodes puts it, the geographic north pole inside it', () => {
    const file = rotate('rotated-regional.grib2', example('regular_latlon_surface.grib2'), [10, -40]);
    const message = messageOf(file);
    assert.deepEqual([message.gridTemplate, message.grid.template], [1, 1]);
    assertGridMatches(file);
    assert.equal(gridGeometry(message).bounds.north, 90);
  });

  test('a COSMO-like frame (south pole at 10°E, 40°S over a European grid) and a whole-sphere rotated grid match ecCodes', () => {
    const european = set(dir, 'cosmo.grib2', rotate('cosmo-frame.grib2', example('regular_latlon_surface.grib2'), [10, -40]), 'latitudeOfFirstGridPointInDegrees=-5,longitudeOfFirstGridPointInDegrees=-7.5,latitudeOfLastGridPointInDegrees=-35,longitudeOfLastGridPointInDegrees=7.5,iDirectionIncrementInDegrees=1,jDirectionIncrementInDegrees=1');
    assertGridMatches(european);
    const { bounds } = gridGeometry(messageOf(european));
    assert.ok(bounds.west > -30 && bounds.east < 40 && bounds.south > 0 && bounds.north < 60, `over Europe and Africa: ${JSON.stringify(bounds)}`);
    const sphere = rotate('rotated-sphere.grib2', firstMessage(dir, 'gfs-first.grib2', example('gfs.t12z.pgrbf120.2p5deg.grib2')), [10, -40]);
    assertGridMatches(sphere, 1, 7);
    const geometry = gridGeometry(messageOf(sphere));
    assert.ok(geometry.wraps);
    assert.deepEqual(geometry.bounds, { west: -180, south: -90, east: 180, north: 90 }, 'both poles inside');
  });

  test('an angle of rotation about the new axis is refused by name', () => {
    const file = set(dir, 'rotated-angle.grib2', rotate('rotated-base.grib2', example('regular_latlon_surface.grib2'), [10, -40]), 'angleOfRotationInDegrees=15');
    assert.throws(() => gridGeometry(messageOf(file)), (e: unknown) => e instanceof GribError && /angle of rotation \(15°\)/.test(e.message));
  });
});

describe('scanning modes', () => {
  before(requireReference);
  const regular = () => example('regular_latlon_surface.grib2');
  const gaussian = () => firstMessage(dir, 'gaussian.grib2', example('flux.grb'));
  const polar = () => firstMessage(dir, 'polar.grib2', example('safrica.grib2'));
  const lambert = () => firstMessage(dir, 'lambert.grib2', example('eta.grb'));
  const mercator = () => firstMessage(dir, 'mercator.grib2', example('dspr.temp.bin'));

  test('westward and northward scanning of lat/lon and Gaussian grids, reordered by ecCodes, match ecCodes', () => {
    for (const [name, input] of [['regular', regular()], ['gaussian', gaussian()]]) {
      for (const swap of ['swapScanningX', 'swapScanningY']) {
        const file = set(dir, `${name}-${swap}.grib2`, input, `${swap}=1`);
        assertGridMatches(file);
      }
    }
  });

  test('consecutive j (column by column) on lat/lon and projected grids matches ecCodes', () => {
    for (const [name, input] of [['regular', regular()], ['polar', polar()], ['lambert', lambert()]]) {
      const mode = Number(keys(input, ['scanningMode'])[0][0]);
      assertGridMatches(set(dir, `${name}-columns.grib2`, input, `scanningMode=${mode | 0x20}`));
    }
  });

  test('alternating rows on projected grids, reordered by ecCodes, match ecCodes', () => {
    for (const [name, input] of [['polar', polar()], ['lambert', lambert()], ['mercator', mercator()]]) {
      assertGridMatches(set(dir, `${name}-alternate.grib2`, input, 'swapScanningAlternativeRows=1'));
    }
  });

  test('alternating rows on a lat/lon grid put every value where it was before ecCodes reordered the rows', () => {
    // ecCodes 2.28 reorders the values but its lat/lon iterator ignores the flag, so the reference is
    // the original file's points.
    const file = set(dir, 'regular-alternate.grib2', regular(), 'swapScanningAlternativeRows=1');
    const message = messageOf(file);
    assert.ok(message.grid.scanning.alternateRows);
    const geometry = gridGeometry(message);
    assertSamePoints(geometry, message.values(), referencePoints(regular(), 1), 'alternate');
    assert.equal(geometry.index(0, 1), 2 * geometry.width - 1);
  });

  test('projected grids scanned westwards or southwards mirror the same grid scanned eastwards and northwards', () => {
    // ecCodes 2.28 ignores these directions on projected grids; the reference is the grid itself,
    // with its first point moved to the opposite corner.
    for (const [name, input] of [['polar', polar()], ['lambert', lambert()], ['mercator', mercator()]]) {
      const original = gridGeometry(messageOf(input));
      const { width, height } = original;
      const mode = Number(keys(input, ['scanningMode'])[0][0]);
      const corner = (i: number, j: number) => original.lonLat(original.index(i, j)).map((v) => v.toFixed(6));
      const [topLon, topLat] = corner(0, height - 1);
      const [eastLon, eastLat] = corner(width - 1, 0);
      const south = gridGeometry(messageOf(set(dir, `${name}-south.grib2`, input, `scanningMode=${mode & ~0x40},latitudeOfFirstGridPointInDegrees=${topLat},longitudeOfFirstGridPointInDegrees=${topLon}`)));
      const west = gridGeometry(messageOf(set(dir, `${name}-west.grib2`, input, `scanningMode=${mode | 0x80},latitudeOfFirstGridPointInDegrees=${eastLat},longitudeOfFirstGridPointInDegrees=${eastLon}`)));
      for (let j = 0; j < height; j += 7) {
        for (let i = 0; i < width; i += 5) {
          const [lon, lat] = original.lonLat(original.index(i, j));
          for (const [mirror, mi, mj] of [[south, i, height - 1 - j], [west, width - 1 - i, j]] as const) {
            const [mlon, mlat] = mirror.lonLat(mirror.index(mi, mj));
            assert.ok(angle(mlon, lon) < 1e-5 && Math.abs(mlat - lat) < 1e-5, `${name} (${i}, ${j}): (${mlat}, ${mlon}) for (${lat}, ${lon})`);
          }
        }
      }
    }
  });
});

describe('earth shapes and projections', () => {
  before(requireReference);
  test('the spheres and ellipsoids of code table 3.2 put Lambert conformal points where ecCodes does', () => {
    const input = firstMessage(dir, 'lambert-shape.grib2', example('eta.grb'));
    const shapes = [
      'shapeOfTheEarth=0',
      'shapeOfTheEarth=1,scaleFactorOfRadiusOfSphericalEarth=1,scaledValueOfRadiusOfSphericalEarth=63700000',
      'shapeOfTheEarth=2',
      'shapeOfTheEarth=3,scaleFactorOfEarthMajorAxis=1,scaledValueOfEarthMajorAxis=63781370,scaleFactorOfEarthMinorAxis=1,scaledValueOfEarthMinorAxis=63567523',
      'shapeOfTheEarth=4',
      'shapeOfTheEarth=5',
      'shapeOfTheEarth=8',
      'shapeOfTheEarth=9',
    ];
    for (const [n, shape] of shapes.entries()) assertGridMatches(set(dir, `shape-${n}.grib2`, input, shape));
  });

  test('a Lambert conformal grid on one standard parallel (tangent cone) matches ecCodes', () => {
    const input = firstMessage(dir, 'lambert-tangent.grib2', example('eta.grb'));
    assertGridMatches(set(dir, 'tangent.grib2', input, 'Latin1InDegrees=40,Latin2InDegrees=40'));
  });

  // ecCodes 2.28 computes polar stereographic grids on spheres only: PROJ is the reference here.
  test('a north polar stereographic grid on an ellipsoid is a regular grid in PROJ\'s stereographic coordinates', () => {
    requirePeers('proj');
    const input = firstMessage(dir, 'polar-north.grib2', example('ngm.grb'));
    const message = messageOf(set(dir, 'polar-wgs84.grib2', input, 'shapeOfTheEarth=5'));
    const grid = message.grid;
    assert.ok(grid.template === 20 && !grid.southPole && grid.earth.a !== grid.earth.b);
    const geometry = gridGeometry(message);
    const lines = Array.from({ length: message.numberOfPoints }, (_, k) => geometry.lonLat(k).join(' ')).join('\n');
    const projected = execFileSync('proj', ['-f', '%.4f', `+proj=stere`, `+lat_0=90`, `+lat_ts=${grid.lad}`, `+lon_0=${grid.lov}`, `+a=${grid.earth.a}`, `+b=${grid.earth.b}`], { input: lines })
      .toString()
      .trim()
      .split('\n')
      .map((line) => line.split(/\s+/).map(Number));
    const [x0, y0] = projected[0];
    projected.forEach(([x, y], k) => {
      const { i, j } = geometry.position(k);
      assert.ok(Math.abs(x - x0 - i * grid.dx) < 0.01 && Math.abs(y - y0 - j * grid.dy) < 0.01, `point ${k}: (${x - x0}, ${y - y0}) for (${i}, ${j})`);
    });
  });

  test('a Mercator grid on an ellipsoid matches ecCodes', () => {
    const input = firstMessage(dir, 'mercator-shape.grib2', example('dspr.temp.bin'));
    assertGridMatches(set(dir, 'mercator-wgs84.grib2', input, 'shapeOfTheEarth=5'));
  });
});

describe('positions for interpolation', () => {
  test('Gaussian latitudes are the roots of the Legendre polynomial P_2N', () => {
    const asinDegrees = (x: number) => (Math.asin(x) * 180) / Math.PI;
    const close = (actual: Float64Array, expected: number[]) =>
      actual.length === expected.length && expected.every((v, k) => Math.abs(actual[k] - v) < 1e-9);
    assert.ok(close(gaussianLatitudes(1), [asinDegrees(1 / Math.sqrt(3)), -asinDegrees(1 / Math.sqrt(3))]));
    const p4 = [Math.sqrt(3 / 7 + (2 / 7) * Math.sqrt(6 / 5)), Math.sqrt(3 / 7 - (2 / 7) * Math.sqrt(6 / 5))].map(asinDegrees);
    assert.ok(close(gaussianLatitudes(2), [p4[0], p4[1], -p4[1], -p4[0]]));
  });

  test('a global grid wraps longitudes: east of the last column lies between it and the first', () => {
    requireReference();
    const geometry = gridGeometry(messageOf(example('gfs.t12z.pgrbf120.2p5deg.grib2')));
    assert.ok(geometry.wraps);
    assert.deepEqual(geometry.bounds, { west: 0, south: -90, east: 360, north: 90 });
    const position = geometry.locate(358.75, 0)!;
    assert.ok(Math.abs(position.i - 143.5) < 1e-9 && position.i < geometry.width, `i ${position.i}`);
    assert.deepEqual(geometry.locate(-1.25, 0), position);
    assert.equal(geometry.locate(10, 91), null);
  });

  test('a regional grid has no position outside itself', () => {
    requireReference();
    const latlon = gridGeometry(messageOf(example('regular_latlon_surface.grib2')));
    assert.ok(!latlon.wraps);
    assert.deepEqual(latlon.bounds, { west: 0, south: 0, east: 30, north: 60 });
    assert.equal(latlon.locate(45, 10), null);
    assert.equal(latlon.locate(10, 61), null);
    assert.deepEqual(latlon.locate(3, 59), { i: 1.5, j: 0.5, iNextRow: 1.5 });
    const lambert = gridGeometry(messageOf(example('eta.grb')));
    assert.equal(lambert.locate(0, 0), null);
    assert.equal(lambert.locate(260, -30), null);
  });

  test('a reduced grid gives the position at the same longitude in both neighbouring rows', () => {
    requireReference();
    const geometry = gridGeometry(messageOf(example('ecmwf_tigge.grb')));
    assert.deepEqual(geometry.rows!.slice(0, 2), [18, 25]);
    const [, lat0] = geometry.lonLat(0);
    const [, lat1] = geometry.lonLat(18);
    const position = geometry.locate(30, (lat0 + lat1) / 2)!;
    assert.ok(Math.abs(position.j - 0.5) < 1e-9);
    assert.ok(Math.abs(position.i - 30 / 20) < 1e-9 && Math.abs(position.iNextRow - 30 / 14.4) < 1e-9, JSON.stringify(position));
    assert.equal(geometry.index(2, 1), 20);
  });
});
