import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { METATILE_MARGIN, metatileOf, metatileViewport, tilesOf, viewZoom } from '../../../src/maps/raster/metatile.js';

describe('metatiles', () => {
  test('a metatile is 1024 px of tiles (2x2 of 512, 4x4 of 256), the whole world where it is smaller', () => {
    assert.deepEqual(metatileOf({ z: 5, x: 7, y: 13, size: 512, pixelRatio: 1 }), { z: 5, x0: 6, y0: 12, span: 2, size: 512, pixelRatio: 1 });
    assert.deepEqual(metatileOf({ z: 5, x: 7, y: 13, size: 256, pixelRatio: 2 }), { z: 5, x0: 4, y0: 12, span: 4, size: 256, pixelRatio: 2 });
    assert.deepEqual(metatileOf({ z: 0, x: 0, y: 0, size: 512, pixelRatio: 1 }), { z: 0, x0: 0, y0: 0, span: 1, size: 512, pixelRatio: 1 });
    assert.deepEqual(metatileOf({ z: 1, x: 1, y: 0, size: 256, pixelRatio: 1 }), { z: 1, x0: 0, y0: 0, span: 2, size: 256, pixelRatio: 1 });
  });

  test('a 256-px tile at z is drawn at the 512-px zoom z - 1', () => {
    assert.equal(viewZoom(0, 256), -1);
    assert.equal(viewZoom(7, 256), 6);
    assert.equal(viewZoom(7, 512), 7);
  });

  test('the view of a metatile is its block with the margin, centred on the block', () => {
    const world = metatileViewport(metatileOf({ z: 1, x: 1, y: 1, size: 512, pixelRatio: 1 }));
    assert.deepEqual(world, { center: [0, 0], zoom: 1, width: 1024 + 2 * METATILE_MARGIN, height: 1024 + 2 * METATILE_MARGIN, pixelRatio: 1 });
    const small = metatileViewport(metatileOf({ z: 0, x: 0, y: 0, size: 256, pixelRatio: 2 }));
    assert.equal(small.zoom, -1);
    assert.equal(small.width, 256 + 2 * METATILE_MARGIN);
    // Zoom 2 of 512-px tiles (a world 2048 px wide), block x 2..3, y 0..1: its centre is at
    // 1536, 512: 90° E, and the latitude of Mercator y = pi / 2, atan(sinh(pi / 2)).
    const east = metatileViewport(metatileOf({ z: 2, x: 3, y: 1, size: 512, pixelRatio: 1 }));
    const latitude = (Math.atan(Math.sinh(Math.PI / 2)) * 180) / Math.PI;
    assert.ok(Math.abs(east.center[0] - 90) < 1e-9 && Math.abs(east.center[1] - latitude) < 1e-9, String(east.center));
  });

  test('each tile is cut from its place in the image, device pixels', () => {
    const tiles = tilesOf(metatileOf({ z: 3, x: 5, y: 2, size: 512, pixelRatio: 2 }));
    assert.deepEqual(
      tiles.map(({ x, y, crop }) => [x, y, crop.x, crop.y, crop.width]),
      [
        [4, 2, 2 * METATILE_MARGIN, 2 * METATILE_MARGIN, 1024],
        [5, 2, 2 * METATILE_MARGIN + 1024, 2 * METATILE_MARGIN, 1024],
        [4, 3, 2 * METATILE_MARGIN, 2 * METATILE_MARGIN + 1024, 1024],
        [5, 3, 2 * METATILE_MARGIN + 1024, 2 * METATILE_MARGIN + 1024, 1024],
      ],
    );
  });
});
