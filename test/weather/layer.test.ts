/**
 * The layer a keyframe's archive carries names its projection in WKT: a constant in layer.ts, so that
 * ingest threads need no PROJ. The constant must be what PROJ prints for EPSG:3857, by the native
 * `projinfo` (the peer) and by Meridian's PROJ build (the same proj.db the coordinates API serves).
 */

import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { crsInfo } from '../../src/coordinates/proj/proj.js';
import { buildLayer, WEB_MERCATOR_WKT } from '../../src/weather/layer.js';
import { defaultVariables } from '../../src/weather/variables.js';
import { requirePeers } from '../peers.js';

test("the Web Mercator WKT is native PROJ's projinfo output for EPSG:3857", () => {
  requirePeers('proj');
  const printed = execFileSync('projinfo', ['EPSG:3857', '-o', 'WKT1_GDAL', '--single-line', '-q'], { encoding: 'utf8' }).trim();
  assert.equal(WEB_MERCATOR_WKT, printed);
});

test("the Web Mercator WKT is Meridian's PROJ export of EPSG:3857", () => {
  assert.equal(WEB_MERCATOR_WKT, crsInfo(3857).exports.wkt);
});

test("a keyframe's layer names EPSG:3857 with that WKT", () => {
  const layer = buildLayer({
    variable: defaultVariables[0]!,
    model: 'gfs',
    attribution: 'GFS',
    referenceTime: new Date('2011-01-15T12:00:00Z'),
    validTime: new Date('2011-01-15T12:00:00Z'),
    bounds: { west: -180, south: -85, east: 180, north: 85 },
    maxZoom: 2,
    format: 'png',
  });
  assert.deepEqual(layer.spatial_ref_sys, { auth_name: 'EPSG', auth_srid: '3857', wkt: WEB_MERCATOR_WKT });
});
