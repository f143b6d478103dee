/**
 * The links in style.json and TileJSON: with `publicUrl` set they ignore the request's Host (a
 * forged Host cannot point a client's tiles, glyphs and key elsewhere); without it they follow the
 * Host and the response says it varies by it, so a shared cache keeps one Host's links apart.
 *
 * @oneDatabase the database only checks the key; what is tested is the URLs built from Host headers.
 */

import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { newAccount, startTestServer, testConfig, type TestServer } from '../helpers.js';
import { writeFixtureMap, type FixtureMap } from '../maps/serve/interactive-fixture.js';

let fixture: FixtureMap;
let pinned: TestServer;
let open: TestServer;

before(async () => {
  fixture = await writeFixtureMap();
  pinned = await startTestServer(testConfig({ publicUrl: 'https://maps.example.com/', maps: { definitions: fixture.definitions as never } }));
  open = await startTestServer(testConfig({ maps: { definitions: fixture.definitions as never } }));
});

after(async () => {
  await pinned.close();
  await open.close();
  rmSync(fixture.dir, { recursive: true, force: true });
});

async function fetchWithHost(server: TestServer, url: string, host: string) {
  const key = (await server.meridian.keys.create((await newAccount(server.meridian)).accountId, {})).token;
  return server.server.public.inject({ method: 'GET', url: `${url}?key=${encodeURIComponent(key)}`, headers: { host } });
}

test('with publicUrl, a forged Host changes no link', async () => {
  for (const url of ['/maps/test/style.json', '/maps/test/sources/places.json']) {
    const response = await fetchWithHost(pinned, url, 'evil.example');
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(!response.body.includes('evil.example'), url);
    assert.ok(response.body.includes('https://maps.example.com/maps/test/'), url);
  }
});

test('without publicUrl, links follow the Host and the response varies by it', async () => {
  for (const url of ['/maps/test/style.json', '/maps/test/sources/places.json']) {
    const response = await fetchWithHost(open, url, 'meridian.test:8080');
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(response.body.includes('http://meridian.test:8080/maps/test/'), url);
    assert.match(String(response.headers.vary), /\bHost\b/, url);
    assert.match(String(response.headers.vary), /X-Forwarded-Host/, url);
  }
});

test('a public URL with a path, query or another scheme is refused at start-up', async () => {
  const { loadConfig } = await import('../../src/config.js');
  for (const value of ['ftp://maps.example.com', 'https://maps.example.com/base', 'https://maps.example.com?x=1']) {
    assert.throws(() => loadConfig({ env: { MERIDIAN_PUBLIC_URL: value } }), /"publicUrl".*MERIDIAN_PUBLIC_URL/, value);
  }
});

test('without publicUrl, a Host that is not host[:port] is refused with 400 and never reaches a link', async () => {
  const forged = ['evil.example/"><script>', 'evil.example/x', 'a b', 'evil"x', "it's", 'host:port', 'host:99999', 'host:', '[::1', 'user@evil.example', 'evil.example?x=1', 'evil.example#x', '<x>', 'a\\b', '%65vil.example'];
  const urls = ['/maps/test/style.json', '/maps/test/sources/places.json', '/maps/test/WMTSCapabilities.xml', '/maps/test/tiles.json'];
  for (const host of forged) {
    for (const url of urls) {
      const response = await fetchWithHost(open, url, host);
      assert.equal(response.statusCode, 400, `${host} ${url}: ${response.body.slice(0, 200)}`);
      assert.deepEqual(response.json(), { errors: [{ message: 'Invalid Host header: send host[:port]' }] }, host);
    }
  }
  for (const host of ['meridian.test', 'meridian.test:8080', 'MAPS.Example.com.', '127.0.0.1:8080', '[::1]:8080', '[2001:db8::1]', 'xn--bcher-kva.example', 'under_score.local']) {
    const response = await fetchWithHost(open, '/maps/test/style.json', host);
    assert.equal(response.statusCode, 200, `${host}: ${response.body.slice(0, 200)}`);
    assert.ok(response.body.includes(`http://${host}/maps/test/`), host);
  }
});

test('behind a trusted proxy, an X-Forwarded-Host that is not host[:port] is refused too', async () => {
  const proxied = await startTestServer(testConfig({ trustProxy: true, maps: { definitions: fixture.definitions as never } }));
  try {
    const key = (await proxied.meridian.keys.create((await newAccount(proxied.meridian)).accountId, {})).token;
    const get = (forwarded: string) =>
      proxied.server.public.inject({ method: 'GET', url: `/maps/test/style.json?key=${key}`, headers: { host: 'meridian.internal:8080', 'x-forwarded-host': forwarded } });
    const forged = await get('evil.example/"><x');
    assert.equal(forged.statusCode, 400, forged.body.slice(0, 200));
    assert.deepEqual(forged.json(), { errors: [{ message: 'Invalid Host header: send host[:port]' }] });
    const fine = await get('maps.example.com');
    assert.equal(fine.statusCode, 200);
    assert.ok(fine.body.includes('http://maps.example.com/maps/test/'));
  } finally {
    await proxied.close();
  }
});
