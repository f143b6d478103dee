/**
 * A render thread hands back what it read from Skia between tasks: renders that read no file (a
 * warm map; here a map of a background only) coming back to back, each reading a 512x512 image's
 * pixels (1 MiB, and as much again for its canvas), leave the process's memory level. And the
 * images it hands to the serving thread are not that thread's external memory, which V8 counts
 * against its heap's room (docs/benchmarks.md, "Image bytes in shared memory").
 *
 * @oneDatabase the render threads read no database.
 */

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { getHeapStatistics } from 'node:v8';
import { MapRegistry } from '../../src/maps/registry.js';
import { RenderPool } from '../../src/maps/render-pool.js';
import { plainImageJob } from '../../src/maps/static/static-image.js';
import { cleanUp, testConfig } from '../helpers.js';

const config = testConfig({
  maps: { workers: 1, definitions: { plain: { style: { version: 8, sources: {}, layers: [{ id: 'land', type: 'background', paint: { 'background-color': '#3a7d44' } }] } } } },
});
after(() => cleanUp(config));

const MiB = 2 ** 20;

/** Runs `body` with a render pool of one thread over the plain map; `render(zoom)` draws a 512x512 PNG of it. */
async function withPlainPool(body: (render: (zoom: number) => Promise<Buffer>) => Promise<void>): Promise<void> {
  const registry = await MapRegistry.open(config);
  const pool = new RenderPool(config);
  try {
    const { id, revision } = registry.get('plain')!;
    await body((zoom) => pool.render({ id, revision }, plainImageJob({ center: [0, 0], zoom, width: 512, height: 512, pixelRatio: 1 }, 'png')));
  } finally {
    await pool.close();
    await registry.close();
  }
}

test('back-to-back renders that read no file leave memory level (the thread frees each image before the next)', () =>
  withPlainPool(async (render) => {
    const renders = async (count: number) => {
      for (let i = 0; i < count; i++) await render(1 + (i % 10) / 10);
    };
    await renders(30);
    const before = process.memoryUsage().rss;
    // Kept, these would hold about 2 MiB each: 1.2 GiB.
    await renders(600);
    const grown = (process.memoryUsage().rss - before) / MiB;
    assert.ok(grown < 250, `resident memory grew by ${grown.toFixed(0)} MiB over 600 renders`);
  }));

test("the images a render thread hands back are not the serving thread's external memory", () =>
  withPlainPool(async (render) => {
    await render(1);
    // 200 images of about 2 KB each: well beyond what else the process allocates meanwhile.
    const before = getHeapStatistics().external_memory;
    const kept: Buffer[] = [];
    for (let i = 0; i < 200; i++) kept.push(await render(1 + i / 200));
    const bytes = kept.reduce((sum, image) => sum + image.byteLength, 0);
    const grown = getHeapStatistics().external_memory - before;
    assert.ok(grown < bytes / 2, `the serving thread's external memory grew by ${grown} bytes while it held ${bytes} bytes of images`);
    assert.ok(kept.every((image) => image.buffer instanceof SharedArrayBuffer), 'each image is a view of shared memory');
  }));
