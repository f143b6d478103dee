/**
 * The render pool's warm-up (issue 35): a starting instance answers `/health` at once and `/ready`
 * 503 `starting` until each render thread has opened the maps and drawn each once, so that the
 * first requests a load balancer sends it find warm threads.
 *
 * What the threads draw is observed where it comes from: the map's one raster tile is served by a
 * test server that counts the requests and holds them until the test lets them go, so that the
 * warm-up cannot finish before the test has seen `/ready` wait for it.
 */

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import type { StyleSpecification } from '@maplibre/maplibre-gl-style-spec';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';

const THREADS = 2;

/** A tile server of one tile (0/0/0) that answers only once `release` is called. */
function heldTileServer() {
  const canvas = createCanvas(256, 256);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#3a7d44';
  ctx.fillRect(0, 0, 256, 256);
  const png = canvas.toBuffer('image/png');
  const requests: string[] = [];
  const held: [IncomingMessage, ServerResponse][] = [];
  let released = false;
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/0/0/0.png') response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    else response.writeHead(404).end();
  };
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (released) answer(request, response);
    else held.push([request, response]);
  });
  return {
    requests,
    listen: () => new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port))),
    release() {
      released = true;
      for (const [request, response] of held.splice(0)) answer(request, response);
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const tiles = heldTileServer();
let server: TestServer;
let base: string;

before(async () => {
  const port = await tiles.listen();
  const style: StyleSpecification = {
    version: 8,
    sources: { land: { type: 'raster', tiles: [`http://127.0.0.1:${port}/{z}/{x}/{y}.png`], tileSize: 256, maxzoom: 0 } },
    layers: [{ id: 'land', type: 'raster', source: 'land' }],
  };
  server = await startTestServer(testConfig({ maps: { workers: THREADS, definitions: { held: { style } } } }));
  ({ public: base } = await server.server.listen());
});

after(async () => {
  tiles.release();
  await server?.close();
  await tiles.close();
});

const ready = async () => {
  const response = await fetch(`${base}/ready`);
  return { status: response.status, body: (await response.json()) as Record<string, string> };
};

test('/ready says starting until every render thread has drawn the maps; /health answers meanwhile; a render after it starts no thread', async () => {
  const first = await ready();
  assert.equal(first.status, 503, `the first /ready: ${JSON.stringify(first.body)}`);
  assert.equal(first.body.reason, 'starting');
  assert.equal((await fetch(`${base}/health`)).status, 200, 'liveness does not wait');

  // Each thread's warm-up asks for the map's tile (each thread has its own tile cache).
  for (let attempt = 0; tiles.requests.length < THREADS; attempt++) {
    assert.ok(attempt < 6000, `the warm-up asked for ${tiles.requests.length} tiles`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const waiting = await ready();
  assert.deepEqual([waiting.status, waiting.body.reason], [503, 'starting'], 'not ready while the threads still draw');
  assert.match(waiting.body.message!, new RegExp(`^render threads warming up: [01] of ${THREADS} warm$`));

  tiles.release();
  let answer = await ready();
  for (let attempt = 0; answer.status !== 200; attempt++) {
    assert.deepEqual([answer.status, answer.body.reason], [503, 'starting'], JSON.stringify(answer.body));
    assert.ok(attempt < 6000, 'the threads never became warm');
    await new Promise((resolve) => setTimeout(resolve, 50));
    answer = await ready();
  }
  assert.equal(answer.body.render_threads, `${THREADS} of ${THREADS} warm`);
  assert.deepEqual(tiles.requests, Array(THREADS).fill('/0/0/0.png'), 'every thread drew the map before /ready said ok');

  // Renders at once, on both threads: a thread started for them would ask for the tile again.
  const { accountId } = await newAccount(server.meridian);
  const { token } = await server.meridian.keys.create(accountId, {});
  const images = await Promise.all(['10,50,3/300x200.png', '-70,-20,2/200x300.png'].map((view) => fetch(`${base}/api/maps/held/static/${view}?key=${token}`)));
  assert.deepEqual(images.map((image) => image.status), [200, 200]);
  assert.equal(tiles.requests.length, THREADS, 'the renders ran on threads that had drawn the map');
});
