import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import sharp from 'sharp';
import { ApiError } from '../../../src/platform/errors.js';
import { IconLoader, type IconLimits } from '../../../src/maps/static/icons.js';
import { isPrivateAddress } from '../../../src/platform/http/http-client.js';
import { defaultConfig } from '../../../src/config.js';

const limits: IconLimits = { ...defaultConfig.maps.icons, maxBytes: 4096, timeoutMs: 1000, cacheEntries: 2, allowPrivateAddresses: true };
let server: Server;
let base: string;
let hits = 0;
let png: Buffer;

before(async () => {
  png = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#ff0000' } }).png().toBuffer();
  server = createServer((request, response) => {
    hits++;
    const hops = Number(/^\/hops\/(\d+)$/.exec(request.url ?? '')?.[1] ?? -1);
    if (hops > 0) return response.writeHead(302, { location: `/hops/${hops - 1}` }).end();
    if (hops === 0) return response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    if (/^\/pins\/\d+\.png$/.test(request.url ?? '')) return response.writeHead(200, { 'content-type': 'image/png' }).end(png);
    switch (request.url) {
      case '/pin.png':
        return response.writeHead(200, { 'content-type': 'image/png' }).end(png);
      case '/moved':
        return response.writeHead(302, { location: '/pin.png' }).end();
      case '/loop':
        return response.writeHead(302, { location: '/loop' }).end();
      case '/page':
        return response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      case '/liar.png':
        return response.writeHead(200, { 'content-type': 'image/png' }).end('not an image at all');
      case '/huge.png':
        return response.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.concat([png, Buffer.alloc(8192)]));
      case '/slow.png':
        return setTimeout(() => response.writeHead(200, { 'content-type': 'image/png' }).end(png), 3000).unref();
      default:
        return response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

async function refused(loader: IconLoader, url: string, reason: RegExp): Promise<void> {
  await assert.rejects(loader.load([url]), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.statusCode, 400);
    assert.match(error.message, reason);
    assert.ok(error.message.includes(url));
    return true;
  });
}

test('an icon is fetched once and then served from the cache', async () => {
  const loader = new IconLoader(limits);
  const before = hits;
  const first = await loader.load([`${base}/pin.png`, `${base}/pin.png`]);
  assert.deepEqual(Buffer.from(first.get(`${base}/pin.png`)!), png);
  await loader.load([`${base}/pin.png`]);
  assert.equal(hits - before, 1);
});

test('the cached icons weigh at most cacheBytes together, the least recently used going first', async () => {
  // Room for two icons by bytes, for many by count: only the byte bound can drop one.
  const loader = new IconLoader({ ...limits, cacheEntries: 100, cacheBytes: 2 * png.byteLength });
  const pin = (n: number) => `${base}/pins/${n}.png`;
  const before = hits;
  await loader.load([pin(1)]);
  await loader.load([pin(2)]);
  await loader.load([pin(3)]);
  assert.equal(hits - before, 3);
  await loader.load([pin(2), pin(3)]);
  assert.equal(hits - before, 3, 'the two most recent are still kept');
  await loader.load([pin(1)]);
  assert.equal(hits - before, 4, 'the first was dropped to keep the bytes under the bound');
});

test('redirects are followed, but not forever', async () => {
  const loader = new IconLoader(limits);
  assert.deepEqual(Buffer.from((await loader.load([`${base}/moved`])).get(`${base}/moved`)!), png);
  await refused(loader, `${base}/loop`, /too many redirects/);
  assert.deepEqual(Buffer.from((await loader.load([`${base}/hops/3`])).get(`${base}/hops/3`)!), png, 'three redirects are followed');
  await refused(loader, `${base}/hops/4`, /too many redirects/);
});

test('what is not an image, or is too large, or too slow, or missing, is refused with a 400', async () => {
  const loader = new IconLoader(limits);
  await refused(loader, `${base}/page`, /not a PNG, JPEG, WebP or GIF image \(text\/html\)/);
  await refused(loader, `${base}/liar.png`, /not a PNG/);
  await refused(loader, `${base}/huge.png`, /larger than 4096 bytes/);
  await refused(loader, `${base}/slow.png`, /timed out/);
  await refused(loader, `${base}/absent.png`, /HTTP 404/);
});

test('loopback and private hosts are refused unless the operator allows them', async () => {
  const loader = new IconLoader({ ...limits, allowPrivateAddresses: false });
  await refused(loader, `${base}/pin.png`, /private address/);
  await refused(loader, `http://localhost:${new URL(base).port}/pin.png`, /private address/);
  await refused(loader, 'http://[::1]/pin.png', /private address/);
});

test('private, loopback, link-local and mapped addresses are told apart from public ones', () => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1']) {
    assert.equal(isPrivateAddress(address), true, address);
  }
  for (const address of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) assert.equal(isPrivateAddress(address), false, address);
});

test('an icon larger than 512 pixels a side is refused', async () => {
  const big = await sharp({ create: { width: 600, height: 4, channels: 4, background: '#00ff00' } }).png().toBuffer();
  const server2 = createServer((_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).end(big));
  await new Promise<void>((resolve) => server2.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server2.address() as AddressInfo).port}/big.png`;
    await refused(new IconLoader({ ...limits, maxBytes: 1 << 20 }), url, /larger than 512×512 pixels/);
  } finally {
    server2.close();
  }
});
