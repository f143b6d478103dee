/**
 * Render admission from the first request on (issue 31, item 2). On a fresh server, 100 simultaneous
 * 2048x2048@2x images gave 66 x 200 with p50 24.9 s and max 46.6 s against a 15 s limit, and 34
 * immediate 503s: a new pool's wait estimate started at 0, so it admitted its whole queue; two
 * raster tiles on cold caches got no answer in 30 s. Now each render carries an estimate from its
 * size (pixels to draw, at the pool's cost per pixel: learned from its runs, and before any, the
 * conservative initial figure), and a render is admitted only when the estimates of the line ahead,
 * spread over the threads, and its own fit within the limit: every admitted image answers within
 * the limit, and the rest get 503 with Retry-After.
 *
 * @oneDatabase the database only checks the key; what is tested is the render pool's admission under a burst.
 */

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newAccount, startTestServer, testConfig } from '../helpers.js';
import { worldStyle } from '../maps/raster/raster-maps.js';

/**
 * The world map of the test fixture with its fills and lines drawn eight times over: one
 * 2048x2048@2x image then takes 0.5-1.4 s on one thread of this 2-core machine at load average 13
 * (50-80 ns a pixel, what the campaign's world map with its labels cost: about 85 ns), a little
 * less idle; a cold thread adds its start (1.3 s idle, up to 4 s loaded).
 */
function heavyWorld() {
  const style = worldStyle();
  const drawn = style.layers.filter((layer) => layer.type !== 'symbol');
  const copies = Array.from({ length: 8 }, (_, copy) => drawn.map((layer) => ({ ...layer, id: `${layer.id}-${copy}` })));
  style.layers = [...copies.flat(), ...style.layers.filter((layer) => layer.type === 'symbol')];
  return style;
}

/**
 * The limit: load alone does not bring one render near 12 s, a cold thread's first included (6.6 s
 * at load average 12, behind the tiles); only waiting in line does: 80 images on 2 threads are 16 s
 * of rendering on an idle machine and about a minute on a loaded one.
 */
const LIMIT_MS = 12_000;
/**
 * What a 200 may take beyond the limit as this test measures it: the server counts from admission,
 * the test from before it asks, and a render that ends just inside its limit is answered once the
 * serving loop, busy with 84 requests, gets to it. Before admission held, 200s came 2-4x the limit late.
 */
const ANSWER_SLACK_MS = 2_000;
const IMAGES = 80;
/** Raster tiles of four metatiles no request has drawn, asked for in the same burst. */
const TILES = ['/maps/world/3/4/2.png', '/maps/world/3/0/0@2x.png', '/maps/world/256/5/16/10.png', '/maps/world/4/8/5.png'];

test('a burst of large images on a fresh server: every 200 within the limit, the rest 503 with Retry-After, raster tiles included', { timeout: 180_000 }, async (t) => {
  const server = await startTestServer(
    testConfig({ maps: { definitions: { world: { style: heavyWorld() as never, maxzoom: 8 } }, workers: 2, queue: 64, timeoutMs: LIMIT_MS } }),
  );
  try {
    const { accountId } = await newAccount(server.meridian);
    const key = (await server.meridian.keys.create(accountId, {})).token;
    // The key verified once (the gate keeps it), so that the burst measures the render pool.
    assert.equal((await server.server.public.inject({ method: 'GET', url: `/ping?key=${key}` })).statusCode, 200);
    const timed = async (url: string) => {
      const started = performance.now();
      const response = await server.server.public.inject({ method: 'GET', url: `${url}?key=${key}` });
      return { url, response, ms: performance.now() - started };
    };
    // Views of the fixture's data: labels, coasts and borders to draw over the whole image.
    const centres = ['10,50,3', '10,50,4', '0,45,3', '20,40,4', '0,0,2'];
    const burst = await Promise.all([
      ...Array.from({ length: IMAGES }, (_, i) => timed(`/api/maps/world/static/${centres[i % centres.length]}/2048x2048@2x.png`)),
      ...TILES.map(timed),
    ]);

    const summary = burst.map(({ response, ms }) => `${response.statusCode} ${Math.round(ms)}`).join(', ');
    const late = burst.filter(({ response, ms }) => response.statusCode === 200 && ms > LIMIT_MS + ANSWER_SLACK_MS);
    assert.deepEqual(
      late.map(({ url, ms }) => `${url}: 200 after ${Math.round(ms)} ms`),
      [],
      `every 200 within the server's limit of ${LIMIT_MS} ms, give or take ${ANSWER_SLACK_MS} ms (status and ms of each answer: ${summary})`,
    );
    for (const { url, response } of burst) {
      if (response.statusCode === 200) continue;
      assert.equal(response.statusCode, 503, `${url}: ${response.statusCode} ${response.body}`);
      assert.equal(response.headers['retry-after'], '1', url);
      assert.match(response.json().errors[0].message, new RegExp(`^(Too many renders waiting.* within ${LIMIT_MS} ms; try again shortly|The (image|tile) was not rendered within ${LIMIT_MS} ms)$`), url);
    }
    const images = burst.slice(0, IMAGES);
    const admitted = images.filter(({ response }) => response.statusCode === 200).length;
    // Behind the tiles (they reach the pool first) and cold threads, a loaded machine may let one image through.
    assert.ok(admitted >= 1, `some images were rendered: ${admitted} of ${IMAGES}`);
    assert.ok(admitted < IMAGES, `some images were refused: ${admitted} of ${IMAGES} rendered`);
    const sorted = burst.map(({ ms }) => ms).sort((a, b) => a - b);
    const ok = burst.filter(({ response }) => response.statusCode === 200).map(({ ms }) => ms);
    const refusals = new Map<string, number[]>();
    for (const { response, ms } of burst.filter(({ response }) => response.statusCode === 503)) {
      const message = (response.json() as { errors: { message: string }[] }).errors[0]!.message;
      refusals.set(message, [...(refusals.get(message) ?? []), ms]);
    }
    const refused = [...refusals].map(([message, times]) => `${times.length} x "${message}" (${Math.round(Math.min(...times))}-${Math.round(Math.max(...times))} ms)`);
    t.diagnostic(
      `${admitted} of ${IMAGES} images 200, tiles ${burst.slice(IMAGES).map(({ response }) => response.statusCode).join(' ')}; ` +
        `answers p50 ${Math.round(sorted[sorted.length >> 1]!)} ms, max ${Math.round(sorted.at(-1)!)} ms; 200s max ${Math.round(Math.max(...ok))} ms; 503: ${refused.join(', ')}`,
    );
  } finally {
    await server.close();
  }
});
