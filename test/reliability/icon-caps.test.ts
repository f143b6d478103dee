/**
 * Icon amplification (issue 15, item 5): one image names a bounded number of distinct icons and
 * downloads a bounded number of bytes; downloads in flight per instance are bounded; a failed icon
 * keeps failing for a while without another download.
 */

import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { defaultConfig } from '../../src/config.js';
import { ApiError } from '../../src/platform/errors.js';
import { IconLoader, type IconLimits } from '../../src/maps/static/icons.js';

let server: Server;
let base: string;
let png: Buffer;
const hits = new Map<string, number>();
let inFlight = 0;
let mostInFlight = 0;

before(async () => {
  png = await sharp({ create: { width: 16, height: 16, channels: 4, background: '#00ff00' } }).png({ compressionLevel: 0 }).toBuffer();
  server = createServer((request, response) => {
    const path = request.url!.split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      if (path.startsWith('/missing')) response.writeHead(404).end();
      else response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    }, 50);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const loader = (limits: Partial<IconLimits>) => new IconLoader({ ...defaultConfig.maps.icons, allowPrivateAddresses: true, cacheEntries: 64, ...limits });
const refusal = (message: RegExp) => (error: unknown) => error instanceof ApiError && error.statusCode === 400 && message.test(error.message);

test('more distinct icons than maxPerRequest are refused before anything is downloaded', async () => {
  const urls = Array.from({ length: 17 }, (_, i) => `${base}/many/${i}.png`);
  await assert.rejects(loader({ maxPerRequest: 16 }).load(urls), refusal(/Too many marker icons: at most 16 distinct icon URLs per image/));
  assert.equal([...hits.keys()].filter((path) => path.startsWith('/many/')).length, 0);
  assert.equal((await loader({ maxPerRequest: 16 }).load([...urls.slice(0, 16), urls[0]!])).size, 16, 'repeats count once');
});

test('downloads in flight per instance stay within maxDownloads', async () => {
  mostInFlight = 0;
  const icons = loader({ maxDownloads: 2 });
  const urls = Array.from({ length: 8 }, (_, i) => `${base}/flight/${i}.png`);
  await Promise.all([icons.load(urls.slice(0, 4)), icons.load(urls.slice(4))]);
  assert.equal(mostInFlight, 2);
});

test('an image downloads at most maxBytesPerRequest bytes of icons', async () => {
  const icons = loader({ maxBytesPerRequest: png.byteLength * 2, maxDownloads: 1 });
  const urls = Array.from({ length: 4 }, (_, i) => `${base}/budget/${i}.png`);
  await assert.rejects(icons.load(urls), refusal(/may download at most \d+ bytes/));
  const downloaded = [...hits.keys()].filter((path) => path.startsWith('/budget/')).length;
  assert.ok(downloaded <= 3, `${downloaded} downloads for a budget of two icons`);
});

test('a failed icon keeps failing for failureCacheMs without another download', async () => {
  const icons = loader({ failureCacheMs: 60_000 });
  const url = `${base}/missing/icon.png`;
  for (let i = 0; i < 3; i++) await assert.rejects(icons.load([url]), refusal(/HTTP 404/));
  assert.equal(hits.get('/missing/icon.png'), 1);
});
